// The public ML-DSA-65 interface (include/veil/crypto/mldsa65.h) over the internal algorithms of
// sign.h: pure ML-DSA (FIPS 204 Algorithms 1 to 3); and, for tests only
// (include/veil/crypto/testing/mldsa65.h), the internal functions (Algorithms 7, 8) and the
// external-mu forms.
#include "veil/crypto/mldsa65.h"

#include <algorithm>
#include <array>

#include "params.h"
#include "sign.h"
#include "veil/crypto/random.h"
#include "veil/crypto/testing/mldsa65.h"

namespace veil::crypto {

static_assert(kMlDsa65PublicKeySize == mldsa::kPublicKeyBytes);
static_assert(kMlDsa65SecretKeySize == mldsa::kSecretKeyBytes);
static_assert(kMlDsa65SignatureSize == mldsa::kSignatureBytes);
static_assert(kMlDsa65SeedSize == mldsa::kSeedBytes && kMlDsa65MuSize == mldsa::kMuBytes);
static_assert(kMlDsa65RandomnessSize == mldsa::kSeedBytes);

void mldsa::SecretKeyStateDeleter::operator()(SecretKeyState* s) const { delete s; }

// Builds key objects from states; the only way in besides Decode.
class MlDsa65Access {
 public:
  static MlDsa65PublicKey Public(std::shared_ptr<const mldsa::PublicKeyState> s) {
    return MlDsa65PublicKey(std::move(s));
  }
  static MlDsa65SecretKey Secret(
      std::unique_ptr<mldsa::SecretKeyState, mldsa::SecretKeyStateDeleter> s) {
    return MlDsa65SecretKey(std::move(s));
  }
  static const mldsa::PublicKeyState& State(const MlDsa65PublicKey& pk) {
    VEIL_CHECK_MSG(pk.state_ != nullptr, "ML-DSA: use of a moved-from public key");
    return *pk.state_;
  }
  static const mldsa::SecretKeyState& State(const MlDsa65SecretKey& sk) {
    VEIL_CHECK_MSG(sk.state_ != nullptr, "ML-DSA: use of a moved-from secret key");
    return *sk.state_;
  }
};

namespace {

using SecretState = std::unique_ptr<mldsa::SecretKeyState, mldsa::SecretKeyStateDeleter>;
using Mu = std::array<std::uint8_t, kMlDsa65MuSize>;

Status CheckContext(ByteView context) {
  if (context.size() > kMlDsaMaxContextSize) {
    return InvalidArgument("ML-DSA: context longer than 255 bytes");
  }
  return Status::Ok();
}

// The prefix of M' in pure ML-DSA: IntegerToBytes(0, 1) || IntegerToBytes(|ctx|, 1)
// (Algorithm 2, line 10; Algorithm 3, line 5).
std::array<std::uint8_t, 2> PurePrefix(ByteView context) {
  return {0, static_cast<std::uint8_t>(context.size())};
}

MlDsa65Signature SignWithMu(const MlDsa65SecretKey& sk, std::span<const std::uint8_t, 64> mu,
                            std::span<const std::uint8_t, 32> rnd) {
  MlDsa65Signature sig;
  mldsa::SignMu(sig, MlDsa65Access::State(sk), mu, rnd);
  return sig;
}

Status VerifyWithMu(const MlDsa65PublicKey& pk, std::span<const std::uint8_t, 64> mu,
                    ByteView signature) {
  if (signature.size() != kMlDsa65SignatureSize) {
    return InvalidArgument("ML-DSA-65: signature must be 3309 bytes");
  }
  if (!mldsa::VerifyMu(MlDsa65Access::State(pk), mu, signature.first<kMlDsa65SignatureSize>())) {
    return VerificationFailed();
  }
  return Status::Ok();
}

}  // namespace

Result<MlDsa65PublicKey> MlDsa65PublicKey::Decode(ByteView encoded) {
  if (encoded.size() != kMlDsa65PublicKeySize) {
    return InvalidArgument("ML-DSA-65: public key must be 1952 bytes");
  }
  auto state = std::make_shared<mldsa::PublicKeyState>();
  mldsa::DecodePublicKey(*state, encoded.first<kMlDsa65PublicKeySize>());
  return MlDsa65PublicKey(std::move(state));
}

ByteView MlDsa65PublicKey::bytes() const { return MlDsa65Access::State(*this).encoded; }

Result<MlDsa65SecretKey> MlDsa65SecretKey::Decode(ByteView encoded) {
  if (encoded.size() != kMlDsa65SecretKeySize) {
    return InvalidArgument("ML-DSA-65: secret key must be 4032 bytes");
  }
  SecretState state(new mldsa::SecretKeyState);
  if (!mldsa::DecodeSecretKey(*state, encoded.first<kMlDsa65SecretKeySize>())) {
    return InvalidArgument("ML-DSA-65: secret key coefficient out of range");
  }
  return MlDsa65SecretKey(std::move(state));
}

SecretBytes MlDsa65SecretKey::Encode() const {
  return SecretBytes::CopyFrom(MlDsa65Access::State(*this).encoded);
}

MlDsa65KeyPair MlDsa65KeyGen() {
  EnsureInitialized();
  return MlDsa65KeyGenFromSeed(RandomSecret<kMlDsa65SeedSize>());  // Algorithm 1, line 1
}

MlDsa65KeyPair MlDsa65KeyGenFromSeed(const Secret<32>& xi) {
  auto pk = std::make_shared<mldsa::PublicKeyState>();
  SecretState sk(new mldsa::SecretKeyState);
  mldsa::KeyGenInternal(xi.Expose(), *pk, *sk);
  return {MlDsa65Access::Secret(std::move(sk)), MlDsa65Access::Public(std::move(pk))};
}

Result<MlDsa65Signature> MlDsa65Sign(const MlDsa65SecretKey& sk, ByteView message, ByteView context,
                                     MlDsaSigning mode) {
  VEIL_RETURN_IF_ERROR(CheckContext(context));  // Algorithm 2, lines 1-3
  // rnd: 32 random bytes (line 5), or 0^32 for the deterministic variant.
  Secret<kMlDsa65RandomnessSize> rnd;
  if (mode == MlDsaSigning::kHedged) {
    EnsureInitialized();
    RandomBytes(rnd.ExposeMutable());
  }
  const auto prefix = PurePrefix(context);
  Mu mu;
  mldsa::ComputeMu(mu, MlDsa65Access::State(sk).tr, {prefix, context, message});
  return SignWithMu(sk, mu, rnd.Expose());
}

Status MlDsa65Verify(const MlDsa65PublicKey& pk, ByteView message, ByteView context,
                     ByteView signature) {
  VEIL_RETURN_IF_ERROR(CheckContext(context));  // Algorithm 3, lines 1-3
  const auto prefix = PurePrefix(context);
  Mu mu;
  mldsa::ComputeMu(mu, MlDsa65Access::State(pk).tr, {prefix, context, message});
  return VerifyWithMu(pk, mu, signature);
}

namespace for_testing {

MlDsa65Signature MlDsa65SignInternal(const MlDsa65SecretKey& sk, ByteView m_prime,
                                     const Secret<32>& rnd) {
  Mu mu;
  mldsa::ComputeMu(mu, MlDsa65Access::State(sk).tr, {m_prime});  // Algorithm 7, line 6
  return SignWithMu(sk, mu, rnd.Expose());
}

MlDsa65Signature MlDsa65SignExternalMu(const MlDsa65SecretKey& sk,
                                       std::span<const std::uint8_t, 64> mu,
                                       const Secret<32>& rnd) {
  return SignWithMu(sk, mu, rnd.Expose());
}

Result<MlDsa65Mu> MlDsa65ComputeMu(const MlDsa65PublicKey& pk, ByteView message, ByteView context) {
  VEIL_RETURN_IF_ERROR(CheckContext(context));
  const auto prefix = PurePrefix(context);
  MlDsa65Mu mu;
  mldsa::ComputeMu(mu, MlDsa65Access::State(pk).tr, {prefix, context, message});
  return mu;
}

Status MlDsa65VerifyInternal(const MlDsa65PublicKey& pk, ByteView m_prime, ByteView signature) {
  Mu mu;
  mldsa::ComputeMu(mu, MlDsa65Access::State(pk).tr, {m_prime});  // Algorithm 8, line 7
  return VerifyWithMu(pk, mu, signature);
}

Status MlDsa65VerifyExternalMu(const MlDsa65PublicKey& pk, std::span<const std::uint8_t, 64> mu,
                               ByteView signature) {
  return VerifyWithMu(pk, mu, signature);
}

}  // namespace for_testing
}  // namespace veil::crypto
