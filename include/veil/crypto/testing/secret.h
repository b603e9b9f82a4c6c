// Test hook into SecretBytes (veil/crypto/secret.h): only tests include this header.
//
// A test cannot read a heap buffer after it is freed, so it sees SecretBytes' wipe through an
// observer that is shown each buffer after the wipe and before the free.
//
// The namespace is for_testing rather than testing so that it does not hide GoogleTest's
// ::testing in test code that lives in veil::crypto.
//
// Thread safety: the observer is called on whichever thread frees a buffer; set it while no other
// thread frees secrets.
#pragma once

#include "veil/base/bytes.h"

namespace veil::crypto::for_testing {

// `observer` sees every SecretBytes buffer just before it is freed; nullptr stops it.
using FreedSecretObserver = void (*)(ByteView buffer);
void SetFreedSecretObserver(FreedSecretObserver observer);

}  // namespace veil::crypto::for_testing
