// Runs a Project Wycheproof JSON file of any algorithm Veil supports and counts the outcomes.
//
// A "valid" case must succeed with the expected output; an "invalid" one must fail (or give a
// different output); an "acceptable" one may do either, but if it succeeds the output must match.
// An algorithm or schema we do not support is an error, never a silent pass.
//
// Thread safety: stateless functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report.h"
#include "veil/base/result.h"

namespace veil::vectors {

// The algorithms (Wycheproof's "algorithm" field) the runner accepts.
std::vector<std::string> SupportedWycheproofAlgorithms();

Result<Report> RunWycheproof(const nlohmann::json& file);
Result<Report> RunWycheproofFile(const std::string& path);

Result<nlohmann::json> LoadJsonFile(const std::string& path);

}  // namespace veil::vectors
