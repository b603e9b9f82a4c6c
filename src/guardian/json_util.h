// Strict JSON reading for the guardian protocol (internal).
//
// ParseStrictJson is net/json_strict.h's (invalid JSON, invalid UTF-8, duplicate object members
// and nesting deeper than max_depth are kInvalidArgument) with the guardian's depth; the other
// helpers read one member of an object with exactly one
// accepted form (canonical lowercase hex of a fixed length, canonical base64, unsigned integers
// in range) and name the member in their kInvalidArgument message, never its value.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"

namespace veil::guardian::json_util {

using nlohmann::json;

Result<json> ParseStrictJson(std::string_view text, std::size_t max_depth = 8);

// `value` must be an object whose members are all in `required` or `optional`, and that has every
// member of `required`.
Status CheckMembers(const json& value, std::string_view what,
                    std::initializer_list<std::string_view> required,
                    std::initializer_list<std::string_view> optional = {});

Result<std::string> GetString(const json& obj, const char* key);
// An unsigned JSON integer in [min, max].
Result<std::int64_t> GetInt(const json& obj, const char* key, std::int64_t min, std::int64_t max);
Result<bool> GetBool(const json& obj, const char* key);
// Canonical lowercase hex of exactly out.size() bytes.
Status GetHex(const json& obj, const char* key, MutableByteView out);
// Canonical base64 (standard alphabet, padded) of min..max bytes.
Result<Bytes> GetBase64(const json& obj, const char* key, std::size_t min, std::size_t max);

// Serialises without throwing on invalid UTF-8 (every string we write is ASCII anyway).
std::string Dump(const json& value);

}  // namespace veil::guardian::json_util
