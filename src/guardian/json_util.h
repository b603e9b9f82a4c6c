// JSON text for the guardian protocol (internal).
//
// ParseStrictJson is net/json_strict.h's (invalid JSON, invalid UTF-8, duplicate object members
// and nesting deeper than max_depth are kInvalidArgument) with the guardian's depth. The members
// of each object are read by base/json_object.h's JsonObjectReader.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "veil/base/result.h"

namespace veil::guardian::json_util {

using nlohmann::json;

Result<json> ParseStrictJson(std::string_view text, std::size_t max_depth = 8);

// Serialises without throwing on invalid UTF-8 (every string we write is ASCII anyway).
std::string Dump(const json& value);

}  // namespace veil::guardian::json_util
