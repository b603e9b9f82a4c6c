// Strict JSON parsing shared by every JSON surface of the services floor and above (JSON-RPC
// envelopes in json_rpc.cc, the guardian protocol): nlohmann::json's parser plus the checks it
// lacks.
//
// ParseStrictJson accepts exactly one JSON text (RFC 8259, valid UTF-8, no comments) whose
// objects have no duplicate member names and whose objects and arrays nest at most max_depth
// levels. Errors are kInvalidArgument with one of these messages, none of which echoes the input
// (so a caller may pass them on to the peer and into logs):
//   "parse error at byte N: REASON"             malformed JSON or invalid UTF-8
//   "parse error: JSON nested deeper than N levels"
//   "parse error: duplicate key in a JSON object"
//   "parse error: invalid JSON"                 anything else nlohmann throws
//
// Thread safety: a pure function.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "veil/base/result.h"

namespace veil::net {

Result<nlohmann::json> ParseStrictJson(std::string_view text, std::size_t max_depth);

}  // namespace veil::net
