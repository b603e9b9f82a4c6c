// Constant-time check of Shamir split and combine (see ctime.h). The secret and every random byte
// are undefined to memcheck; splitting, encoding, decoding and combining must not branch on them
// or use them as a memory index. Two values become public on purpose, each declassified in
// shamir.cc on the line where that happens: the split id (it is written in clear into every
// header) and combine's verdict (whether the shares were consistent is what combine reports).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ctime.h"
#include "veil/crypto/shamir.h"

namespace veil::crypto {
namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "shamir ctime: %s\n", what);
  std::abort();
}

void SplitAndCombine(std::size_t t, std::size_t n, std::size_t len, std::size_t given) {
  SecretBytes secret(len);
  for (std::size_t i = 0; i < len; ++i) {
    secret.ExposeMutable()[i] = static_cast<std::uint8_t>(i * 29 + 3);
  }
  const SecretBytes expected = secret.Clone();
  ctime::Classify(secret.Expose().data(), len);
  std::uint32_t state = 1;
  const ShamirRandomFn random = [&state](MutableByteView out) {
    // Any bytes do for this check; what matters is that they are marked secret.
    for (std::uint8_t& b : out) {
      state = state * 1103515245u + 12345u;
      b = static_cast<std::uint8_t>(state >> 16);
    }
    ctime::Classify(out.data(), out.size());
  };

  // ok() depends on the public parameters only.
  auto shares = ShamirSplit(secret, t, n, random);
  if (!shares.ok()) Fail("split failed");

  // Shares travel encoded: the headers are public, the values stay undefined all the way.
  std::vector<SecretBytes> encoded;
  std::vector<ShamirShare> decoded;
  for (std::size_t i = 0; i < given; ++i) {
    encoded.push_back((*shares)[i].Encode());
    auto d = ShamirShare::Decode(encoded.back().Expose());
    if (!d.ok()) Fail("decode failed");
    decoded.push_back(std::move(d).value());
  }

  // Branching on ok() is fine: combine declassified its verdict before returning.
  auto got = ShamirCombine(decoded);
  if (!got.ok()) Fail("combine failed");
  // Test-only: the recovered secret is compared with the original in the clear.
  ctime::Declassify(got->Expose().data(), got->size());
  if (!got->ConstantTimeEquals(expected)) Fail("combine returned a wrong secret");

  // A tampered share takes the same path and is rejected.
  const std::size_t header_size = encoded[0].size() - (len + kShamirValueOverhead);
  encoded[0].ExposeMutable()[header_size + len / 2] ^= 0x20;  // still undefined after the XOR
  auto tampered = ShamirShare::Decode(encoded[0].Expose());
  if (!tampered.ok()) Fail("decode of tampered share failed");
  decoded[0] = std::move(tampered).value();
  if (ShamirCombine(decoded).status().code() != Code::kVerificationFailed) {
    Fail("tampered share not detected");
  }
}

VEIL_CTIME_CHECK(ShamirSplitCombine) {
  SplitAndCombine(2, 3, 32, 2);     // the common case
  SplitAndCombine(3, 5, 32, 5);     // extra shares checked against the polynomials
  SplitAndCombine(1, 2, 5, 2);      // t = 1
  SplitAndCombine(2, 3, 1000, 3);   // many words
  SplitAndCombine(40, 45, 20, 42);  // more scalars than one kernel block
}

}  // namespace
}  // namespace veil::crypto
