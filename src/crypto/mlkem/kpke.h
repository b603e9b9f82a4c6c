// K-PKE, the CPA-secure public-key encryption scheme inside ML-KEM (FIPS 203 sec. 5):
// K-PKE.KeyGen (Algorithm 13), K-PKE.Encrypt (Algorithm 14), K-PKE.Decrypt (Algorithm 15).
//
// K-PKE is never used on its own (sec. 5: "not approved for use in a stand-alone fashion"); kem.h
// builds ML-KEM on it. The functions take fixed-size spans so every length is checked at compile
// time; callers validate encodings first (ek by the modulus check, c and dk by length).
//
// Constant time: no branch or memory index depends on d, sigma, s_hat, m, r or the decrypted
// message. The one data-dependent loop, SampleNTT, runs on rho, which is public; KeyGen marks it
// public with VEIL_DECLASSIFY where G produces it.
//
// Thread safety: pure functions of their inputs.
#pragma once

#include <cstdint>
#include <span>

#include "params.h"
#include "sampling.h"

namespace veil::crypto::mlkem {

// (ek_PKE, dk_PKE) = K-PKE.KeyGen(d).
template <class P>
void KPkeKeyGen(std::span<const std::uint8_t, kSymBytes> d, std::span<std::uint8_t, P::kEkBytes> ek,
                std::span<std::uint8_t, P::kDkPkeBytes> dk_pke);

// c = K-PKE.Encrypt(ek_PKE, m, r). ek must have passed the modulus check. `extra`, when not null,
// is a SHAKE256 computation run together with the sampling (decapsulation's J; sampling.h).
template <class P>
void KPkeEncrypt(std::span<const std::uint8_t, P::kEkBytes> ek,
                 std::span<const std::uint8_t, kSymBytes> m,
                 std::span<const std::uint8_t, kSymBytes> r, std::span<std::uint8_t, P::kCtBytes> c,
                 const Shake256Job* extra = nullptr);

// m = K-PKE.Decrypt(dk_PKE, c).
template <class P>
void KPkeDecrypt(std::span<const std::uint8_t, P::kDkPkeBytes> dk_pke,
                 std::span<const std::uint8_t, P::kCtBytes> c,
                 std::span<std::uint8_t, kSymBytes> m);

}  // namespace veil::crypto::mlkem
