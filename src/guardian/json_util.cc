// Strict JSON reading (json_util.h).
#include "json_util.h"

#include "veil/base/encoding.h"
#include "veil/net/json_strict.h"

namespace veil::guardian::json_util {
namespace {

bool In(std::string_view key, std::initializer_list<std::string_view> set) {
  for (auto k : set) {
    if (k == key) return true;
  }
  return false;
}

}  // namespace

Result<json> ParseStrictJson(std::string_view text, std::size_t max_depth) {
  return net::ParseStrictJson(text, max_depth);
}

Status CheckMembers(const json& value, std::string_view what,
                    std::initializer_list<std::string_view> required,
                    std::initializer_list<std::string_view> optional) {
  if (!value.is_object()) return InvalidArgument(std::string(what) + " must be an object");
  for (const auto& [key, v] : value.items()) {
    if (!In(key, required) && !In(key, optional)) {
      return InvalidArgument(std::string(what) + " has an unknown member");
    }
  }
  for (auto k : required) {
    if (!value.contains(std::string(k))) {
      return InvalidArgument(std::string(what) + " lacks \"" + std::string(k) + "\"");
    }
  }
  return Status::Ok();
}

Result<std::string> GetString(const json& obj, const char* key) {
  const json& v = obj.at(key);
  if (!v.is_string()) return InvalidArgument(std::string("\"") + key + "\" must be a string");
  return v.get<std::string>();
}

Result<std::int64_t> GetInt(const json& obj, const char* key, std::int64_t min, std::int64_t max) {
  const json& v = obj.at(key);
  // Parsed text gives number_unsigned for every non-negative integer; values built in memory
  // from signed integers are number_integer.
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)) {
    return InvalidArgument(std::string("\"") + key + "\" must be a non-negative integer");
  }
  const std::uint64_t n = v.is_number_unsigned()
                              ? v.get<std::uint64_t>()
                              : static_cast<std::uint64_t>(v.get<std::int64_t>());
  if (n < static_cast<std::uint64_t>(min) || n > static_cast<std::uint64_t>(max)) {
    return InvalidArgument(std::string("\"") + key + "\" is out of range");
  }
  return static_cast<std::int64_t>(n);
}

Result<bool> GetBool(const json& obj, const char* key) {
  const json& v = obj.at(key);
  if (!v.is_boolean()) return InvalidArgument(std::string("\"") + key + "\" must be a boolean");
  return v.get<bool>();
}

Status GetHex(const json& obj, const char* key, MutableByteView out) {
  VEIL_ASSIGN_OR_RETURN(std::string s, GetString(obj, key));
  const std::string bad = std::string("\"") + key + "\" must be " + std::to_string(out.size() * 2) +
                          " lowercase hex digits";
  if (s.size() != out.size() * 2) return InvalidArgument(bad);
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return InvalidArgument(bad);
  }
  if (!HexDecodeInto(s, out).ok()) return InvalidArgument(bad);
  return Status::Ok();
}

Result<Bytes> GetBase64(const json& obj, const char* key, std::size_t min, std::size_t max) {
  VEIL_ASSIGN_OR_RETURN(std::string s, GetString(obj, key));
  // Bound the work before decoding: base64 of max bytes is 4 * ceil(max / 3) characters.
  if (s.size() > 4 * ((max + 2) / 3)) {
    return InvalidArgument(std::string("\"") + key + "\" is too long");
  }
  auto b = Base64Decode(s);
  if (!b.ok()) return InvalidArgument(std::string("\"") + key + "\" must be canonical base64");
  if (b->size() < min || b->size() > max) {
    return InvalidArgument(std::string("\"") + key + "\" has the wrong length");
  }
  return std::move(*b);
}

std::string Dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace veil::guardian::json_util
