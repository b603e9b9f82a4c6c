// HttpClient and JsonRpcClient over cpp-httplib 0.11 (see http_client.h for the contract).
#include "veil/net/http_client.h"

#include <httplib.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <random>
#include <thread>

#include "ssl_util.h"
#include "veil/net/error_map.h"
#include "veil/net/json_rpc.h"
#include "veil/net/tls.h"

namespace veil::net {
namespace {

using nlohmann::json;

thread_local int tl_last_attempts = 0;
// Set by the pin check, which runs inside the handshake on the calling thread.
thread_local bool tl_pin_mismatch = false;

// Replaces OpenSSL's chain verification for a pinned client: the leaf's fingerprint decides.
int PinnedCertCheck(X509_STORE_CTX* store, void* arg) {
  const auto* pin = static_cast<const std::string*>(arg);
  X509* leaf = X509_STORE_CTX_get0_cert(store);
  if (leaf != nullptr) {
    Result<std::string> fp = Fingerprint(leaf);
    if (fp.ok() && *fp == *pin) return 1;
  }
  tl_pin_mismatch = true;
  X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED);
  return 0;
}

struct ParsedUrl {
  bool https = false;
  std::string host;
  int port = 0;
};

Result<ParsedUrl> ParseBaseUrl(std::string_view url) {
  ParsedUrl out;
  std::string_view rest;
  if (url.rfind("http://", 0) == 0) {
    rest = url.substr(7);
  } else if (url.rfind("https://", 0) == 0) {
    out.https = true;
    rest = url.substr(8);
  } else {
    return InvalidArgument("base URL must start with http:// or https://");
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) {
    return InvalidArgument("base URL must not have a path; pass it per call");
  }
  std::string_view port_text;
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return InvalidArgument("base URL: unclosed '['");
    out.host = std::string(rest.substr(1, close - 1));
    rest = rest.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return InvalidArgument("base URL: junk after ']'");
      port_text = rest.substr(1);
    }
  } else {
    auto colon = rest.rfind(':');
    out.host = std::string(rest.substr(0, colon));
    if (colon != std::string_view::npos) port_text = rest.substr(colon + 1);
  }
  if (out.host.empty()) return InvalidArgument("base URL has no host");
  out.port = out.https ? 443 : 80;
  if (!port_text.empty()) {
    if (port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos) {
      return InvalidArgument("base URL has a bad port");
    }
    out.port = std::stoi(std::string(port_text));
    if (out.port <= 0 || out.port > 65535) return InvalidArgument("base URL has a bad port");
  }
  return out;
}

bool ConnectPhaseError(httplib::Error e) {
  // The TCP connection was never established, so no byte of the request left this process.
  return e == httplib::Error::Connection || e == httplib::Error::ConnectionTimeout;
}

bool RetryableTransportError(httplib::Error e) {
  return ConnectPhaseError(e) || e == httplib::Error::Read || e == httplib::Error::Write ||
         e == httplib::Error::Unknown;
}

// RFC 9110 token characters (header names).
bool IsTokenChar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

Status CheckExtraHeader(const std::string& name, const std::string& value) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
        return IsTokenChar(static_cast<unsigned char>(c));
      })) {
    return InvalidArgument("request header name is not a token");
  }
  for (std::string_view own :
       {"Host", "Content-Type", "Content-Length", "Connection", "Transfer-Encoding"}) {
    if (EqualsNoCase(name, own)) {
      return InvalidArgument("request header " + std::string(own) + " is set by the client");
    }
  }
  if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
    return InvalidArgument("request header " + name + " has CR, LF or NUL in its value");
  }
  return Status::Ok();
}

std::string Clip(std::string s) {
  constexpr std::size_t kMax = 512;
  if (s.size() > kMax) s = s.substr(0, kMax) + "...";
  return s;
}

}  // namespace

struct HttpClient::Impl {
  HttpClientOptions options;
  ParsedUrl url;
  std::unique_ptr<std::string> pin;  // stable address for the OpenSSL callback
  std::unique_ptr<httplib::ClientImpl> client;
};

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;
HttpClient::~HttpClient() = default;

int HttpClient::LastAttempts() { return tl_last_attempts; }

