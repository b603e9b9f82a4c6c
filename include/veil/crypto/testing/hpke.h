// HPKE setups with a caller-chosen ephemeral key (RFC 9180 appendix A's test vectors), for tests
// and the conformance runner only: an ephemeral key used twice repeats the key and nonces of every
// context it sets up. Product code uses SetupSender and Seal (veil/crypto/hpke.h), which always
// draw a fresh one.
//
// The namespace is for_testing rather than testing so that it does not hide GoogleTest's
// ::testing in test code that lives in veil::crypto.
//
// Thread safety: as veil/crypto/hpke.h.
#pragma once

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/hpke.h"

namespace veil::crypto::for_testing {

// SetupSender with the ephemeral key from `ikm_e`: DeriveKeyPair(ikm_e) for DHKEM(X25519), the
// 64-byte eseed for X-Wing.
Result<hpke::SenderContext> HpkeSetupSenderDerand(const hpke::Suite& suite,
                                                  ByteView recipient_public_key,
                                                  const hpke::SetupOptions& options,
                                                  ByteView ikm_e);

}  // namespace veil::crypto::for_testing
