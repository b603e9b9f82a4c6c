// Strict, bounded JSON parsing shared by every JSON surface of the services floor and above
// (JSON-RPC envelopes in json_rpc.cc, the guardian protocol): nlohmann::json's lexer plus the
// checks and limits it lacks.
//
// ParseStrictJson accepts exactly one JSON text (RFC 8259, valid UTF-8, no comments) whose
// objects have no duplicate member names and that stays within JsonLimits: nesting depth, the
// number of values (every scalar, array and object counts one) and the number of object members
// in the whole document. The limits are checked while parsing, so a hostile body is refused at
// the first value past a limit, before the rest of it is read or stored. The parser is one
// linear pass (nlohmann's SAX interface feeding our own document builder): the time is
// proportional to the body's length whatever its shape. (nlohmann's parse-with-callback walks the
// whole parent container at every closing brace, which made `[{},{},...]` quadratic.)
//
// Errors are kInvalidArgument with one of these messages, none of which echoes the input (so a
// caller may pass them on to the peer and into logs):
//   "parse error at byte N: REASON"                 malformed JSON or invalid UTF-8
//   "parse error: JSON nested deeper than N levels"
//   "parse error: JSON holds more than N values"
//   "parse error: JSON holds more than N object members"
//   "parse error: duplicate key in a JSON object"
//
// Memory: a parsed document costs about 16 bytes a value plus the containers' own storage
// (about 64 bytes an object member); max_values and max_members bound it whatever the body's size.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "veil/base/result.h"

namespace veil::net {

struct JsonLimits {
  std::size_t max_depth = 64;
  std::size_t max_values = 1 << 16;   // every scalar, array and object in the document
  std::size_t max_members = 1 << 15;  // object members (keys) in the whole document
};

Result<nlohmann::json> ParseStrictJson(std::string_view text, const JsonLimits& limits);
// The default JsonLimits with this depth.
Result<nlohmann::json> ParseStrictJson(std::string_view text, std::size_t max_depth);

}  // namespace veil::net