Result<HttpClient> HttpClient::Create(HttpClientOptions options) {
  auto impl = std::make_unique<Impl>();
  VEIL_ASSIGN_OR_RETURN(impl->url, ParseBaseUrl(options.base_url));
  if (options.retry.max_attempts < 1) return InvalidArgument("retry.max_attempts must be >= 1");
  if (!options.pinned_sha256.empty()) {
    if (!impl->url.https) return InvalidArgument("a certificate pin needs an https URL");
    VEIL_ASSIGN_OR_RETURN(std::string pin, NormalizeFingerprint(options.pinned_sha256));
    impl->pin = std::make_unique<std::string>(std::move(pin));
  }
  if (impl->url.https) {
    auto ssl = std::make_unique<httplib::SSLClient>(impl->url.host, impl->url.port);
    SSL_CTX* ctx = ssl->ssl_context();
    if (ctx == nullptr) return Internal("cannot create a TLS client context");
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    if (impl->pin) {
      ssl->enable_server_certificate_verification(false);
      // VERIFY_PEER makes a failed check abort the handshake; the callback is the whole check.
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
      SSL_CTX_set_cert_verify_callback(ctx, PinnedCertCheck, impl->pin.get());
    } else {
      ssl->enable_server_certificate_verification(true);
      if (!options.ca_file.empty()) ssl->set_ca_cert_path(options.ca_file);
    }
    impl->client = std::move(ssl);
  } else {
    impl->client = std::make_unique<httplib::ClientImpl>(impl->url.host, impl->url.port);
  }
  httplib::ClientImpl& c = *impl->client;
  c.set_connection_timeout(options.connect_timeout);
  c.set_read_timeout(options.read_timeout);
  c.set_write_timeout(options.write_timeout);
  c.set_keep_alive(options.keep_alive);
  c.set_tcp_nodelay(true);
  c.set_follow_location(false);
  c.set_decompress(false);
  impl->options = std::move(options);
  return HttpClient(std::move(impl));
}

Result<HttpReply> HttpClient::Get(const std::string& path, Idempotency idempotency,
                                  const HttpHeaders& headers) {
  return Send("GET", path, {}, {}, idempotency, headers);
}

Result<HttpReply> HttpClient::Post(const std::string& path, std::string_view body,
                                   const std::string& content_type, Idempotency idempotency,
                                   const HttpHeaders& headers) {
  return Send("POST", path, body, content_type, idempotency, headers);
}

Result<HttpReply> HttpClient::Send(const std::string& method, const std::string& path,
                                   std::string_view body, const std::string& content_type,
                                   Idempotency idempotency, const HttpHeaders& headers) {
  for (const auto& [name, value] : headers) {
    if (Status s = CheckExtraHeader(name, value); !s.ok()) return s;
  }
  const HttpClientOptions& opt = impl_->options;
  const bool idempotent = idempotency == Idempotency::kIdempotent;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  double backoff_ms = static_cast<double>(opt.retry.initial_backoff.count());
  Status last = Unavailable("no attempt made");
  tl_last_attempts = 0;
  for (int attempt = 1; attempt <= opt.retry.max_attempts; ++attempt) {
    if (attempt > 1) {
      // Full jitter over [backoff/2, backoff], capped.
      double cap = std::min(backoff_ms, static_cast<double>(opt.retry.max_backoff.count()));
      std::uniform_real_distribution<double> jitter(cap / 2, cap);
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(jitter(rng)));
      backoff_ms *= opt.retry.multiplier;
    }
    tl_last_attempts = attempt;
    tl_pin_mismatch = false;

    httplib::Request req;
    req.method = method;
    req.path = path;
    if (method == "POST") {
      req.body.assign(body.data(), body.size());
      req.set_header("Content-Type", content_type);
    }
    for (const auto& [name, value] : headers) req.set_header(name, value);
    std::string response_body;
    bool too_big = false;
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
      if (response_body.size() + n > opt.max_response_bytes) {
        too_big = true;
        return false;
      }
      response_body.append(data, n);
      return true;
    };
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    bool sent = false;
    try {
      sent = impl_->client->send(req, res, error);
    } catch (const std::exception&) {
      sent = false;
      error = httplib::Error::Unknown;
    }
    if (too_big) {
      return ResourceExhausted("response from " + opt.base_url + " exceeds " +
                               std::to_string(opt.max_response_bytes) + " bytes");
    }
    if (tl_pin_mismatch) {
      return Unauthenticated("TLS server certificate of " + opt.base_url +
                             " does not match the pinned SHA-256 fingerprint");
    }
    if (!sent) {
      last =
          Unavailable(method + " " + opt.base_url + path + " failed: " + httplib::to_string(error));
      bool retry = idempotent ? RetryableTransportError(error) : ConnectPhaseError(error);
      if (!retry) return last;
      continue;
    }
    if (idempotent && (res.status == 502 || res.status == 503 || res.status == 504) &&
        attempt < opt.retry.max_attempts) {
      last = Unavailable("HTTP " + std::to_string(res.status));
      continue;
    }
    HttpReply reply;
    reply.status = res.status;
    reply.content_type = res.get_header_value("Content-Type");
    reply.body = std::move(response_body);
    return reply;
  }
  return last;
}

