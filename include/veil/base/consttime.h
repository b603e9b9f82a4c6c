// Marking the point where a secret-derived value becomes public, in the manner of BoringSSL's
// CONSTTIME_DECLASSIFY.
//
// The valgrind constant-time check (tests/ctime/) marks secrets undefined; memcheck then reports
// every branch or memory index that depends on them. Some such values are public by design (a
// verification verdict, a ciphertext); VEIL_DECLASSIFY(p, n) marks them defined on the line where
// that happens, with a comment saying why. Built with VEIL_CTIME_VALGRIND it is a valgrind client
// request (a few no-op instructions outside valgrind); otherwise it compiles to nothing.
#pragma once

#if defined(VEIL_CTIME_VALGRIND)
#include <valgrind/memcheck.h>
#define VEIL_DECLASSIFY(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#else
#define VEIL_DECLASSIFY(p, n) ((void)(p), (void)(n))
#endif

#include <cstdint>

namespace veil {

// Branch-free comparisons and selection of 64-bit integers that may be secret (digits, indices):
// the result is 0 or 1 and no branch or table index depends on the inputs.

// 1 if a == b, else 0.
inline std::uint64_t CtEq64(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t d = a ^ b;
  return 1 ^ ((d | (0 - d)) >> 63);
}
// 1 if a < b, else 0 (Hacker's Delight, sec. 2-12).
inline std::uint64_t CtLt64(std::uint64_t a, std::uint64_t b) {
  return ((~a & b) | ((~a | b) & (a - b))) >> 63;
}
// choice ? b : a for choice in {0, 1}.
inline std::uint64_t CtSelect64(std::uint64_t a, std::uint64_t b, std::uint64_t choice) {
  return a ^ ((0 - choice) & (a ^ b));
}

}  // namespace veil
