// Runs a FROST test-vector file in the layout of RFC 9591 Appendix E (the CFRG draft's
// poc/frost-*.json) against veil::zk::frost, for FROST(ristretto255, SHA-512) and FROST(Ed25519,
// SHA-512). ZF FROST's variant of the layout, which names the group key "verifying_key_key" and
// may use identifiers above 255, is accepted too.
//
// Every intermediate value is checked, each as one case: the participant shares from the dealer
// polynomial (and their VSS check), the group key, per signer the two nonces from the given
// randomness and their commitments, the binding-factor input and the binding factor, the group
// commitment, per signer the signature share (and verify_signature_share on it), the aggregate
// signature, its verification, and for Ed25519 its verification by libsodium's Ed25519.
//
// Thread safety: a function of its argument.
#pragma once

#include <nlohmann/json.hpp>

#include "report.h"
#include "veil/base/result.h"

namespace veil::vectors {

// kInvalidArgument for a file of another group or a malformed file.
Result<Report> RunFrostVectors(const nlohmann::json& file);

}  // namespace veil::vectors