Result<JsonRpcClient> JsonRpcClient::Create(HttpClientOptions options, std::string path) {
  VEIL_ASSIGN_OR_RETURN(HttpClient http, HttpClient::Create(std::move(options)));
  return JsonRpcClient(std::move(http), std::move(path));
}

Result<HttpReply> JsonRpcClient::Post(std::string_view method, json params, Idempotency idempotency,
                                      std::int64_t* id) {
  *id = next_id_->fetch_add(1);
  json request = {{"jsonrpc", "2.0"}, {"method", method}, {"id", *id}};
  if (!params.is_null()) request["params"] = std::move(params);
  return http_.Post(path_, DumpJson(request), "application/json", idempotency);
}

Result<json> JsonRpcClient::Call(std::string_view method, json params, Idempotency idempotency) {
  std::int64_t id = 0;
  VEIL_ASSIGN_OR_RETURN(HttpReply reply, Post(method, std::move(params), idempotency, &id));
  return ResultOf(reply, id);
}

Status JsonRpcClient::CallWithReader(std::string_view method, json params, Idempotency idempotency,
                                     const TextReader& read) {
  std::int64_t id = 0;
  VEIL_ASSIGN_OR_RETURN(HttpReply reply, Post(method, std::move(params), idempotency, &id));
  const std::string head = "{\"id\":" + std::to_string(id) + ",\"jsonrpc\":\"2.0\",\"result\":";
  const std::string_view b = reply.body;
  // The value must start right after the head: no space, and no byte-order mark, which a
  // parser would skip at the start of the cut text but which makes the whole body invalid.
  constexpr std::string_view kValueStarts = "{[\"-0123456789tfn";
  if (reply.status == 200 && b.size() > head.size() + 1 && b.substr(0, head.size()) == head &&
      b.back() == '}' && kValueStarts.find(b[head.size()]) != std::string_view::npos) {
    if (read(b.substr(head.size(), b.size() - head.size() - 1)).ok()) return Status::Ok();
    // The reader refused the cut text: the envelope may hold an error after the result, or be
    // malformed; Call's checks say which, and otherwise the reader's own answer stands.
  }
  VEIL_ASSIGN_OR_RETURN(json result, ResultOf(reply, id));
  return read(DumpJson(result));
}

Result<json> JsonRpcClient::ResultOf(const HttpReply& reply, std::int64_t id) {
  json body = json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (reply.status != 200) {
    std::string message = "HTTP " + std::to_string(reply.status);
    if (body.is_object() && body.contains("error") && body["error"].is_object() &&
        body["error"].contains("message") && body["error"]["message"].is_string()) {
      message += ": " + Clip(body["error"]["message"].get<std::string>());
    }
    Code code = StatusCodeForHttp(reply.status);
    return Status(code == Code::kOk ? Code::kInternal : code, message);
  }
  if (body.is_discarded() || !body.is_object()) {
    return Internal("json-rpc reply is not a JSON object");
  }
  if (body.value("jsonrpc", json()) != "2.0") return Internal("json-rpc reply lacks jsonrpc 2.0");
  if (auto e = body.find("error"); e != body.end()) {
    if (!e->is_object() || !e->contains("code") || !(*e)["code"].is_number_integer()) {
      return Internal("json-rpc reply has a malformed error");
    }
    int code = (*e)["code"].get<int>();
    std::string message = e->contains("message") && (*e)["message"].is_string()
                              ? Clip((*e)["message"].get<std::string>())
                              : std::string();
    return Status(StatusCodeForJsonRpc(code),
                  "json-rpc error " + std::to_string(code) + ": " + message);
  }
  if (body.value("id", json()) != json(id)) return Internal("json-rpc reply id does not match");
  auto result = body.find("result");
  if (result == body.end()) return Internal("json-rpc reply has neither result nor error");
  return std::move(*result);
}

Status JsonRpcClient::Notify(std::string_view method, json params) {
  json request = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) request["params"] = std::move(params);
  VEIL_ASSIGN_OR_RETURN(HttpReply reply, http_.Post(path_, DumpJson(request), "application/json",
                                                    Idempotency::kNotIdempotent));
  if (reply.status == 204 || reply.status == 200) return Status::Ok();
  Code code = StatusCodeForHttp(reply.status);
  return Status(code == Code::kOk ? Code::kInternal : code, "HTTP " + std::to_string(reply.status));
}

}  // namespace veil::net
