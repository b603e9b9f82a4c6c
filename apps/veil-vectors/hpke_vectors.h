// Runs an RFC 9180 test-vectors.json file (the CFRG format) against veil::crypto::hpke.
//
// Every entry of a supported suite is checked: key derivation (ikmR, ikmE, ikmS), the
// encapsulation, every encryption in order on a sender context and its decryption on a recipient
// context, and every export on both sides. Entries of suites we do not implement are counted as
// skipped.
#pragma once

#include <nlohmann/json.hpp>

#include "report.h"
#include "veil/base/result.h"

namespace veil::vectors {

Result<Report> RunHpkeVectors(const nlohmann::json& file);

}  // namespace veil::vectors
