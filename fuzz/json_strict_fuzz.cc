// Fuzzes ParseStrictJson (net/json_strict.h), the parser in front of every JSON surface, against
// nlohmann's own DOM parser: with small limits taken from the input's first bytes, so that every
// limit is reached, whatever ParseStrictJson accepts nlohmann accepts with an equal value, and
// whatever nlohmann rejects ParseStrictJson rejects too. A document it refuses for a limit must
// really exceed that limit (counted on nlohmann's DOM).
#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "veil/net/json_strict.h"

namespace {

using nlohmann::json;

// Every value, member and level of the text as nlohmann's SAX parser reports them, duplicates
// included (its DOM keeps one copy of a duplicated key).
struct Counter : nlohmann::json_sax<json> {
  std::size_t depth = 0, open = 0, values = 0, members = 0;
  bool Value() {
    ++values;
    return true;
  }
  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }
  bool key(string_t&) override {
    ++members;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }
  bool Open() {
    ++values;
    depth = std::max(depth, ++open);
    return true;
  }
  bool Close() {
    --open;
    return true;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  veil::net::JsonLimits limits;
  limits.max_depth = 1 + data[0] % 8;
  limits.max_values = 1 + data[1] % 64;
  limits.max_members = data[2] % 32;
  const std::string_view text(reinterpret_cast<const char*>(data) + 3, size - 3);
  auto ours = veil::net::ParseStrictJson(text, limits);
  json theirs = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false,
                            /*ignore_comments=*/false);
  if (theirs.is_discarded()) {
    if (ours.ok()) std::abort();  // we accepted what the reference parser refuses
    return 0;
  }
  Counter c;
  json::sax_parse(text.begin(), text.end(), &c, json::input_format_t::json, /*strict=*/true,
                  /*ignore_comments=*/false);
  if (ours.ok()) {
    if (*ours != theirs) std::abort();
    if (c.depth > limits.max_depth || c.values > limits.max_values ||
        c.members > limits.max_members) {
      std::abort();  // a limit let through
    }
    return 0;
  }
  // Refused although nlohmann parsed it: a limit, or a duplicate key.
  const std::string& m = ours.status().message();
  if (m.find("nested deeper") != std::string::npos) {
    if (c.depth <= limits.max_depth) std::abort();
  } else if (m.find("values") != std::string::npos) {
    if (c.values <= limits.max_values) std::abort();
  } else if (m.find("object members") != std::string::npos) {
    if (c.members <= limits.max_members) std::abort();
  } else if (m.find("duplicate key") == std::string::npos) {
    std::abort();  // refused for no stated reason
  }
  return 0;
}
