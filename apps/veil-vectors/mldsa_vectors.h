// Runs the ML-DSA-65 conformance sets (FIPS 204) through the public veil/crypto/mldsa65.h API and
// counts the outcomes: NIST ACVP keyGen / sigGen / sigVer files, Project Wycheproof's ML-DSA-65
// schemas, and C2SP/CCTV's accumulated vectors. A parameter set, mode or schema the runner does not
// implement is an error, never a silent pass. tests/data/fips204/README.md lists the files.
//
// Thread safety: stateless functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "report.h"
#include "veil/base/result.h"

namespace veil::vectors {

// An ACVP ML-DSA file with prompt and expected results merged (internalProjection.json). The mode
// (keyGen, sigGen, sigVer) comes from the file's "mode". sigGen / sigVer groups of the August 2024
// release test the internal interface (message = M'); groups that name signatureInterface
// "external" are run through pure ML-DSA with their context, or with externalMu through the
// external-mu functions; pre-hash groups are unsupported.
Result<Report> RunAcvpMlDsa(const nlohmann::json& file);

// A Wycheproof ML-DSA-65 file of schema mldsa_sign_noseed_schema.json (private key given),
// mldsa_sign_seed_schema.json (seed given) or mldsa_verify_schema.json. Other parameter sets
// (ML-DSA-44, ML-DSA-87) are an "unsupported" error.
Result<Report> RunWycheproofMlDsa(const nlohmann::json& file);

// C2SP/CCTV's accumulated ML-DSA-65 vectors, transcribed into JSON (see the file's "procedure"):
// every keygen_and_sign count up to max_iterations (one case each; larger counts are named as not
// run in Report::algorithm), and the exhaustive field-operation hash (one case).
Result<Report> RunCctvMlDsaAccumulated(const std::string& path,
                                       std::uint64_t max_iterations = 10000);

}  // namespace veil::vectors
