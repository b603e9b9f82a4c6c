// The HTTP/1.1 wire rules of HttpServer (http_wire.h). RFC 9110 and RFC 9112 name the grammar
// used here: token (sec. 5.6.2 of RFC 9110), field-value (sec. 5.5), request-line (RFC 9112
// sec. 3), message body length (RFC 9112 sec. 6.3).
#include "http_wire.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "veil/base/encoding.h"

namespace veil::net::wire {
namespace {

bool IsTchar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return IsTchar(static_cast<unsigned char>(c)); });
}

// field-vchar, SP or HTAB: visible ASCII, obs-text, and the two blanks.
bool IsFieldValueChar(unsigned char c) { return c == '\t' || (c >= 0x20 && c != 0x7f); }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool PercentDecode(std::string_view in, std::string* out) {
  out->clear();
  out->reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = HexDigitVartime(in[i + 1]), lo = HexDigitVartime(in[i + 2]);
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

HeadStatus Refuse(Refusal* refusal, int status, std::string message) {
  refusal->status = status;
  refusal->message = std::move(message);
  return HeadStatus::kRefused;
}

}  // namespace

HeadStatus ParseRequestHead(std::string_view buffer, const HeadLimits& limits, RequestHead* head,
                            std::size_t* head_size, Refusal* refusal) {
  *head = RequestHead{};
  *refusal = Refusal{};
  const std::size_t window = std::min(buffer.size(), limits.max_head_bytes);
  std::size_t pos = 0;
  // Empty lines before the request line.
  while (pos + 1 < window && buffer[pos] == '\r' && buffer[pos + 1] == '\n') pos += 2;

  // The next line in [pos, window) without its CRLF; false with *status set when there is none
  // yet or it is malformed.
  HeadStatus status = HeadStatus::kIncomplete;
  auto next_line = [&](std::string_view* line, bool request_line) -> bool {
    const std::size_t lf = buffer.substr(0, window).find('\n', pos);
    if (lf == std::string_view::npos) {
      const std::size_t partial = window - pos;
      if (request_line && partial > limits.max_target_bytes + 32) {
        status = Refuse(refusal, 414, "request target too long");
      } else if (window == limits.max_head_bytes) {
        status = Refuse(refusal, 431,
                        "request head exceeds " + std::to_string(limits.max_head_bytes) + " bytes");
      }
      return false;
    }
    if (lf == pos || buffer[lf - 1] != '\r') {
      status = Refuse(refusal, 400, "malformed HTTP request: a line must end in CRLF");
      return false;
    }
    *line = buffer.substr(pos, lf - 1 - pos);
    if (line->find('\r') != std::string_view::npos) {
      status = Refuse(refusal, 400, "malformed HTTP request: a bare CR");
      return false;
    }
    pos = lf + 1;
    return true;
  };

  std::string_view line;
  if (!next_line(&line, true)) return status;
  // request-line = method SP request-target SP HTTP-version
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Refuse(refusal, 400, "malformed HTTP request line");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method)) return Refuse(refusal, 400, "malformed HTTP request line");
  if (target.size() > limits.max_target_bytes)
    return Refuse(refusal, 414, "request target too long");
  if (target.empty() || target[0] != '/' ||
      !std::all_of(target.begin(), target.end(), [](char c) { return c > 0x20 && c < 0x7f; })) {
    return Refuse(refusal, 400, "malformed request target");
  }
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9') {
    return Refuse(refusal, 400, "malformed HTTP version");
  }
  if (version[5] != '1' || (version[7] != '0' && version[7] != '1')) {
    return Refuse(refusal, 505, "only HTTP/1.0 and HTTP/1.1 are served");
  }
  head->method = std::string(method);
  head->target = std::string(target);
  head->minor_version = version[7] - '0';
  const std::string_view raw_path = target.substr(0, target.find('?'));
  if (!PercentDecode(raw_path, &head->path)) {
    return Refuse(refusal, 400, "malformed percent-encoding in the request target");
  }

  int hosts = 0, lengths = 0, encodings = 0, expects = 0;
  std::string_view length_value, expect_value, content_encoding;
  bool close = false, keep_alive = false;
  while (true) {
    if (!next_line(&line, false)) return status;
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') {
      return Refuse(refusal, 400, "malformed HTTP request: obsolete line folding");
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      return Refuse(refusal, 400, "malformed HTTP header field");
    }
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = TrimBlanks(line.substr(colon + 1));
    if (!std::all_of(value.begin(), value.end(),
                     [](char c) { return IsFieldValueChar(static_cast<unsigned char>(c)); })) {
      return Refuse(refusal, 400, "malformed HTTP header field");
    }
    if (head->fields.size() == limits.max_fields) {
      return Refuse(refusal, 431,
                    "more than " + std::to_string(limits.max_fields) + " header fields");
    }
    head->fields.emplace_back(std::string(name), std::string(value));
    if (EqualsIgnoreCase(name, "Host")) {
      ++hosts;
    } else if (EqualsIgnoreCase(name, "Content-Length")) {
      ++lengths;
      length_value = value;
    } else if (EqualsIgnoreCase(name, "Transfer-Encoding")) {
      ++encodings;
    } else if (EqualsIgnoreCase(name, "Expect")) {
      ++expects;
      expect_value = value;
    } else if (EqualsIgnoreCase(name, "Content-Encoding")) {
      content_encoding = value;
    } else if (EqualsIgnoreCase(name, "Connection")) {
      // A comma-separated list of options.
      std::string_view rest = value;
      while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view option = TrimBlanks(rest.substr(0, comma));
        if (EqualsIgnoreCase(option, "close")) close = true;
        if (EqualsIgnoreCase(option, "keep-alive")) keep_alive = true;
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      }
    }
  }
  *head_size = pos;

  // Framing first: what follows this head must be known before any refusal.
  if (hosts > 1 || (hosts == 0 && head->minor_version == 1)) {
    return Refuse(refusal, 400, "an HTTP/1.1 request needs exactly one Host header");
  }
  if (lengths > 1) return Refuse(refusal, 400, "more than one Content-Length header");
  if (encodings > 0 && lengths > 0) {
    return Refuse(refusal, 400, "both Content-Length and Transfer-Encoding: ambiguous framing");
  }
  if (expects > 1) return Refuse(refusal, 400, "more than one Expect header");
  if (lengths == 1) {
    if (length_value.empty() || length_value.size() > 18 ||
        !std::all_of(length_value.begin(), length_value.end(),
                     [](char c) { return c >= '0' && c <= '9'; })) {
      return Refuse(refusal, 400, "Content-Length is not a decimal number");
    }
    for (char c : length_value) {
      head->content_length = head->content_length * 10 + static_cast<std::uint64_t>(c - '0');
    }
  }
  const bool get_or_head = head->method == "GET" || head->method == "HEAD";
  if (!get_or_head && head->method != "POST") {
    Refusal r{405, "method not allowed: use GET, HEAD or POST", {{"Allow", "GET, HEAD, POST"}}};
    *refusal = std::move(r);
    return HeadStatus::kRefused;
  }
  if (get_or_head && (encodings > 0 || head->content_length > 0)) {
    return Refuse(refusal, 400, "a GET or HEAD request must not carry a body");
  }
  if (head->method == "POST") {
    if (encodings > 0) {
      return Refuse(refusal, 411, "chunked request bodies are not accepted: send Content-Length");
    }
    if (lengths == 0) return Refuse(refusal, 411, "a POST needs exactly one Content-Length header");
  }
  if (!content_encoding.empty() && !EqualsIgnoreCase(content_encoding, "identity")) {
    return Refuse(refusal, 415, "compressed request bodies are not accepted");
  }
  if (expects == 1) {
    if (!EqualsIgnoreCase(expect_value, "100-continue")) {
      return Refuse(refusal, 417, "only Expect: 100-continue is understood");
    }
    head->expect_continue = true;
  }
  head->keep_alive = !close && (head->minor_version == 1 || keep_alive);
  return HeadStatus::kComplete;
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 417:
      return "Expectation Failed";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string JsonErrorBody(int status, std::string_view message) {
  nlohmann::json body = {{"error", {{"code", status}, {"message", message}}}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string SerializeResponse(int status, std::string_view content_type,
                              const std::vector<std::pair<std::string, std::string>>& fields,
                              std::string_view body, bool head_only, bool close) {
  auto clean = [](std::string_view s) {
    return s.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
  };
  std::string out;
  out.reserve(128 + body.size());
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += ReasonPhrase(status);
  out += "\r\n";
  const bool bodiless = status < 200 || status == 204 || status == 304;
  if (!bodiless) {
    if (!content_type.empty() && clean(content_type)) {
      out += "Content-Type: ";
      out += content_type;
      out += "\r\n";
    }
    out += "Content-Length: ";
    out += std::to_string(body.size());
    out += "\r\n";
  }
  for (const auto& [name, value] : fields) {
    if (!IsToken(name) || !clean(value) || EqualsIgnoreCase(name, "Content-Length") ||
        EqualsIgnoreCase(name, "Content-Type") || EqualsIgnoreCase(name, "Connection") ||
        EqualsIgnoreCase(name, "Transfer-Encoding")) {
      continue;  // the server owns the framing fields
    }
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  if (status >= 200) out += close ? "Connection: close\r\n" : "Connection: keep-alive\r\n";
  out += "\r\n";
  if (!bodiless && !head_only) out.append(body);
  return out;
}

}  // namespace veil::net::wire
