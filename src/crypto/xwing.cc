// X-Wing (draft-connolly-cfrg-xwing-kem-10, section 5) over our ML-KEM-768 and libsodium's X25519,
// and its use as an HPKE KEM (section 5.6).
#include "veil/crypto/xwing.h"

#include <sodium.h>

#include <cstring>
#include <optional>

#include "mlkem/mlkem768_access.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/mlkem768.h"
#include "veil/crypto/random.h"
#include "veil/crypto/testing/xwing.h"
#include "veil/crypto/x25519.h"
#include "xwing_hpke.h"

namespace veil::crypto {
namespace {

// XWingLabel = "\./" || "/^\" (section 5.3).
constexpr std::uint8_t kXWingLabel[6] = {0x5c, 0x2e, 0x2f, 0x2f, 0x5e, 0x5c};
constexpr std::size_t kMlKemPk = kMlKem768EncapsulationKeySize;
constexpr std::size_t kMlKemCt = kMlKem768CiphertextSize;

// X25519 without the all-zero check: X-Wing's security argument does not need it, and
// decapsulation must not fail (it is an implicitly rejecting KEM); a low-order ct_X simply
// contributes a known ss_X, while ss_M keeps the combined secret secure.
Secret<32> RawX25519(std::span<const std::uint8_t, 32> k, std::span<const std::uint8_t, 32> u) {
  Secret<32> out;
  // The return value only says whether the result is all zeros; see above for why it is unused.
  [[maybe_unused]] const int all_zero =
      crypto_scalarmult(out.ExposeMutable().data(), k.data(), u.data());
  return out;
}

Secret<32> Combiner(const Secret<32>& ss_m, const Secret<32>& ss_x,
                    std::span<const std::uint8_t, 32> ct_x,
                    std::span<const std::uint8_t, 32> pk_x) {
  Sha3_256 h;
  h.Update(ss_m.Expose());
  h.Update(ss_x.Expose());
  h.Update(ct_x);
  h.Update(pk_x);
  h.Update(kXWingLabel);
  Secret<32> ss;
  h.Final(ss.ExposeMutable());
  return ss;
}

Result<XWingEncapsulation> EncapsulateWith(ByteView public_key, std::span<const std::uint8_t, 32> m,
                                           std::span<const std::uint8_t, 32> ek_x) {
  if (public_key.size() != kXWingPublicKeySize) {
    return InvalidArgument("X-Wing: public key must be 1216 bytes");
  }
  VEIL_ASSIGN_OR_RETURN(MlKem768EncapsulationKey pk_m,
                        MlKem768EncapsulationKey::Decode(public_key.first(kMlKemPk)));
  const std::span<const std::uint8_t, 32> pk_x = public_key.subspan(kMlKemPk).first<32>();
  XWingEncapsulation out;
  // ct_X = X25519(ek_X, X25519_BASE), by the fixed-base path (x25519.h).
  Secret<32> ct_x;
  X25519BaseMultiply(ek_x, ct_x.ExposeMutable());
  const Secret<32> ss_x = RawX25519(ek_x, pk_x);
  MlKem768Encapsulation m_enc = MlKem768Access::Encaps(pk_m, m);
  std::memcpy(out.ciphertext.data(), m_enc.ciphertext.data(), kMlKemCt);
  std::memcpy(out.ciphertext.data() + kMlKemCt, ct_x.Expose().data(), 32);
  out.shared_secret = Combiner(m_enc.shared_secret, ss_x, ct_x.Expose(), pk_x);
  return out;
}

}  // namespace

struct XWingDecapsulationKey::Expanded {
  Secret<kXWingSeedSize> seed;
  Secret<32> sk_x;
  XWingPublicKey pk{};
  std::optional<MlKem768DecapsulationKey> sk_m;
};

XWingDecapsulationKey::XWingDecapsulationKey(std::unique_ptr<Expanded> e) : e_(std::move(e)) {}
XWingDecapsulationKey::~XWingDecapsulationKey() = default;
XWingDecapsulationKey::XWingDecapsulationKey(XWingDecapsulationKey&&) noexcept = default;
XWingDecapsulationKey& XWingDecapsulationKey::operator=(XWingDecapsulationKey&&) noexcept = default;

// expandDecapsulationKey (section 5.2).
XWingDecapsulationKey XWingDecapsulationKey::FromSeed(const Secret<kXWingSeedSize>& seed) {
  EnsureInitialized();
  auto e = std::make_unique<Expanded>();
  e->seed = seed.Clone();
  Secret<96> expanded;
  Shake256 xof;
  xof.Absorb(seed.Expose());
  xof.Squeeze(expanded.ExposeMutable());
  const auto x = expanded.Expose();
  MlKem768KeyPair m = MlKem768Access::KeyGen(x.subspan<0, 32>(), x.subspan<32, 32>());
  e->sk_x = Secret<32>::CopyFrom(x.subspan<64, 32>());
  std::memcpy(e->pk.data(), m.ek.bytes().data(), kMlKemPk);
  X25519BaseMultiply(e->sk_x.Expose(), std::span(e->pk).subspan<kMlKemPk, 32>());
  e->sk_m.emplace(std::move(m.dk));
  return XWingDecapsulationKey(std::move(e));
}

Result<XWingDecapsulationKey> XWingDecapsulationKey::FromSeedBytes(ByteView seed) {
  if (seed.size() != kXWingSeedSize) return InvalidArgument("X-Wing: seed must be 32 bytes");
  return FromSeed(Secret<kXWingSeedSize>::CopyFrom(seed.first<kXWingSeedSize>()));
}

XWingDecapsulationKey XWingDecapsulationKey::Generate() {
  return FromSeed(RandomSecret<kXWingSeedSize>());
}

const XWingDecapsulationKey::Expanded& XWingDecapsulationKey::Live() const {
  VEIL_CHECK_MSG(e_ != nullptr, "X-Wing: use of a moved-from decapsulation key");
  return *e_;
}

const Secret<kXWingSeedSize>& XWingDecapsulationKey::seed() const { return Live().seed; }
const XWingPublicKey& XWingDecapsulationKey::public_key() const { return Live().pk; }

// Decapsulate (section 5.5).
Result<Secret<kXWingSharedSecretSize>> XWingDecapsulationKey::Decapsulate(
    ByteView ciphertext) const {
  if (ciphertext.size() != kXWingCiphertextSize) {
    return InvalidArgument("X-Wing: ciphertext must be 1120 bytes");
  }
  const Expanded& e = Live();
  VEIL_ASSIGN_OR_RETURN(Secret<32> ss_m, MlKem768Decaps(*e.sk_m, ciphertext.first(kMlKemCt)));
  const std::span<const std::uint8_t, 32> ct_x = ciphertext.subspan(kMlKemCt).first<32>();
  const Secret<32> ss_x = RawX25519(e.sk_x.Expose(), ct_x);
  return Combiner(ss_m, ss_x, ct_x,
                  std::span<const std::uint8_t>(e.pk).subspan(kMlKemPk).first<32>());
}

// Encapsulate (section 5.4): EncapsulateDerand with a fresh eseed, m = eseed[0:32] and
// ek_X = eseed[32:64].
Result<XWingEncapsulation> XWingEncapsulate(ByteView public_key) {
  EnsureInitialized();
  const Secret<kXWingEncapsSeedSize> eseed = RandomSecret<kXWingEncapsSeedSize>();
  return EncapsulateWith(public_key, eseed.Expose().first<32>(), eseed.Expose().subspan<32, 32>());
}

// EncapsulateDerand (section 5.4.1), for test vectors only.
Result<XWingEncapsulation> for_testing::XWingEncapsulateDerand(
    ByteView public_key, const Secret<kXWingEncapsSeedSize>& eseed) {
  EnsureInitialized();
  return EncapsulateWith(public_key, eseed.Expose().first<32>(), eseed.Expose().subspan<32, 32>());
}

namespace hpke::internal {

KeyPair XWingDeriveKeyPair(ByteView ikm) {
  Secret<kXWingSeedSize> seed;
  Shake256 xof;
  xof.Absorb(ikm);
  xof.Squeeze(seed.ExposeMutable());
  XWingDecapsulationKey dk = XWingDecapsulationKey::FromSeed(seed);
  return {SecretBytes::CopyFrom(seed.Expose()),
          Bytes(dk.public_key().begin(), dk.public_key().end())};
}

Result<Bytes> XWingPublicKeyOf(const SecretBytes& private_key) {
  VEIL_ASSIGN_OR_RETURN(XWingDecapsulationKey dk,
                        XWingDecapsulationKey::FromSeedBytes(private_key.Expose()));
  return Bytes(dk.public_key().begin(), dk.public_key().end());
}

Result<std::pair<SecretBytes, Bytes>> XWingEncap(ByteView public_key, ByteView eseed) {
  Result<XWingEncapsulation> e = InvalidArgument("unset");
  if (eseed.empty()) {
    e = XWingEncapsulate(public_key);
  } else {
    if (eseed.size() != kXWingEncapsSeedSize) {
      return InvalidArgument("X-Wing: derandomized encapsulation needs a 64-byte seed");
    }
    e = for_testing::XWingEncapsulateDerand(
        public_key, Secret<kXWingEncapsSeedSize>::CopyFrom(eseed.first<64>()));
  }
  if (!e.ok()) return e.status();
  return std::make_pair(SecretBytes::CopyFrom(e->shared_secret.Expose()),
                        Bytes(e->ciphertext.begin(), e->ciphertext.end()));
}

Result<SecretBytes> XWingDecap(ByteView enc, const SecretBytes& private_key) {
  VEIL_ASSIGN_OR_RETURN(XWingDecapsulationKey dk,
                        XWingDecapsulationKey::FromSeedBytes(private_key.Expose()));
  VEIL_ASSIGN_OR_RETURN(Secret<32> ss, dk.Decapsulate(enc));
  return SecretBytes::CopyFrom(ss.Expose());
}

}  // namespace hpke::internal
}  // namespace veil::crypto
