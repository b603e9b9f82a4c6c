// ML-DSA-65's internal functions (FIPS 204 sec. 6: Sign_internal and Verify_internal) and the
// external-mu forms (sec. 6.2), for tests, fuzzers and the conformance runner only. FIPS 204
// specifies them for testing and for use inside a cryptographic module: they sign whatever M' or mu
// the caller forms, skipping pure ML-DSA's domain separation (0 || |ctx| || ctx), and take rnd from
// the caller.
//
// Product code uses MlDsa65Sign and MlDsa65Verify (veil/crypto/mldsa65.h); nothing outside tests/,
// fuzz/, bench/, apps/veil-vectors/ and the file that defines these functions includes this header.
//
// The namespace is for_testing rather than testing so that it does not hide GoogleTest's
// ::testing in test code that lives in veil::crypto.
//
// Thread safety: as veil/crypto/mldsa65.h.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/mldsa65.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::for_testing {

using MlDsa65Mu = std::array<std::uint8_t, kMlDsa65MuSize>;

// ML-DSA.Sign_internal (Algorithm 7) on a caller-formed M'.
MlDsa65Signature MlDsa65SignInternal(const MlDsa65SecretKey& sk, ByteView m_prime,
                                     const Secret<32>& rnd);
// Algorithm 7 from line 7 on, with mu computed by the caller.
MlDsa65Signature MlDsa65SignExternalMu(const MlDsa65SecretKey& sk,
                                       std::span<const std::uint8_t, 64> mu, const Secret<32>& rnd);

// mu = H(H(pk, 64) || 0 || |ctx| || ctx || M, 64), the message representative of pure ML-DSA,
// for use with the external-mu functions. A context over 255 bytes is kInvalidArgument.
Result<MlDsa65Mu> MlDsa65ComputeMu(const MlDsa65PublicKey& pk, ByteView message,
                                   ByteView context = {});

// ML-DSA.Verify_internal (Algorithm 8) on a caller-formed M'.
Status MlDsa65VerifyInternal(const MlDsa65PublicKey& pk, ByteView m_prime, ByteView signature);
// Algorithm 8 from line 8 on, with mu computed by the caller.
Status MlDsa65VerifyExternalMu(const MlDsa65PublicKey& pk, std::span<const std::uint8_t, 64> mu,
                               ByteView signature);

}  // namespace veil::crypto::for_testing
