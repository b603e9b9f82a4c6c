// ML-KEM parameter sets (FIPS 203 sec. 8, Table 2) and the sizes derived from them (Table 3).
//
// Everything under src/crypto/mlkem/ is written over a parameter set P; only ML-KEM-768 is
// instantiated, and the static_asserts below pin its sizes to the standard's. Names follow the
// standard: n, q, k, eta_1, eta_2, d_u, d_v.
//
// Thread safety: constants only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace veil::crypto::mlkem {

inline constexpr std::size_t kN = 256;          // n: coefficients per polynomial
inline constexpr std::int16_t kQ = 3329;        // q = 2^8 * 13 + 1, the prime modulus
inline constexpr std::size_t kSymBytes = 32;    // seeds, hashes, messages and shared keys
inline constexpr std::size_t kPolyBytes = 384;  // ByteEncode_12 of one polynomial: 256 * 12 / 8

template <std::size_t kK, unsigned kEta1, unsigned kEta2, unsigned kDu, unsigned kDv>
struct ParamSet {
  static constexpr std::size_t k = kK;
  static constexpr unsigned eta1 = kEta1;
  static constexpr unsigned eta2 = kEta2;
  static constexpr unsigned du = kDu;
  static constexpr unsigned dv = kDv;

  static constexpr std::size_t kPolyVecBytes = kPolyBytes * kK;       // ByteEncode_12 of k polys
  static constexpr std::size_t kEkBytes = kPolyVecBytes + kSymBytes;  // ek = t_hat || rho
  static constexpr std::size_t kDkPkeBytes = kPolyVecBytes;           // dk_PKE = s_hat
  static constexpr std::size_t kDkBytes = 2 * kPolyVecBytes + 3 * kSymBytes;  // dk_PKE||ek||h||z
  static constexpr std::size_t kC1Bytes = kN * kDu * kK / 8;                  // c_1 = Encode_du(u)
  static constexpr std::size_t kC2Bytes = kN * kDv / 8;                       // c_2 = Encode_dv(v)
  static constexpr std::size_t kCtBytes = kC1Bytes + kC2Bytes;
};

// FIPS 203 Table 2: k = 3, eta_1 = eta_2 = 2, d_u = 10, d_v = 4.
using MlKem768 = ParamSet<3, 2, 2, 10, 4>;

// FIPS 203 Table 3.
static_assert(MlKem768::kEkBytes == 1184, "ML-KEM-768 encapsulation key is 1184 bytes");
static_assert(MlKem768::kDkBytes == 2400, "ML-KEM-768 decapsulation key is 2400 bytes");
static_assert(MlKem768::kCtBytes == 1088, "ML-KEM-768 ciphertext is 1088 bytes");

}  // namespace veil::crypto::mlkem
