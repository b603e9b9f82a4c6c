// The public ML-KEM-768 API (veil/crypto/mlkem768.h) over the internal algorithms of kem.h: input
// checks (FIPS 203 sec. 7), randomness (sec. 7.1-7.3), and the key types; the internal functions
// for tests (veil/crypto/testing/mlkem768.h) and for X-Wing (mlkem768_access.h).
#include "veil/crypto/mlkem768.h"

#include <algorithm>
#include <string>

#include "kem.h"
#include "mlkem768_access.h"
#include "params.h"
#include "veil/base/consttime.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/random.h"
#include "veil/crypto/testing/mlkem768.h"

namespace veil::crypto {
namespace {

using P = mlkem::MlKem768;
static_assert(P::kEkBytes == kMlKem768EncapsulationKeySize);
static_assert(P::kDkBytes == kMlKem768DecapsulationKeySize);
static_assert(P::kCtBytes == kMlKem768CiphertextSize);
static_assert(mlkem::kSymBytes == kMlKem768SharedSecretSize);

constexpr std::size_t kEkOffsetInDk = P::kDkPkeBytes;
constexpr std::size_t kHashOffsetInDk = P::kDkPkeBytes + P::kEkBytes;

}  // namespace

MlKem768EncapsulationKey MlKem768EncapsulationKey::FromCheckedBytes(ByteView b) {
  VEIL_CHECK(b.size() == kMlKem768EncapsulationKeySize);
  MlKem768EncapsulationKey ek;
  std::copy(b.begin(), b.end(), ek.bytes_.begin());
  ek.hash_ = Sha3_256::Hash(ek.bytes_);
  return ek;
}

Result<MlKem768EncapsulationKey> MlKem768EncapsulationKey::Decode(ByteView b) {
  if (b.size() != kMlKem768EncapsulationKeySize) {
    return InvalidArgument("ML-KEM-768: encapsulation key must be " +
                           std::to_string(kMlKem768EncapsulationKeySize) + " bytes, got " +
                           std::to_string(b.size()));
  }
  const std::span<const std::uint8_t, P::kEkBytes> ek(b.data(), P::kEkBytes);
  if (!mlkem::EncapsulationKeyPassesModulusCheck<P>(ek)) {
    return InvalidArgument("ML-KEM-768: encapsulation key has a coefficient >= q");
  }
  return FromCheckedBytes(b);
}

Result<MlKem768DecapsulationKey> MlKem768DecapsulationKey::Decode(ByteView b) {
  if (b.size() != kMlKem768DecapsulationKeySize) {
    return InvalidArgument("ML-KEM-768: decapsulation key must be " +
                           std::to_string(kMlKem768DecapsulationKeySize) + " bytes, got " +
                           std::to_string(b.size()));
  }
  // The embedded ek is public by design (it is the key pair's public half); a copy of it is marked
  // public here so that its checks and the re-encryption in Decaps may branch on it.
  std::array<std::uint8_t, P::kEkBytes> ek_bytes;
  std::copy_n(b.begin() + kEkOffsetInDk, P::kEkBytes, ek_bytes.begin());
  VEIL_DECLASSIFY(ek_bytes.data(), ek_bytes.size());
  if (!mlkem::EncapsulationKeyPassesModulusCheck<P>(ek_bytes)) {
    return InvalidArgument("ML-KEM-768: decapsulation key embeds an invalid encapsulation key");
  }
  MlKem768EncapsulationKey ek = MlKem768EncapsulationKey::FromCheckedBytes(ek_bytes);
  // Sec. 7.3 hash check: H(ek) == dk[768k + 32 : 768k + 64]. Whether a key decodes is public.
  bool hash_ok = ConstantTimeEquals(ek.hash(), b.subspan(kHashOffsetInDk, 32));
  VEIL_DECLASSIFY(&hash_ok, sizeof hash_ok);
  if (!hash_ok) return InvalidArgument("ML-KEM-768: decapsulation key fails the hash check");
  return MlKem768DecapsulationKey(SecretBytes::CopyFrom(b), ek);
}

MlKem768DecapsulationKey MlKem768DecapsulationKey::FromSeed(const Secret<kMlKem768SeedSize>& d_z) {
  return std::move(MlKem768Access::KeyGen(d_z.Expose().first<32>(), d_z.Expose().last<32>()).dk);
}

MlKem768KeyPair MlKem768Access::KeyGen(std::span<const std::uint8_t, 32> d,
                                       std::span<const std::uint8_t, 32> z) {
  std::array<std::uint8_t, P::kEkBytes> ek;
  SecretBytes dk(P::kDkBytes);
  mlkem::KeyGenInternal<P>(
      d, z, ek, std::span<std::uint8_t, P::kDkBytes>(dk.ExposeMutable().data(), P::kDkBytes));
  // KeyGen_internal has just put H(ek) into dk (computed from the declassified ek, so public);
  // hashing the 1184 bytes again would cost nine more Keccak permutations.
  MlKem768EncapsulationKey ek_key;
  ek_key.bytes_ = ek;
  std::copy_n(dk.Expose().begin() + kHashOffsetInDk, 32, ek_key.hash_.begin());
  return MlKem768KeyPair{MlKem768DecapsulationKey(std::move(dk), ek_key), ek_key};
}

MlKem768Encapsulation MlKem768Access::Encaps(const MlKem768EncapsulationKey& ek,
                                             std::span<const std::uint8_t, 32> m) {
  MlKem768Encapsulation out;
  mlkem::EncapsInternal<P>(
      std::span<const std::uint8_t, P::kEkBytes>(ek.bytes().data(), P::kEkBytes), ek.hash(), m,
      out.ciphertext, out.shared_secret.ExposeMutable());
  return out;
}

ByteView MlKem768Access::DkBytes(const MlKem768DecapsulationKey& dk) { return dk.dk_.Expose(); }

MlKem768KeyPair MlKem768KeyGen() {
  const Secret<32> d = RandomSecret<32>(), z = RandomSecret<32>();
  return MlKem768Access::KeyGen(d.Expose(), z.Expose());
}

MlKem768Encapsulation MlKem768Encaps(const MlKem768EncapsulationKey& ek) {
  return MlKem768Access::Encaps(ek, RandomSecret<32>().Expose());
}

Result<Secret<32>> MlKem768Decaps(const MlKem768DecapsulationKey& dk, ByteView ciphertext) {
  if (ciphertext.size() != kMlKem768CiphertextSize) {
    return InvalidArgument("ML-KEM-768: ciphertext must be " +
                           std::to_string(kMlKem768CiphertextSize) + " bytes, got " +
                           std::to_string(ciphertext.size()));
  }
  Secret<32> k;
  mlkem::DecapsInternal<P>(
      std::span<const std::uint8_t, P::kDkBytes>(MlKem768Access::DkBytes(dk).data(), P::kDkBytes),
      std::span<const std::uint8_t, P::kEkBytes>(dk.encapsulation_key().bytes().data(),
                                                 P::kEkBytes),
      std::span<const std::uint8_t, P::kCtBytes>(ciphertext.data(), P::kCtBytes),
      k.ExposeMutable());
  return k;
}

namespace for_testing {

MlKem768KeyPair MlKem768KeyGenInternal(const Secret<32>& d, const Secret<32>& z) {
  return MlKem768Access::KeyGen(d.Expose(), z.Expose());
}

MlKem768Encapsulation MlKem768EncapsInternal(const MlKem768EncapsulationKey& ek,
                                             const Secret<32>& m) {
  return MlKem768Access::Encaps(ek, m.Expose());
}

}  // namespace for_testing
}  // namespace veil::crypto
