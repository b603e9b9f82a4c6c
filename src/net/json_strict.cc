// Strict JSON parsing (json_strict.h).
#include "veil/net/json_strict.h"

#include <exception>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace veil::net {
namespace {

using nlohmann::json;

struct TooDeep {};
struct DuplicateKey {};

// Tracks nesting depth and the keys of every open object while nlohmann parses.
class StrictParseState {
 public:
  explicit StrictParseState(std::size_t max_depth) : max_depth_(max_depth) {}
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (open_.size() >= max_depth_) throw TooDeep{};
        open_.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!open_.empty()) open_.pop_back();
        break;
      case json::parse_event_t::key:
        if (!open_.empty() && !open_.back().insert(parsed.get<std::string>()).second) {
          throw DuplicateKey{};
        }
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  }

 private:
  std::size_t max_depth_;
  std::vector<std::set<std::string>> open_;
};

// nlohmann's message without the "last read: '...'" part, which would echo the input.
std::string ParseErrorReason(const json::parse_error& e) {
  std::string what = e.what();
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

}  // namespace

Result<json> ParseStrictJson(std::string_view text, std::size_t max_depth) {
  try {
    StrictParseState state(max_depth);
    return json::parse(text.begin(), text.end(), std::ref(state), /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const json::parse_error& e) {
    return InvalidArgument("parse error at byte " + std::to_string(e.byte) + ": " +
                           ParseErrorReason(e));
  } catch (const TooDeep&) {
    return InvalidArgument("parse error: JSON nested deeper than " + std::to_string(max_depth) +
                           " levels");
  } catch (const DuplicateKey&) {
    return InvalidArgument("parse error: duplicate key in a JSON object");
  } catch (const std::exception&) {
    return InvalidArgument("parse error: invalid JSON");
  }
}

}  // namespace veil::net
