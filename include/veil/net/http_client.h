// HttpClient and JsonRpcClient: calls to an HttpServer (or any HTTP/1.1 server) over cpp-httplib,
// with timeouts, bounded retries, keep-alive and TLS with certificate pinning (docs/notes/net.md).
//
// Retries: a call marked kIdempotent is retried, with exponential backoff and jitter, when the
// connection fails, times out or breaks, or when the server answers 502, 503 or 504. A call
// marked kNotIdempotent is retried only when the TCP connection could not be established at all
// (the request cannot have reached the server); once a request may have been sent it is never
// repeated, and the caller gets kUnavailable and decides.
//
// TLS: an https base URL with pinned_sha256 set accepts exactly the server whose leaf
// certificate has that SHA-256 fingerprint (tls.h), with no CA or host name check, so a
// self-signed certificate works; any other certificate fails the handshake and the call returns
// kUnauthenticated without a retry. Without a pin the server is verified against ca_file (or the
// system store) and its host name.
//
// Extra request headers (`headers` of Get and Post) are sent as given, after the client's own;
// a name that is not an RFC 9110 token, a value holding CR, LF or NUL, or one of the names the
// client sets itself (Host, Content-Type, Content-Length, Connection, Transfer-Encoding) is
// kInvalidArgument before anything is sent.
//
// Responses larger than max_response_bytes are refused (kResourceExhausted) without being
// buffered past the limit.
//
// Thread safety: every method may be called from any thread. One client holds one keep-alive
// connection, so concurrent calls are serialized on it; for parallel calls use one client per
// thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "veil/base/result.h"

namespace veil::net {

enum class Idempotency { kIdempotent, kNotIdempotent };

struct RetryPolicy {
  int max_attempts = 4;  // including the first
  std::chrono::milliseconds initial_backoff{50};
  std::chrono::milliseconds max_backoff{1000};
  double multiplier = 2.0;
};

struct HttpClientOptions {
  std::string base_url;  // "http://127.0.0.1:8545" or "https://host:port"; no path
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds read_timeout{10000};
  std::chrono::milliseconds write_timeout{10000};
  RetryPolicy retry;
  bool keep_alive = true;
  std::size_t max_response_bytes = 16 << 20;
  std::string pinned_sha256;  // https: 64 hex digits, colons allowed (tls.h)
  std::string ca_file;        // https without a pin: CA bundle (PEM); empty: the system store
};

// Extra request headers: (name, value) pairs, sent in order.
using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpReply {
  int status = 0;
  std::string content_type;
  std::string body;
};

class HttpClient {
 public:
  // kInvalidArgument for a malformed URL or pin, or a pin on an http URL.
  static Result<HttpClient> Create(HttpClientOptions options);

  HttpClient(HttpClient&&) noexcept;
  HttpClient& operator=(HttpClient&&) noexcept;
  ~HttpClient();

  // Any HTTP status is a successful reply here; transport failures are kUnavailable (after the
  // retries the idempotency allows), a pin mismatch kUnauthenticated.
  Result<HttpReply> Get(const std::string& path, Idempotency idempotency = Idempotency::kIdempotent,
                        const HttpHeaders& headers = {});
  Result<HttpReply> Post(const std::string& path, std::string_view body,
                         const std::string& content_type, Idempotency idempotency,
                         const HttpHeaders& headers = {});

  // Attempts made by the last call on this thread (1 = no retry); for tests and logging.
  static int LastAttempts();

 private:
  struct Impl;
  explicit HttpClient(std::unique_ptr<Impl> impl);
  Result<HttpReply> Send(const std::string& method, const std::string& path, std::string_view body,
                         const std::string& content_type, Idempotency idempotency,
                         const HttpHeaders& headers);
  std::unique_ptr<Impl> impl_;
};

class JsonRpcClient {
 public:
  static Result<JsonRpcClient> Create(HttpClientOptions options, std::string path = "/rpc");

  // Calls `method` with `params` (null: no params member). A JSON-RPC error from the server
  // becomes a Status whose code follows error_map.h and whose message reads
  // "json-rpc error CODE: MESSAGE"; a malformed reply is kInternal.
  Result<nlohmann::json> Call(std::string_view method, nlohmann::json params = nullptr,
                              Idempotency idempotency = Idempotency::kNotIdempotent);

  // The same call, handing the result as JSON text to a reader of the caller's (which must
  // refuse anything but one complete JSON value). A reply in the compact form a
  // JsonRpcDispatcher writes ({"id":ID,"jsonrpc":"2.0","result":...}) is cut without being
  // parsed, and when the reader accepts the cut text the envelope around it is exactly that
  // form. Any other reply, and one whose cut text the reader refuses, goes through Call's
  // checks: their error, else the reader's answer on the result written back as text. So the
  // errors are Call's, and a JSON-RPC error after the result is never taken for success.
  using TextReader = std::function<Status(std::string_view result_text)>;
  Status CallWithReader(std::string_view method, nlohmann::json params, Idempotency idempotency,
                        const TextReader& read);

  // A notification: no id, no result. Never retried after it may have been sent.
  Status Notify(std::string_view method, nlohmann::json params = nullptr);

  HttpClient& http() { return http_; }

 private:
  // Sends the request with a fresh id (in *id).
  Result<HttpReply> Post(std::string_view method, nlohmann::json params, Idempotency idempotency,
                         std::int64_t* id);
  // Call's checks of a reply to request `id`: the result, or the error it carries.
  static Result<nlohmann::json> ResultOf(const HttpReply& reply, std::int64_t id);
  JsonRpcClient(HttpClient http, std::string path)
      : http_(std::move(http)), path_(std::move(path)) {}
  HttpClient http_;
  std::string path_;
  std::unique_ptr<std::atomic<std::int64_t>> next_id_ =
      std::make_unique<std::atomic<std::int64_t>>(1);
};

}  // namespace veil::net
