// ML-KEM-768's internal functions (FIPS 203 sec. 6), for tests, fuzzers and the conformance runner
// only: FIPS 203 specifies them for testing, since the caller picks the randomness (d, z, m) that
// the product API draws itself. A reused or predictable m gives away the shared secret.
//
// Product code uses veil/crypto/mlkem768.h (MlKem768KeyGen, MlKem768Encaps, and
// MlKem768DecapsulationKey::FromSeed for keys stored as seeds); nothing outside tests/, fuzz/,
// bench/, apps/veil-vectors/ and the file that defines these functions includes this header.
//
// The namespace is for_testing rather than testing so that it does not hide GoogleTest's
// ::testing in test code that lives in veil::crypto.
//
// Thread safety: as veil/crypto/mlkem768.h.
#pragma once

#include "veil/crypto/mlkem768.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::for_testing {

// ML-KEM.KeyGen_internal (Algorithm 16): deterministic in d and z.
MlKem768KeyPair MlKem768KeyGenInternal(const Secret<32>& d, const Secret<32>& z);
// ML-KEM.Encaps_internal (Algorithm 17): deterministic in m.
MlKem768Encapsulation MlKem768EncapsInternal(const MlKem768EncapsulationKey& ek,
                                             const Secret<32>& m);

}  // namespace veil::crypto::for_testing
