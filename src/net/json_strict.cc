// Strict, bounded JSON parsing (json_strict.h).
#include "veil/net/json_strict.h"

#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace veil::net {
namespace {

using nlohmann::json;

// Builds the document from nlohmann's SAX events, checking every limit as the events arrive.
// A false return stops the parser at once; error_ then says why.
class BoundedDomBuilder {
 public:
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  BoundedDomBuilder(json& root, const JsonLimits& limits) : root_(root), limits_(limits) {}

  bool null() { return Add(nullptr); }
  bool boolean(bool v) { return Add(v); }
  bool number_integer(number_integer_t v) { return Add(v); }
  bool number_unsigned(number_unsigned_t v) { return Add(v); }
  bool number_float(number_float_t v, const string_t& /*text*/) { return Add(v); }
  bool string(string_t& v) { return Add(std::move(v)); }
  bool binary(binary_t& /*v*/) { return Fail("parse error: invalid JSON"); }  // not in JSON text

  bool start_object(std::size_t /*size*/) { return Open(json::value_t::object); }
  bool start_array(std::size_t /*size*/) { return Open(json::value_t::array); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(string_t& k) {
    if (++members_ > limits_.max_members) {
      return Fail("parse error: JSON holds more than " + std::to_string(limits_.max_members) +
                  " object members");
    }
    auto& object = open_.back()->get_ref<json::object_t&>();
    auto [it, inserted] = object.try_emplace(std::move(k));
    if (!inserted) return Fail("parse error: duplicate key in a JSON object");
    member_ = &it->second;
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& e) {
    return Fail("parse error at byte " + std::to_string(position) + ": " + Reason(e.what()));
  }

  const std::string& error() const { return error_; }

 private:
  template <class V>
  json* Place(V&& v) {
    if (open_.empty()) {
      root_ = json(std::forward<V>(v));
      return &root_;
    }
    json* parent = open_.back();
    if (parent->is_array()) {
      auto& array = parent->get_ref<json::array_t&>();
      array.emplace_back(std::forward<V>(v));
      return &array.back();
    }
    *member_ = json(std::forward<V>(v));
    return member_;
  }

  template <class V>
  bool Add(V&& v) {
    if (++values_ > limits_.max_values) return TooMany();
    Place(std::forward<V>(v));
    return true;
  }

  bool Open(json::value_t type) {
    if (++values_ > limits_.max_values) return TooMany();
    if (open_.size() >= limits_.max_depth) {
      return Fail("parse error: JSON nested deeper than " + std::to_string(limits_.max_depth) +
                  " levels");
    }
    open_.push_back(Place(type));
    return true;
  }

  bool Close() {
    open_.pop_back();
    return true;
  }

  bool TooMany() {
    return Fail("parse error: JSON holds more than " + std::to_string(limits_.max_values) +
                " values");
  }

  bool Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  // nlohmann's message without its "[json.exception...]" prefix, the position it already gave
  // and the "last read: '...'" part, which would echo the input.
  static std::string Reason(const std::string& what) {
    auto colon = what.find(": ", what.find("parse error"));
    std::string reason = colon == std::string::npos ? "invalid JSON" : what.substr(colon + 2);
    auto last_read = reason.find("; last read");
    if (last_read != std::string::npos) {
      auto expected = reason.find("; expected", last_read);
      std::string tail = expected == std::string::npos ? "" : reason.substr(expected);
      reason = reason.substr(0, last_read) + tail;
    }
    return reason;
  }

  json& root_;
  const JsonLimits& limits_;
  std::vector<json*> open_;  // the arrays and objects being filled, innermost last
  json* member_ = nullptr;   // the member a key just made, which the next value fills
  std::size_t values_ = 0;
  std::size_t members_ = 0;
  std::string error_;
};

}  // namespace

Result<json> ParseStrictJson(std::string_view text, const JsonLimits& limits) {
  json root;
  BoundedDomBuilder builder(root, limits);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &builder, json::input_format_t::json,
                         /*strict=*/true, /*ignore_comments=*/false);
  } catch (const std::exception&) {
    ok = false;  // allocation failure or a library error: nothing of the input is echoed
  }
  if (!ok) {
    return InvalidArgument(builder.error().empty() ? "parse error: invalid JSON" : builder.error());
  }
  return root;
}

Result<json> ParseStrictJson(std::string_view text, std::size_t max_depth) {
  JsonLimits limits;
  limits.max_depth = max_depth;
  return ParseStrictJson(text, limits);
}

}  // namespace veil::net
