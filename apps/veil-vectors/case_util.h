// Helpers shared by the vector runners: reading hex fields, comparing outputs, and Wycheproof's
// verdict rules.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report.h"
#include "veil/base/bytes.h"
#include "veil/base/result.h"

namespace veil::vectors {

// A required hex field of a JSON object; missing or malformed is kInvalidArgument.
Result<Bytes> HexField(const nlohmann::json& obj, const char* field);
bool SameBytes(ByteView a, ByteView b);

// What one case produced: the operation succeeded with the expected output (ok), or failed cleanly
// (why starts with "rejected"), or produced a wrong output (any other why).
struct Outcome {
  bool ok;
  std::string why;
};
Outcome Rejected(const Status& s);
Outcome Compare(ByteView got, ByteView want);

// The case's tcId as text (some files use strings).
std::string CaseId(const nlohmann::json& t);

// Wycheproof's rules: "valid" must succeed; "invalid" must be rejected (a wrong output is not a
// rejection); "acceptable" may succeed or be rejected. Records the verdict in r.
void JudgeWycheproof(Report& r, const nlohmann::json& t, const Outcome& o);

}  // namespace veil::vectors
