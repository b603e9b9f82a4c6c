// The strict JSON object reader (json_object.h).
#include "veil/base/json_object.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "veil/base/encoding.h"

namespace veil {
namespace {

using Json = nlohmann::json;

// A non-negative integer: number_unsigned from parsed text, or a non-negative number_integer.
bool IsUnsigned(const Json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

}  // namespace

std::string CutForMessage(std::string_view s) {
  std::string out(s.substr(0, 32));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return out;
}

JsonObjectReader::JsonObjectReader(const Json& value, std::string what)
    : value_(value), what_(std::move(what)) {
  if (!value_.is_object()) st_ = InvalidArgument(what_ + ": expected an object");
}

const Json* JsonObjectReader::Field(const char* name, bool required) {
  if (!st_.ok()) return nullptr;
  VEIL_CHECK_MSG(seen_count_ < seen_.size(), "JsonObjectReader: too many members named");
  seen_[seen_count_++] = name;
  const auto it = value_.find(name);
  if (it == value_.end()) {
    if (required) st_ = InvalidArgument(what_ + ": missing member \"" + name + "\"");
    return nullptr;
  }
  return &*it;
}

void JsonObjectReader::Fail(const char* name, std::string_view expected) {
  if (st_.ok()) st_ = InvalidArgument(what_ + "." + name + ": expected " + std::string(expected));
}

void JsonObjectReader::Set(Status s) {
  if (st_.ok() && !s.ok()) st_ = std::move(s);
}

bool JsonObjectReader::U64(const char* name, std::uint64_t* out, bool required) {
  const Json* v = Field(name, required);
  if (v == nullptr) return false;
  if (!IsUnsigned(*v)) {
    Fail(name, "an unsigned integer");
    return false;
  }
  *out = v->get<std::uint64_t>();
  return true;
}

bool JsonObjectReader::U32(const char* name, std::uint32_t* out, bool required) {
  std::uint64_t v = 0;
  if (!U64(name, &v, required)) return false;
  if (v > std::numeric_limits<std::uint32_t>::max()) {
    Fail(name, "a 32-bit integer");
    return false;
  }
  *out = static_cast<std::uint32_t>(v);
  return true;
}

bool JsonObjectReader::I64(const char* name, std::int64_t min, std::int64_t max, std::int64_t* out,
                           bool required) {
  const Json* v = Field(name, required);
  if (v == nullptr) return false;
  bool in_range = false;
  std::int64_t n = 0;
  if (v->is_number_unsigned()) {
    const auto u = v->get<std::uint64_t>();
    in_range = u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    n = static_cast<std::int64_t>(u);
  } else if (v->is_number_integer()) {
    in_range = true;
    n = v->get<std::int64_t>();
  }
  if (!in_range || n < min || n > max) {
    Fail(name, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return false;
  }
  *out = n;
  return true;
}

bool JsonObjectReader::Bool(const char* name, bool* out, bool required) {
  const Json* v = Field(name, required);
  if (v == nullptr) return false;
  if (!v->is_boolean()) {
    Fail(name, "a boolean");
    return false;
  }
  *out = v->get<bool>();
  return true;
}

bool JsonObjectReader::Str(const char* name, std::string* out, bool required) {
  const Json* v = Field(name, required);
  if (v == nullptr) return false;
  if (!v->is_string()) {
    Fail(name, "a string");
    return false;
  }
  *out = v->get<std::string>();
  return true;
}

bool JsonObjectReader::LowerHex(const char* name, MutableByteView out, bool required) {
  const Json* v = Field(name, required);
  if (v == nullptr) return false;
  if (!v->is_string() ||
      !HexDecodeInto(v->get_ref<const std::string&>(), out, HexCase::kLower).ok()) {
    Fail(name, std::to_string(2 * out.size()) + " lowercase hex digits");
    return false;
  }
  return true;
}

bool JsonObjectReader::Base64(const char* name, std::size_t min, std::size_t max, Bytes* out,
                              bool required) {
  const Json* v = Field(name, required);
  if (v == nullptr) return false;
  if (!v->is_string()) {
    Fail(name, "a base64 string");
    return false;
  }
  const std::string& text = v->get_ref<const std::string&>();
  // Bound the work before decoding: base64 of max bytes is 4 * ceil(max / 3) characters.
  if (text.size() > 4 * ((max + 2) / 3)) {
    Fail(name, "base64 of at most " + std::to_string(max) + " bytes");
    return false;
  }
  auto decoded = Base64Decode(text);
  if (!decoded.ok()) {
    Fail(name, "canonical base64");
    return false;
  }
  if (decoded->size() < min || decoded->size() > max) {
    Fail(name, min == max ? std::to_string(min) + " bytes"
                          : std::to_string(min) + " to " + std::to_string(max) + " bytes");
    return false;
  }
  *out = std::move(*decoded);
  return true;
}

Status JsonObjectReader::Finish() {
  if (!st_.ok()) return st_;
  const auto first = seen_.begin();
  const auto last = first + static_cast<std::ptrdiff_t>(seen_count_);
  for (auto it = value_.begin(); it != value_.end(); ++it) {
    if (std::find(first, last, it.key()) == last) {
      return InvalidArgument(what_ + ": unknown member \"" + CutForMessage(it.key()) + "\"");
    }
  }
  return Status::Ok();
}

}  // namespace veil
