// JsonObjectReader: the strict reader of one JSON object that every JSON decoder uses (the
// ledger's wire types, the guardian protocol).
//
// A reader wraps one nlohmann::json value, which must be an object. Each getter names one member
// (a string literal: the reader keeps the pointer), checks its JSON type and range and stores the
// value; Finish() then returns the first error, or refuses a member that no getter named. Errors
// stick: after the first one every getter does nothing and returns false, so a decoder reads
// every member in a row and checks once:
//
//   JsonObjectReader o(j, "cost");
//   o.U64("gas", &c.gas);
//   o.U64("tip", &c.tip, /*required=*/false);
//   VEIL_RETURN_IF_ERROR(o.Finish());
//
// Every error is kInvalidArgument and names the object and the member, never a value:
//   "cost: expected an object"                  the value is not an object
//   "cost: missing member \"gas\""              a required member is absent
//   "cost.gas: expected an unsigned integer"    a member of the wrong type or out of range
//   "cost: unknown member \"x\""                a member no getter named (its name cut short by
//                                               CutForMessage)
// Duplicate members are the parser's to refuse (net/json_strict.h's ParseStrictJson); a DOM
// holds one value per name.
//
// Integers: parsed JSON text gives number_unsigned for every non-negative integer; values built
// in C++ from signed integers are number_integer, and count when non-negative. Fractions never
// count as integers.
//
// Thread safety: a reader is used by one thread; it only reads the value it wraps.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/status.h"

namespace veil {

// An input string as an error message may show it: its first 32 bytes, with every byte that is
// not printable ASCII as '?'.
std::string CutForMessage(std::string_view s);

class JsonObjectReader {
 public:
  // The most members one object's getters may name (a larger object is a programming error).
  static constexpr std::size_t kMaxMembers = 24;

  JsonObjectReader(const nlohmann::json& value, std::string what);
  JsonObjectReader(const JsonObjectReader&) = delete;
  JsonObjectReader& operator=(const JsonObjectReader&) = delete;

  // The member `name`, marked as read; nullptr when absent (an error if required) or after an
  // earlier error.
  const nlohmann::json* Field(const char* name, bool required);
  // Records "what.name: expected EXPECTED" unless an error is already recorded.
  void Fail(const char* name, std::string_view expected);
  // Records `s` if it is the first error.
  void Set(Status s);

  // Each returns whether it stored a value.
  bool U64(const char* name, std::uint64_t* out, bool required = true);
  bool U32(const char* name, std::uint32_t* out, bool required = true);
  // An integer in [min, max].
  bool I64(const char* name, std::int64_t min, std::int64_t max, std::int64_t* out,
           bool required = true);
  bool Bool(const char* name, bool* out, bool required = true);
  bool Str(const char* name, std::string* out, bool required = true);
  // Lowercase hex (no prefix) of exactly out.size() bytes, decoded in constant time.
  bool LowerHex(const char* name, MutableByteView out, bool required = true);
  // Canonical padded base64 (standard alphabet) of min..max bytes; the text's length is checked
  // before it is decoded.
  bool Base64(const char* name, std::size_t min, std::size_t max, Bytes* out, bool required = true);

  // An array member; f(element, index) returns a Status, and the first error stops the walk.
  template <class F>
  void Array(const char* name, F f, bool required = true) {
    const nlohmann::json* v = Field(name, required);
    if (v == nullptr) return;
    if (!v->is_array()) return Fail(name, "an array");
    for (std::size_t i = 0; i < v->size() && st_.ok(); ++i) Set(f((*v)[i], i));
  }
  // Any member, handed to f(value), which returns a Status.
  template <class F>
  void Nested(const char* name, F f, bool required = true) {
    const nlohmann::json* v = Field(name, required);
    if (v == nullptr) return;
    Set(f(*v));
  }

  bool ok() const { return st_.ok(); }
  // The first error; else kInvalidArgument if the object has a member no getter named.
  Status Finish();
  const std::string& what() const { return what_; }

 private:
  const nlohmann::json& value_;
  std::string what_;
  std::array<std::string_view, kMaxMembers> seen_{};  // the names read, in order
  std::size_t seen_count_ = 0;
  Status st_;
};

}  // namespace veil
