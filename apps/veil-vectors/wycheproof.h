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

#include "veil/base/result.h"

namespace veil::vectors {

struct Report {
  std::string algorithm;
  int passed = 0;
  int failed = 0;
  std::vector<std::string> failures;  // "tcId 17: <comment>: <why>"
};

// The algorithms (Wycheproof's "algorithm" field) the runner accepts.
std::vector<std::string> SupportedWycheproofAlgorithms();

Result<Report> RunWycheproof(const nlohmann::json& file);
Result<Report> RunWycheproofFile(const std::string& path);

Result<nlohmann::json> LoadJsonFile(const std::string& path);

}  // namespace veil::vectors
