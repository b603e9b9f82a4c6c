// ML-KEM-768 under valgrind (see ctime.h): key generation, encapsulation and decapsulation must not
// branch on or index by a secret.
//
// Marked secret (undefined to memcheck): the key-generation seeds d and z (also as the 64-byte
// seed form), the encapsulation randomness m, and every byte of the encoded decapsulation key
// before it is decoded. Public by design, and declassified in src/crypto/mlkem/ on the line where
// it becomes public: rho (kpke.cc, it is published in ek, and SampleNTT rejection-samples from it),
// the encapsulation key (kem.cc, KeyGen output; mlkem768.cc, the copy embedded in a decoded dk),
// the ciphertext (kem.cc, Encaps output) and the verdict of the dk hash check (mlkem768.cc).
// Decapsulation runs on a valid ciphertext and on tampered ones, so the re-encryption comparison
// and the implicit-rejection select are exercised on both outcomes. The shared secrets are
// declassified here, test-only, to compare them. Everything runs twice: on the AVX2 code when the
// CPU has it, and on the portable code.
#include <cstdio>
#include <cstdlib>

#include "../../src/crypto/mlkem/simd.h"
#include "ctime.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/mlkem768.h"
#include "veil/crypto/testing/mlkem768.h"

namespace veil::crypto {
namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "mlkem ctime: %s\n", what);
  std::abort();
}

template <std::size_t N>
Secret<N> ClassifiedSecret(std::uint8_t seed) {
  Secret<N> s;
  for (std::size_t i = 0; i < N; ++i)
    s.ExposeMutable()[i] = static_cast<std::uint8_t>(seed + 11 * i);
  ctime::Classify(s.Expose().data(), N);
  return s;
}

// Test-only: compares two secrets in the clear.
bool SameKey(const Secret<32>& a, const Secret<32>& b) {
  ctime::Declassify(a.Expose().data(), 32);
  ctime::Declassify(b.Expose().data(), 32);
  return a.ConstantTimeEquals(b);
}

void KeyGenEncapsDecaps() {
  for (std::uint8_t round = 0; round < 2; ++round) {
    const auto d = ClassifiedSecret<32>(static_cast<std::uint8_t>(1 + round));
    const auto z = ClassifiedSecret<32>(static_cast<std::uint8_t>(2 + round));
    const auto m = ClassifiedSecret<32>(static_cast<std::uint8_t>(3 + round));
    const MlKem768KeyPair kp = for_testing::MlKem768KeyGenInternal(d, z);

    // Encapsulation to the (public) ek with a secret m; the ciphertext comes back public.
    const MlKem768Encapsulation enc = for_testing::MlKem768EncapsInternal(kp.ek, m);

    // The decapsulation key as it would arrive from storage: every byte secret.
    const SecretBytes dk_bytes = kp.dk.Encode();
    ctime::Classify(dk_bytes.Expose().data(), dk_bytes.size());
    auto dk = MlKem768DecapsulationKey::Decode(dk_bytes.Expose());  // ok() is public
    if (!dk.ok()) Fail("decode of a valid dk failed");

    auto k = MlKem768Decaps(*dk, enc.ciphertext);
    if (!k.ok()) Fail("decaps failed");
    if (!SameKey(*k, enc.shared_secret)) Fail("decaps returned a different key");

    // Tampered ciphertexts: implicit rejection, same code path, and the result is J(z || c).
    for (const std::size_t pos : {std::size_t{0}, std::size_t{700}, kMlKem768CiphertextSize - 1}) {
      auto c = enc.ciphertext;
      c[pos] ^= 0x10;
      auto rejected = MlKem768Decaps(*dk, c);
      if (!rejected.ok()) Fail("decaps of a tampered ciphertext failed");
      Shake256 j;
      j.Absorb(z.Expose());
      j.Absorb(c);
      Secret<32> k_bar;
      j.Squeeze(k_bar.ExposeMutable());
      if (!SameKey(*rejected, k_bar)) Fail("tampered ciphertext did not give J(z || c)");
    }
  }
}

void FromSeed() {
  const auto d_z = ClassifiedSecret<kMlKem768SeedSize>(9);
  const auto dk = MlKem768DecapsulationKey::FromSeed(d_z);
  const auto m = ClassifiedSecret<32>(10);
  const auto enc = for_testing::MlKem768EncapsInternal(dk.encapsulation_key(), m);
  auto k = MlKem768Decaps(dk, enc.ciphertext);
  if (!k.ok() || !SameKey(*k, enc.shared_secret)) Fail("seed-form key did not round-trip");
}

// Each check runs on the code this CPU selects (AVX2 where available) and on the portable code.
VEIL_CTIME_CHECK(MlKem768KeyGenEncapsDecaps) {
  std::printf("  ML-KEM AVX2 path: %s\n", mlkem::UseAvx2() ? "checked" : "not available here");
  KeyGenEncapsDecaps();
  mlkem::SetPortableOnlyForTesting(true);
  KeyGenEncapsDecaps();
  mlkem::SetPortableOnlyForTesting(false);
}

VEIL_CTIME_CHECK(MlKem768FromSeed) {
  FromSeed();
  mlkem::SetPortableOnlyForTesting(true);
  FromSeed();
  mlkem::SetPortableOnlyForTesting(false);
}

}  // namespace
}  // namespace veil::crypto
