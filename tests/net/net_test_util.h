// Helpers shared by the net/ tests.
#pragma once

#include <cstdlib>
#include <string>
#include <utility>

#include "veil/net/http_client.h"

namespace veil::net {

// Client options for `url` with defaults, then `edit` applied (designated initializers would
// trip -Wmissing-field-initializers).
inline HttpClientOptions Opts(std::string url) {
  HttpClientOptions o;
  o.base_url = std::move(url);
  return o;
}
template <class Edit>
HttpClientOptions Opts(std::string url, Edit&& edit) {
  HttpClientOptions o = Opts(std::move(url));
  edit(o);
  return o;
}

// The value of the Prometheus sample `series` (name plus labels, as printed) in an exposition
// `body`, or -1 when it has none.
inline double MetricSample(const std::string& body, const std::string& series) {
  std::size_t at = 0;
  while ((at = body.find(series + " ", at)) != std::string::npos) {
    if (at == 0 || body[at - 1] == '\n') return std::stod(body.substr(at + series.size() + 1));
    ++at;
  }
  return -1;
}

// One sample line of the Prometheus text format 0.0.4: name, optional {labels}, one value.
inline bool IsPrometheusSample(const std::string& line) {
  std::size_t i = 0;
  auto name_char = [](char c, bool first, bool colon) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':') ||
           (!first && c >= '0' && c <= '9');
  };
  auto name = [&](bool colon) {
    std::size_t start = i;
    while (i < line.size() && name_char(line[i], i == start, colon)) ++i;
    return i > start;
  };
  if (!name(true)) return false;
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      if (!name(false) || i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"')
        return false;
      i += 2;
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\') {
          if (i + 1 >= line.size() ||
              (line[i + 1] != '\\' && line[i + 1] != '"' && line[i + 1] != 'n')) {
            return false;
          }
          ++i;
        }
        ++i;
      }
      if (i >= line.size()) return false;
      ++i;  // closing quote
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return false;
    ++i;  // '}'
  }
  if (i >= line.size() || line[i] != ' ') return false;
  std::string value = line.substr(i + 1);
  if (value == "NaN" || value == "+Inf" || value == "-Inf") return true;
  if (value.empty()) return false;
  char* end = nullptr;
  std::strtod(value.c_str(), &end);
  return *end == '\0';
}

}  // namespace veil::net
