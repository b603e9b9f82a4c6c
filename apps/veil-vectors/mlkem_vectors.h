// Runs published ML-KEM-768 conformance vectors (FIPS 203) against veil/crypto/mlkem768.h.
//
// Three sources, each through the public API only:
// - NIST ACVP "internalProjection" files (prompt and expected results in one file): keyGen
//   (KeyGen_internal(d, z) -> ek, dk) and encapDecap, whose groups are "encapsulation"
//   (Encaps_internal(ek, m) -> c, k), "decapsulation" (Decaps(dk, c) -> k, including implicit
//   rejection), "encapsulationKeyCheck" and "decapsulationKeyCheck" (the input checks of sec. 7.2,
//   7.3). Groups of other parameter sets (ML-KEM-512, -1024) are skipped, so an upstream file can
//   be run as it is; a file with no ML-KEM-768 group is an error.
// - Project Wycheproof ML-KEM files: keygen from seed (mlkem_keygen_seed_test_schema), decaps from
//   seed (mlkem_test_schema), encaps (mlkem_encaps_test_schema), decaps of the 2400-byte dk
//   ("semi-expanded", mlkem_semi_expanded_decaps_test_schema and mlkem_decaps_test_schema).
//   Verdicts as in wycheproof.h. Another parameter set or an unknown schema is an "unsupported"
//   error.
// - C2SP/CCTV's invalid-modulus encapsulation keys: one hex key per line, each must be rejected.
//
// Thread safety: stateless functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report.h"
#include "veil/base/result.h"

namespace veil::vectors {

Result<Report> RunAcvpMlKem(const nlohmann::json& file);
Result<Report> RunWycheproofMlKem(const nlohmann::json& file);
Result<Report> RunCctvMlKemModulus(const std::string& path);

}  // namespace veil::vectors
