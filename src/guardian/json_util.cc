// JSON text for the guardian protocol (json_util.h).
#include "json_util.h"

#include "veil/net/json_strict.h"

namespace veil::guardian::json_util {

Result<json> ParseStrictJson(std::string_view text, std::size_t max_depth) {
  return net::ParseStrictJson(text, max_depth);
}

std::string Dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace veil::guardian::json_util
