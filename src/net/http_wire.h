// Internal: the HTTP/1.1 wire rules of HttpServer (docs/notes/net.md, "Request framing"): a strict
// parser of a request head, the framing decision it implies, and the writer of a response.
//
// ParseRequestHead reads one request head (request line, header fields, empty line) from the
// front of a buffer. It accepts only one reading of the bytes, so that no proxy or peer can frame
// the same bytes differently (request smuggling):
//   - every line ends in CRLF; a bare CR or LF, a control character, an obsolete line folding
//     (a line that starts with white space) or white space before a field's colon is 400;
//   - the request line is `METHOD SP origin-form SP HTTP/1.x`; other versions are 505;
//   - HTTP/1.1 needs exactly one Host; a second Host, Content-Length, Transfer-Encoding or
//     Expect field is 400;
//   - a body is framed by one decimal Content-Length only: Transfer-Encoding is 411 on a POST
//     and 400 elsewhere (and with a Content-Length), a GET or HEAD with a non-zero length is 400,
//     a POST without a length is 411;
//   - the head is bounded in bytes (431; a request line alone past max_target_bytes is 414) and
//     in fields (431), and the parser never looks past max_head_bytes of the buffer, so the
//     caller may stop reading there.
// Methods other than GET, HEAD and POST are 405 (after the framing checks, so that a refused
// request's framing is still known); Content-Encoding other than identity is 415; an Expect other
// than 100-continue is 417.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace veil::net::wire {

struct HeadLimits {
  std::size_t max_head_bytes = 16 * 1024;  // request line, fields and the empty line
  std::size_t max_target_bytes = 8 * 1024;
  std::size_t max_fields = 64;
};

struct RequestHead {
  std::string method;
  std::string target;  // as sent
  std::string path;    // percent-decoded, without the query
  int minor_version = 1;
  std::vector<std::pair<std::string, std::string>> fields;  // names as sent, values trimmed
  std::uint64_t content_length = 0;
  bool keep_alive = true;        // the client's wish: HTTP/1.1 unless "close", 1.0 if "keep-alive"
  bool expect_continue = false;  // Expect: 100-continue
};

// A refusal: the status to answer with and a message for the JSON error body. The connection is
// closed after the refusal is written (its framing cannot be trusted).
struct Refusal {
  int status = 0;
  std::string message;
  std::vector<std::pair<std::string, std::string>> fields;  // extra response fields (Allow)
};

enum class HeadStatus {
  kIncomplete,  // no complete head yet (and none of the limits is exceeded so far)
  kComplete,    // *head is filled and *head_size bytes form the head
  kRefused,     // *refusal says why
};

// Parses the head at the start of `buffer`. Empty lines before the request line are skipped (RFC
// 9112 sec. 2.2) and counted in *head_size.
HeadStatus ParseRequestHead(std::string_view buffer, const HeadLimits& limits, RequestHead* head,
                            std::size_t* head_size, Refusal* refusal);

// The reason phrase of a status code ("Not Found"); "Unknown" for codes we never send.
std::string_view ReasonPhrase(int status);

// `{"error":{"code":STATUS,"message":"..."}}`, the body of every error the server writes itself.
std::string JsonErrorBody(int status, std::string_view message);

// The bytes of a response: status line, Content-Type (when there is a body or a type), Content-
// Length (except for 1xx, 204 and 304), the extra fields, Connection, the empty line and, unless
// `head_only`, the body. Field names and values with CR, LF or NUL are dropped (a handler must
// never be able to split a response).
std::string SerializeResponse(int status, std::string_view content_type,
                              const std::vector<std::pair<std::string, std::string>>& fields,
                              std::string_view body, bool head_only, bool close);

}  // namespace veil::net::wire
