// ML-KEM's internal algorithms (FIPS 203 sec. 6): ML-KEM.KeyGen_internal (Algorithm 16),
// ML-KEM.Encaps_internal (Algorithm 17) and ML-KEM.Decaps_internal (Algorithm 18), over K-PKE.
//
// These take their randomness (d, z, m) from the caller and check no encoding; the public API in
// veil/crypto/mlkem768.h draws the randomness and performs the input checks of sec. 7.2, 7.3
// before calling them.
//
// Constant time: Decaps_internal compares c with the re-encryption c' over every byte and selects
// K' or K_bar with a mask derived from the accumulated difference, so neither the comparison nor
// the implicit-rejection choice branches or indexes on secret data. KeyGen_internal declassifies
// ek and Encaps_internal declassifies c (both are public by design) where they are produced.
//
// Thread safety: pure functions of their inputs.
#pragma once

#include <cstdint>
#include <span>

#include "params.h"

namespace veil::crypto::mlkem {

// (ek, dk) = ML-KEM.KeyGen_internal(d, z); dk = dk_PKE || ek || H(ek) || z.
template <class P>
void KeyGenInternal(std::span<const std::uint8_t, kSymBytes> d,
                    std::span<const std::uint8_t, kSymBytes> z,
                    std::span<std::uint8_t, P::kEkBytes> ek,
                    std::span<std::uint8_t, P::kDkBytes> dk);

// (K, c) = ML-KEM.Encaps_internal(ek, m), given h_ek = H(ek) (computed once per key by the caller).
template <class P>
void EncapsInternal(std::span<const std::uint8_t, P::kEkBytes> ek,
                    std::span<const std::uint8_t, kSymBytes> h_ek,
                    std::span<const std::uint8_t, kSymBytes> m,
                    std::span<std::uint8_t, P::kCtBytes> c,
                    std::span<std::uint8_t, kSymBytes> shared_key);

// K = ML-KEM.Decaps_internal(dk, c). `ek` must be the ek embedded in dk (dk[384k : 768k + 32]);
// it is passed separately so that the caller can hand over a copy it has marked public, since the
// re-encryption samples A_hat from its rho.
template <class P>
void DecapsInternal(std::span<const std::uint8_t, P::kDkBytes> dk,
                    std::span<const std::uint8_t, P::kEkBytes> ek,
                    std::span<const std::uint8_t, P::kCtBytes> c,
                    std::span<std::uint8_t, kSymBytes> shared_key);

// The modulus check of sec. 7.2: ek[0 : 384k] == ByteEncode_12(ByteDecode_12(ek[0 : 384k])).
template <class P>
bool EncapsulationKeyPassesModulusCheck(std::span<const std::uint8_t, P::kEkBytes> ek);

}  // namespace veil::crypto::mlkem
