// Composite ML-DSA-65 + Ed25519 (see composite_sig.h and draft-ietf-lamps-pq-composite-sigs-19,
// sections 2.2, 3.2 and 3.3).
#include "veil/crypto/composite_sig.h"

#include <cstring>
#include <optional>

#include "veil/crypto/ed25519.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/random.h"

namespace veil::crypto {
namespace {

constexpr char kPrefix[] = "CompositeAlgorithmSignatures2025";
constexpr char kLabel[] = "COMPSIG-MLDSA65-Ed25519-SHA512";
constexpr std::size_t kMlDsaSig = kMlDsa65SignatureSize;
constexpr std::size_t kMlDsaPk = kMlDsa65PublicKeySize;
static_assert(kCompositePublicKeySize == kMlDsaPk + kEd25519PublicKeySize);
static_assert(kCompositeSignatureSize == kMlDsaSig + kEd25519SignatureSize);

ByteView Label() { return AsBytes(kLabel); }

// M' = Prefix || Label || len(ctx) || ctx || PH(M) (section 2.2).
Result<Bytes> MessageRepresentative(ByteView message, ByteView context) {
  if (context.size() > kCompositeMaxContextSize) {
    return InvalidArgument("composite signature: context longer than 255 bytes");
  }
  const Sha512Digest ph = Sha512(message);
  const std::uint8_t ctx_len[1] = {static_cast<std::uint8_t>(context.size())};
  return Concat({AsBytes(kPrefix), Label(), ctx_len, context, ph});
}

}  // namespace

struct CompositeVerifyingKey::State {
  std::array<std::uint8_t, kCompositePublicKeySize> bytes;
  std::optional<MlDsa65PublicKey> mldsa;
};

Result<CompositeVerifyingKey> CompositeVerifyingKey::Decode(ByteView encoded) {
  if (encoded.size() != kCompositePublicKeySize) {
    return InvalidArgument("composite signature: public key must be 1984 bytes");
  }
  auto s = std::make_shared<State>();
  std::memcpy(s->bytes.data(), encoded.data(), encoded.size());
  VEIL_ASSIGN_OR_RETURN(MlDsa65PublicKey pk, MlDsa65PublicKey::Decode(encoded.first(kMlDsaPk)));
  s->mldsa.emplace(std::move(pk));
  return CompositeVerifyingKey(std::move(s));
}

const CompositeVerifyingKey::State& CompositeVerifyingKey::Live() const {
  VEIL_CHECK_MSG(s_ != nullptr, "composite signature: use of a moved-from verifying key");
  return *s_;
}

const std::array<std::uint8_t, kCompositePublicKeySize>& CompositeVerifyingKey::bytes() const {
  return Live().bytes;
}

Status CompositeVerifyingKey::Verify(ByteView message, ByteView context, ByteView signature) const {
  if (signature.size() != kCompositeSignatureSize) {
    return InvalidArgument("composite signature: signature must be 3373 bytes");
  }
  const State& s = Live();
  VEIL_ASSIGN_OR_RETURN(Bytes m_prime, MessageRepresentative(message, context));
  // Both are checked (no early exit) so the time does not tell which component failed.
  const Status a = MlDsa65Verify(*s.mldsa, m_prime, Label(), signature.first(kMlDsaSig));
  const Status b =
      Ed25519Verify(ByteView(s.bytes).subspan(kMlDsaPk), m_prime, signature.subspan(kMlDsaSig));
  if (!a.ok() || !b.ok()) return VerificationFailed();
  return Status::Ok();
}

struct CompositeSigningKey::State {
  Secret<kMlDsa65SeedSize> mldsa_seed;
  std::optional<MlDsa65SecretKey> mldsa;
  std::optional<Ed25519SigningKey> ed25519;
  std::optional<CompositeVerifyingKey> verifying;
};

CompositeSigningKey::CompositeSigningKey(std::unique_ptr<State> s) : s_(std::move(s)) {}
CompositeSigningKey::~CompositeSigningKey() = default;
CompositeSigningKey::CompositeSigningKey(CompositeSigningKey&&) noexcept = default;
CompositeSigningKey& CompositeSigningKey::operator=(CompositeSigningKey&&) noexcept = default;

Result<CompositeSigningKey> CompositeSigningKey::Decode(ByteView private_key) {
  if (private_key.size() != kCompositePrivateKeySize) {
    return InvalidArgument("composite signature: private key must be 64 bytes");
  }
  auto s = std::make_unique<State>();
  s->mldsa_seed = Secret<kMlDsa65SeedSize>::CopyFrom(private_key.first<32>());
  MlDsa65KeyPair kp = MlDsa65KeyGenFromSeed(s->mldsa_seed);
  VEIL_ASSIGN_OR_RETURN(Ed25519SigningKey ed,
                        Ed25519SigningKey::FromSeedBytes(private_key.subspan(32)));
  Bytes pk = Concat({kp.pk.bytes(), ed.public_key()});
  VEIL_ASSIGN_OR_RETURN(CompositeVerifyingKey vk, CompositeVerifyingKey::Decode(pk));
  s->mldsa.emplace(std::move(kp.sk));
  s->ed25519.emplace(std::move(ed));
  s->verifying.emplace(std::move(vk));
  return CompositeSigningKey(std::move(s));
}

CompositeSigningKey CompositeSigningKey::Generate() {
  SecretBytes sk = RandomSecret(kCompositePrivateKeySize);
  return Decode(sk.Expose()).value();  // a 64-byte key always decodes
}

const CompositeSigningKey::State& CompositeSigningKey::Live() const {
  VEIL_CHECK_MSG(s_ != nullptr, "composite signature: use of a moved-from signing key");
  return *s_;
}

SecretBytes CompositeSigningKey::Encode() const {
  const State& s = Live();
  SecretBytes out(kCompositePrivateKeySize);
  const Secret<kEd25519SeedSize> ed_seed = s.ed25519->seed();
  std::memcpy(out.ExposeMutable().data(), s.mldsa_seed.Expose().data(), 32);
  std::memcpy(out.ExposeMutable().data() + 32, ed_seed.Expose().data(), 32);
  return out;
}

const CompositeVerifyingKey& CompositeSigningKey::verifying_key() const {
  return *Live().verifying;
}

Result<CompositeSignature> CompositeSigningKey::Sign(ByteView message, ByteView context,
                                                     MlDsaSigning mode) const {
  const State& s = Live();
  VEIL_ASSIGN_OR_RETURN(Bytes m_prime, MessageRepresentative(message, context));
  VEIL_ASSIGN_OR_RETURN(MlDsa65Signature mldsa_sig, MlDsa65Sign(*s.mldsa, m_prime, Label(), mode));
  const Ed25519Signature ed_sig = s.ed25519->Sign(m_prime);
  CompositeSignature sig;
  std::memcpy(sig.data(), mldsa_sig.data(), kMlDsaSig);
  std::memcpy(sig.data() + kMlDsaSig, ed_sig.data(), ed_sig.size());
  return sig;
}

}  // namespace veil::crypto
