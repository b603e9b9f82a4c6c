// X-Wing's derandomized encapsulation (draft-connolly-cfrg-xwing-kem sec. 5.4.1), for tests and
// the conformance runner only: the caller supplies the ephemeral randomness, and a reused or
// predictable eseed repeats or reveals the shared secret. Product code uses XWingEncapsulate
// (veil/crypto/xwing.h).
//
// The namespace is for_testing rather than testing so that it does not hide GoogleTest's
// ::testing in test code that lives in veil::crypto.
//
// Thread safety: as veil/crypto/xwing.h.
#pragma once

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"
#include "veil/crypto/xwing.h"

namespace veil::crypto::for_testing {

// EncapsulateDerand (5.4.1): m = eseed[0:32], ek_X = eseed[32:64].
Result<XWingEncapsulation> XWingEncapsulateDerand(ByteView public_key,
                                                  const Secret<kXWingEncapsSeedSize>& eseed);

}  // namespace veil::crypto::for_testing
