// Fuzz target: the ML-DSA-65 decoders and verification on arbitrary bytes.
//
// The input is tried as a public key (then used to verify), as a secret key (a key that decodes
// must re-encode to the same bytes: the decoder is canonical, and it must be able to sign), and as
// a signature under a fixed key. Since inputs of exactly 1952 or 4032 bytes are rare, the input is
// also repeated to those lengths. To reach the hint and z checks, which random bytes almost never
// get past, the input is also XOR-ed into a valid signature at an offset taken from its first two
// bytes: any changed signature that still verifies would be a second encoding of a signature
// (malleability), and traps.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "veil/crypto/mldsa65.h"
#include "veil/crypto/testing/mldsa65.h"

namespace {

using veil::ByteView;
using veil::crypto::MlDsa65KeyPair;
using veil::crypto::MlDsa65Signature;

struct Fixed {
  MlDsa65KeyPair kp = veil::crypto::MlDsa65KeyGenFromSeed(veil::crypto::Secret<32>());
  MlDsa65Signature sig =
      *veil::crypto::MlDsa65Sign(kp.sk, {}, {}, veil::crypto::MlDsaSigning::kDeterministic);
};

const Fixed& GetFixed() {
  static const Fixed* f = new Fixed;
  return *f;
}

bool Verifies(const Fixed& f, ByteView sig) {
  const veil::Status s = veil::crypto::MlDsa65Verify(f.kp.pk, {}, {}, sig);
  if (!s.ok() && s.code() != veil::Code::kVerificationFailed &&
      s.code() != veil::Code::kInvalidArgument) {
    __builtin_trap();  // no other error is possible
  }
  return s.ok();
}

void TryKeys(const Fixed& f, ByteView in) {
  if (auto pk = veil::crypto::MlDsa65PublicKey::Decode(in); pk.ok()) {
    (void)veil::crypto::MlDsa65Verify(*pk, {}, {}, f.sig);
  }
  if (auto sk = veil::crypto::MlDsa65SecretKey::Decode(in); sk.ok()) {
    const auto enc = sk->Encode();
    if (!std::equal(enc.Expose().begin(), enc.Expose().end(), in.begin(), in.end())) {
      __builtin_trap();
    }
    // Any well-formed key signs (t0 and tr need not match a public key); it must terminate.
    (void)veil::crypto::for_testing::MlDsa65SignInternal(*sk, in.first(8),
                                                         veil::crypto::Secret<32>());
  }
}

veil::Bytes Repeat(ByteView in, std::size_t n) {
  veil::Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = in[i % in.size()];
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Fixed& f = GetFixed();
  const ByteView in(data, size);

  TryKeys(f, in);
  if (size > 0) {
    TryKeys(f, Repeat(in, veil::crypto::kMlDsa65PublicKeySize));
    TryKeys(f, Repeat(in, veil::crypto::kMlDsa65SecretKeySize));
  }

  const bool same = in.size() == f.sig.size() && std::equal(in.begin(), in.end(), f.sig.begin());
  if (Verifies(f, in) && !same) __builtin_trap();

  if (size >= 3) {
    MlDsa65Signature s = f.sig;
    std::size_t off = (data[0] | static_cast<std::size_t>(data[1]) << 8) % s.size();
    for (std::size_t i = 2; i < size; ++i, off = (off + 1) % s.size()) s[off] ^= data[i];
    if (s != f.sig && Verifies(f, s)) __builtin_trap();
  }
  return 0;
}
