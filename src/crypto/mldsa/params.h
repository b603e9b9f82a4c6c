// ML-DSA-65 parameters (FIPS 204 sec. 4, Table 1) and the encoding sizes derived from them (Table
// 2).
//
// Every parameter of the scheme lives here, under the standard's names (q, d, tau, lambda, gamma_1,
// gamma_2, k, l, eta, beta, omega); the rest of src/crypto/mldsa/ uses these constants and nothing
// else, so another parameter set would turn them into a template parameter without touching the
// algorithms. The static_asserts pin the sizes to Table 2. The exception is rounding.h, whose
// Decompose takes gamma_2 as a template argument because the CCTV field-operation vector also
// exercises ML-DSA-44's gamma_2 = (q - 1) / 88.
//
// Thread safety: constants only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace veil::crypto::mldsa {

inline constexpr std::size_t kN = 256;            // coefficients per polynomial
inline constexpr std::int32_t kQ = 8380417;       // q = 2^23 - 2^13 + 1
inline constexpr int kD = 13;                     // d: dropped bits of t
inline constexpr std::int32_t kZeta = 1753;       // zeta: a primitive 512th root of unity mod q
inline constexpr std::size_t kTau = 49;           // tau: number of +-1 coefficients of c
inline constexpr std::size_t kLambda = 192;       // lambda: collision strength of c_tilde, in bits
inline constexpr std::int32_t kGamma1 = 1 << 19;  // gamma_1: range of y
inline constexpr std::int32_t kGamma2 = (kQ - 1) / 32;  // gamma_2: low-order rounding range
inline constexpr std::size_t kK = 6;                    // k: rows of A
inline constexpr std::size_t kL = 5;                    // l: columns of A
inline constexpr std::int32_t kEta = 4;                 // eta: range of s1, s2
inline constexpr std::int32_t kBeta = static_cast<std::int32_t>(kTau) * kEta;  // beta = tau * eta
inline constexpr std::size_t kOmega = 55;  // omega: maximum number of 1s in the hint h

static_assert(kBeta == 196);
static_assert(kGamma2 == 261888);

// Byte lengths of seeds and hashes (FIPS 204 Algorithms 6 and 7).
inline constexpr std::size_t kSeedBytes = 32;             // xi, rho, K, rnd
inline constexpr std::size_t kRhoPrimeBytes = 64;         // rho' (ExpandS) and rho'' (ExpandMask)
inline constexpr std::size_t kTrBytes = 64;               // tr = H(pk, 64)
inline constexpr std::size_t kMuBytes = 64;               // mu = H(tr || M', 64)
inline constexpr std::size_t kCTildeBytes = kLambda / 4;  // c_tilde: 2 * lambda bits = 48 bytes

// Packed polynomial sizes: 256 coefficients of the given bit width.
inline constexpr std::size_t kPolyT1Bytes = kN * 10 / 8;  // t1: bitlen(q - 1) - d = 10 bits
inline constexpr std::size_t kPolyT0Bytes = kN * 13 / 8;  // t0: d = 13 bits
inline constexpr std::size_t kPolyEtaBytes = kN * 4 / 8;  // s1, s2: bitlen(2 * eta) = 4 bits
inline constexpr std::size_t kPolyZBytes = kN * 20 / 8;   // z: 1 + bitlen(gamma_1 - 1) = 20 bits
inline constexpr std::size_t kPolyW1Bytes = kN * 4 / 8;   // w1: bitlen((q-1)/(2 gamma_2) - 1) = 4

// FIPS 204 Algorithms 22, 24 and 26.
inline constexpr std::size_t kPublicKeyBytes = kSeedBytes + kK * kPolyT1Bytes;
inline constexpr std::size_t kSecretKeyBytes =
    2 * kSeedBytes + kTrBytes + (kL + kK) * kPolyEtaBytes + kK * kPolyT0Bytes;
inline constexpr std::size_t kSignatureBytes = kCTildeBytes + kL * kPolyZBytes + kOmega + kK;

// FIPS 204 Table 2.
static_assert(kPublicKeyBytes == 1952, "ML-DSA-65 public key is 1952 bytes");
static_assert(kSecretKeyBytes == 4032, "ML-DSA-65 private key is 4032 bytes");
static_assert(kSignatureBytes == 3309, "ML-DSA-65 signature is 3309 bytes");

}  // namespace veil::crypto::mldsa
