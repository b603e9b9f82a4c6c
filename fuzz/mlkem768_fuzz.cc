// Fuzzes the ML-KEM-768 decoders and decapsulation with arbitrary bytes.
//
// 1. The whole input is decoded as an encapsulation key and as a decapsulation key. A key that
//    decodes must re-encode to exactly the input (the encodings are canonical) and must be usable
//    for encapsulation or decapsulation.
// 2. The input, cut or padded to 1088 bytes and also as it is, is decapsulated with a fixed key:
//    a wrong length must be kInvalidArgument, a right one must give a key, never a crash; the AVX2
//    and the portable code must give the same key.
// 3. The input is written over the start of a valid ek and dk (arbitrary coefficients, dk_PKE
//    values >= q), and it patches a valid ek and dk (one byte replaced, position and value from
//    the input), which reaches the modulus and hash checks with keys that are almost valid; the
//    hash check must catch every change to the embedded ek or H(ek), and a change to z must not
//    change the key of a valid ciphertext.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "../src/crypto/mlkem/simd.h"
#include "veil/crypto/mlkem768.h"
#include "veil/crypto/testing/mlkem768.h"

namespace {

using veil::Bytes;
using veil::ByteView;
using veil::crypto::MlKem768DecapsulationKey;
using veil::crypto::MlKem768EncapsulationKey;
using veil::crypto::Secret;

void Check(bool ok) {
  if (!ok) std::abort();
}

Secret<32> Fixed(std::uint8_t seed) {
  Secret<32> s;
  for (std::size_t i = 0; i < 32; ++i) s.ExposeMutable()[i] = static_cast<std::uint8_t>(seed + i);
  return s;
}

const veil::crypto::MlKem768KeyPair& FixedKeyPair() {
  static const auto* kp = new veil::crypto::MlKem768KeyPair(
      veil::crypto::for_testing::MlKem768KeyGenInternal(Fixed(1), Fixed(2)));
  return *kp;
}

void DecodeKeys(ByteView in) {
  auto ek = MlKem768EncapsulationKey::Decode(in);
  if (ek.ok()) {
    Check(ek->bytes().size() == in.size());
    Check(std::equal(in.begin(), in.end(), ek->bytes().begin()));
    // Any valid ek can be encapsulated to; the fixed dk gets a ciphertext not meant for it.
    const auto enc = veil::crypto::for_testing::MlKem768EncapsInternal(*ek, Fixed(4));
    Check(veil::crypto::MlKem768Decaps(FixedKeyPair().dk, enc.ciphertext).ok());
  }
  auto dk = MlKem768DecapsulationKey::Decode(in);
  if (dk.ok()) {
    const auto again = dk->Encode();
    Check(again.size() == in.size());
    Check(std::memcmp(again.Expose().data(), in.data(), in.size()) == 0);
    auto k = veil::crypto::MlKem768Decaps(*dk, FixedKeyPair().ek.bytes().first(1088));
    Check(k.ok());
  }
}

// The input written over the start of a valid key: arbitrary coefficients that reach the modulus
// check (ek), and arbitrary dk_PKE bytes, including 12-bit values >= q, that reach decapsulation
// (dk, when the input is no longer than dk_PKE, so the hash check still passes).
void OverlayValidKeys(ByteView in) {
  const auto& kp = FixedKeyPair();
  Bytes ek(kp.ek.bytes().begin(), kp.ek.bytes().end());
  std::copy_n(in.begin(), std::min(in.size(), ek.size()), ek.begin());
  auto overlaid_ek = MlKem768EncapsulationKey::Decode(ek);
  if (overlaid_ek.ok()) {
    Check(veil::crypto::MlKem768Decaps(
              kp.dk,
              veil::crypto::for_testing::MlKem768EncapsInternal(*overlaid_ek, Fixed(7)).ciphertext)
              .ok());
  }
  veil::crypto::SecretBytes dk = kp.dk.Encode();
  std::copy_n(in.begin(), std::min(in.size(), dk.size()), dk.ExposeMutable().begin());
  auto overlaid_dk = MlKem768DecapsulationKey::Decode(dk.Expose());
  if (in.size() <= 1152) Check(overlaid_dk.ok());
  if (overlaid_dk.ok()) {
    const auto enc = veil::crypto::for_testing::MlKem768EncapsInternal(kp.ek, Fixed(8));
    Check(veil::crypto::MlKem768Decaps(*overlaid_dk, enc.ciphertext).ok());
  }
}

void DecapsArbitrary(ByteView in) {
  const auto& dk = FixedKeyPair().dk;
  auto k = veil::crypto::MlKem768Decaps(dk, in);
  Check(k.ok() == (in.size() == veil::crypto::kMlKem768CiphertextSize));
  if (!k.ok()) Check(k.status().code() == veil::Code::kInvalidArgument);
  Bytes c(veil::crypto::kMlKem768CiphertextSize, 0);
  std::copy_n(in.begin(), std::min(in.size(), c.size()), c.begin());
  // Differential: the AVX2 code (where the CPU has it) and the portable code agree.
  auto k_default = veil::crypto::MlKem768Decaps(dk, c);
  veil::crypto::mlkem::SetPortableOnlyForTesting(true);
  auto k_portable = veil::crypto::MlKem768Decaps(dk, c);
  veil::crypto::mlkem::SetPortableOnlyForTesting(false);
  Check(k_default.ok() && k_portable.ok());
  Check(k_default->ConstantTimeEquals(*k_portable));
}

void PatchValidKeys(ByteView in) {
  if (in.size() < 3) return;
  const auto& kp = FixedKeyPair();
  const std::size_t pos = static_cast<std::size_t>(in[0]) << 8 | in[1];
  const std::uint8_t value = in[2];

  Bytes ek(kp.ek.bytes().begin(), kp.ek.bytes().end());
  const std::size_t ek_pos = pos % ek.size();
  const bool ek_same = ek[ek_pos] == value;
  ek[ek_pos] = value;
  auto patched_ek = MlKem768EncapsulationKey::Decode(ek);
  if (ek_same) Check(patched_ek.ok());
  if (patched_ek.ok()) {
    const auto enc = veil::crypto::for_testing::MlKem768EncapsInternal(*patched_ek, Fixed(5));
    Check(veil::crypto::MlKem768Decaps(kp.dk, enc.ciphertext).ok());
  }

  // dk = dk_PKE (0..1151) || ek (1152..2335) || H(ek) (2336..2367) || z (2368..2399).
  veil::crypto::SecretBytes dk = kp.dk.Encode();
  const std::size_t dk_pos = (pos * 7 + value) % dk.size();
  const bool dk_same = dk.Expose()[dk_pos] == value;
  dk.ExposeMutable()[dk_pos] = value;
  auto patched_dk = MlKem768DecapsulationKey::Decode(dk.Expose());
  const bool in_checked_part = dk_pos >= 1152 && dk_pos < 2368;
  // A change to ek or H(ek) is caught by the hash check (barring a SHA3-256 second preimage);
  // dk_PKE and z are not checked by the standard.
  Check(patched_dk.ok() == (dk_same || !in_checked_part));
  if (patched_dk.ok()) {
    const auto enc = veil::crypto::for_testing::MlKem768EncapsInternal(kp.ek, Fixed(6));
    auto k = veil::crypto::MlKem768Decaps(*patched_dk, enc.ciphertext);
    Check(k.ok());
    // z only enters the implicit-rejection key, so a valid ciphertext still gives the real key.
    if (dk_same || dk_pos >= 2368) Check(k->ConstantTimeEquals(enc.shared_secret));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView in(data, size);
  DecodeKeys(in);
  OverlayValidKeys(in);
  DecapsArbitrary(in);
  PatchValidKeys(in);
  return 0;
}
