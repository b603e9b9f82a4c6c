// HttpServer over cpp-httplib 0.11 (see http_server.h for the contract).
//
// cpp-httplib owns the accept loop, the worker pool and the HTTP/1.1 parser; we add the limits it
// lacks (Content-Length required for POST, no chunked or compressed bodies, a 413 before the body
// with Expect: 100-continue), JSON error bodies, metrics, exact routes and a bounded stop.
// Requests are counted where cpp-httplib logs them, i.e. after their response is written, which
// also covers responses cpp-httplib writes itself (400 for a bad request line, 413, 414).
#include "veil/net/http_server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "ssl_util.h"

namespace veil::net {
namespace {

using Clock = std::chrono::steady_clock;

// Per worker thread: when the request being served started, and whether it is counted as in
// flight. A worker serves one request at a time, and cpp-httplib calls the pre-routing handler
// and the logger for one request on the same thread.
thread_local Clock::time_point tl_request_start;
thread_local bool tl_request_active = false;
// Set when a request is refused with "Connection: close": the logger, which cpp-httplib calls after
// the response is written, then shuts the connection down. Not before: this cpp-httplib checks,
// before every write, that the socket is alive by peeking at it, and a socket whose read side is
// shut down and empty reads as closed, so the response would never be sent.
thread_local bool tl_close_after_response = false;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string JsonError(int status, std::string_view message) {
  nlohmann::json body = {{"error", {{"code", status}, {"message", message}}}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string DefaultMessage(int status, std::size_t max_body) {
  switch (status) {
    case 400:
      return "malformed HTTP request";
    case 404:
      return "no handler for this path";
    case 405:
      return "method not allowed";
    case 413:
      return "request body exceeds the limit of " + std::to_string(max_body) + " bytes";
    case 414:
      return "request target too long";
    case 500:
      return "internal error";
    default:
      return "HTTP error " + std::to_string(status);
  }
}

std::string RegexEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::strchr("\\^$.|?*+()[]{}", c) != nullptr) out += '\\';
    out += c;
  }
  return out;
}

// Reads everything the fuzzer or test gives, as one connection, and keeps what is written back.
class MemoryStream final : public httplib::Stream {
 public:
  explicit MemoryStream(std::string_view in) : in_(in) {}
  bool is_readable() const override { return true; }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    std::size_t n = std::min(size, in_.size() - pos_);
    std::memcpy(ptr, in_.data() + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    out_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 0;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 0;
  }
  socket_t socket() const override { return INVALID_SOCKET; }

  bool exhausted() const { return pos_ >= in_.size(); }
  std::string& output() { return out_; }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
  std::string out_;
};

// Gives us the two protected members of httplib::Server we need: the request processor (for the
// in-memory path) and the listening socket (for its backlog and bound address).
template <class Base>
class CoreServer final : public Base {
 public:
  using Base::Base;
  bool ProcessOne(httplib::Stream& strm, bool& connection_closed) {
    return this->process_request(strm, false, connection_closed, [](httplib::Request&) {});
  }
  int ListenFd() const { return this->svr_sock_.load(); }
};

bool SameLocalAddress(const sockaddr_storage& a, const sockaddr_storage& b) {
  if (a.ss_family != b.ss_family) return false;
  if (a.ss_family == AF_INET) {
    sockaddr_in x, y;
    std::memcpy(&x, &a, sizeof(x));
    std::memcpy(&y, &b, sizeof(y));
    return x.sin_port == y.sin_port &&
           (y.sin_addr.s_addr == htonl(INADDR_ANY) || x.sin_addr.s_addr == y.sin_addr.s_addr);
  }
  if (a.ss_family == AF_INET6) {
    sockaddr_in6 x, y;
    std::memcpy(&x, &a, sizeof(x));
    std::memcpy(&y, &b, sizeof(y));
    return x.sin6_port == y.sin6_port &&
           (IN6_IS_ADDR_UNSPECIFIED(&y.sin6_addr) ||
            std::memcmp(&x.sin6_addr, &y.sin6_addr, sizeof(in6_addr)) == 0);
  }
  return false;
}

std::string PeerString(const sockaddr_storage& peer) {
  char host[INET6_ADDRSTRLEN] = {};
  int port = 0;
  if (peer.ss_family == AF_INET) {
    sockaddr_in a;
    std::memcpy(&a, &peer, sizeof(a));
    inet_ntop(AF_INET, &a.sin_addr, host, sizeof(host));
    port = ntohs(a.sin_port);
  } else if (peer.ss_family == AF_INET6) {
    sockaddr_in6 a;
    std::memcpy(&a, &peer, sizeof(a));
    inet_ntop(AF_INET6, &a.sin6_addr, host, sizeof(host));
    port = ntohs(a.sin6_port);
  }
  return std::string(host) + " " + std::to_string(port);
}

// The connected sockets of this process whose local address is `bound` (and, when `peer` is not
// empty, whose peer is "IP PORT"): the connections the server accepted. cpp-httplib keeps no list
// of them, and both a stop and a rejected request have to reach them.
std::vector<int> AcceptedConnections(const sockaddr_storage& bound, const std::string& peer = {}) {
  std::vector<int> fds;
  if (bound.ss_family == AF_UNSPEC) return fds;  // never listened (in-memory use)
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(dir)) continue;
    struct stat st;
    if (fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    sockaddr_storage local{}, remote{};
    socklen_t local_len = sizeof(local), remote_len = sizeof(remote);
    if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
        getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&remote), &remote_len) != 0) {
      continue;
    }
    if (!SameLocalAddress(local, bound)) continue;
    if (!peer.empty() && PeerString(remote) != peer) continue;
    fds.push_back(static_cast<int>(fd));
  }
  closedir(dir);
  return fds;
}

}  // namespace

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (EqualsIgnoreCase(k, name)) return v;
  }
  return std::string();
}

struct HttpServer::Impl {
  HttpServerOptions options;
  std::shared_ptr<MetricsRegistry> metrics;
  std::map<std::pair<std::string, std::string>, HttpHandler> routes;  // (method, path)
  std::set<std::string> route_paths;
  std::function<Status()> health_check;

  std::mutex mu;  // guards the fields below
  std::unique_ptr<httplib::Server> server;
  std::function<bool(httplib::Stream&, bool&)> process_one;
  std::function<int()> listen_fd;
  bool started = false;
  bool stopped = false;
  std::thread listen_thread;
  std::atomic<bool> listen_done{false};
  std::atomic<std::uint16_t> port{0};
  sockaddr_storage bound{};

  std::atomic<int> in_flight{0};
  std::atomic<bool> stopping{false};  // Stop() has begun: new requests are refused
  Gauge* in_flight_gauge = nullptr;

  Status Build();
  void Configure(httplib::Server& svr);
  void Record(const httplib::Request& req, const httplib::Response& res);
};

HttpServer::HttpServer(HttpServerOptions options, std::shared_ptr<MetricsRegistry> metrics)
    : impl_(std::make_unique<Impl>()),
      metrics_(metrics ? std::move(metrics) : std::make_shared<MetricsRegistry>()) {
  impl_->options = std::move(options);
  impl_->metrics = metrics_;
  impl_->in_flight_gauge =
      &metrics_->GetGauge("veil_http_in_flight_requests",
                          "HTTP requests being served (headers read, response not sent)");
  impl_->route_paths = {"/health", "/metrics"};
}

HttpServer::~HttpServer() { Stop().IgnoreError(); }

void HttpServer::Handle(std::string method, std::string path, HttpHandler handler) {
  VEIL_CHECK_MSG(method == "GET" || method == "POST", "HttpServer routes are GET or POST");
  VEIL_CHECK_MSG(!path.empty() && path[0] == '/', "HttpServer paths start with '/'");
  VEIL_CHECK_MSG(path != "/health" && path != "/metrics", "/health and /metrics are built in");
  VEIL_CHECK_MSG(handler != nullptr, "HttpServer handler must not be empty");
  std::lock_guard lock(impl_->mu);
  VEIL_CHECK_MSG(impl_->server == nullptr, "HttpServer::Handle after Start");
  impl_->route_paths.insert(path);
  bool inserted =
      impl_->routes.try_emplace({std::move(method), std::move(path)}, std::move(handler)).second;
  VEIL_CHECK_MSG(inserted, "HttpServer route registered twice");
}

void HttpServer::SetHealthCheck(std::function<Status()> check) {
  std::lock_guard lock(impl_->mu);
  VEIL_CHECK_MSG(impl_->server == nullptr, "HttpServer::SetHealthCheck after Start");
  impl_->health_check = std::move(check);
}

void HttpServer::Impl::Record(const httplib::Request& req, const httplib::Response& res) {
  std::string route = route_paths.count(req.path) ? req.path : "other";
  std::string method = req.method == "GET" || req.method == "POST" || req.method == "HEAD"
                           ? req.method
                           : std::string("other");
  metrics
      ->GetCounter("veil_http_requests_total", "HTTP responses by route, method and status",
                   {{"route", route}, {"method", method}, {"code", std::to_string(res.status)}})
      .Inc();
  if (res.status >= 400) {
    metrics
        ->GetCounter("veil_http_request_errors_total",
                     "HTTP responses with a status of 400 or more, by route and method",
                     {{"route", route}, {"method", method}})
        .Inc();
  }
  if (tl_close_after_response) {
    tl_close_after_response = false;
    // The response is out; what the client sent after it is not read (a rejected request's body
    // would be parsed as the next request), and the keep-alive loop ends on the closed socket.
    for (int fd :
         AcceptedConnections(bound, req.remote_addr + " " + std::to_string(req.remote_port))) {
      ::shutdown(fd, SHUT_RDWR);
    }
  }
  if (tl_request_active) {
    tl_request_active = false;
    in_flight.fetch_sub(1);
    in_flight_gauge->Dec();
    double seconds = std::chrono::duration<double>(Clock::now() - tl_request_start).count();
    metrics
        ->GetHistogram("veil_http_request_duration_seconds",
                       "HTTP request latency in seconds, headers read to response written",
                       {{"route", route}, {"method", method}})
        .Observe(seconds);
  }
}

void HttpServer::Impl::Configure(httplib::Server& svr) {
  const std::size_t max_body = options.max_body_bytes;
  svr.new_task_queue = [n = std::max<std::size_t>(1, options.worker_threads)] {
    return new httplib::ThreadPool(n);
  };
  svr.set_socket_options([](socket_t sock) {
    // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, which would let another
    // process of the same user bind the same port and take a share of our connections.
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  svr.set_tcp_nodelay(true);
  svr.set_payload_max_length(max_body);
  svr.set_read_timeout(options.read_timeout);
  svr.set_write_timeout(options.write_timeout);
  svr.set_keep_alive_timeout(std::max<time_t>(
      1,
      static_cast<time_t>(
          std::chrono::duration_cast<std::chrono::seconds>(options.keep_alive_timeout).count())));
  svr.set_keep_alive_max_count(std::max<std::size_t>(1, options.keep_alive_max_requests));

  svr.set_expect_100_continue_handler(
      [max_body](const httplib::Request& req, httplib::Response& res) {
        if (req.get_header_value<uint64_t>("Content-Length") > max_body) {
          // Answered before the body is sent; a client that sends it anyway meets a closed socket.
          res.status = 413;
          res.set_content(JsonError(413, DefaultMessage(413, max_body)), "application/json");
          res.set_header("Connection", "close");
          tl_close_after_response = true;
          return 413;
        }
        return 100;
      });

  svr.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    tl_request_start = Clock::now();
    if (!tl_request_active) {
      tl_request_active = true;
      in_flight.fetch_add(1);
      in_flight_gauge->Inc();
    }
    // A rejected request may be followed by a body we will not read, which would then be
    // parsed as the next request: the connection ends after this response instead.
    auto reject = [&](int status, std::string message) {
      res.status = status;
      res.set_content(JsonError(status, message), "application/json");
      res.set_header("Connection", "close");
      tl_close_after_response = true;
      return httplib::Server::HandlerResponse::Handled;
    };
    // Stop() raises `stopping` and then waits for in_flight to reach zero; this thread raised
    // in_flight and then reads `stopping` (both sequentially consistent), so either Stop waits
    // for this request's response, or this request is refused here, before any handler runs:
    // once Stop shuts the connections' read sides, a response can no longer be written, and a
    // request served after that would take effect unacknowledged.
    if (stopping.load()) return reject(503, "the server is stopping");
    if (req.method != "GET" && req.method != "HEAD" && req.method != "POST") {
      res.set_header("Allow", "GET, HEAD, POST");
      return reject(405, "method not allowed: use GET, HEAD or POST");
    }
    if (req.method == "POST") {
      if (req.has_header("Transfer-Encoding")) {
        return reject(411, "chunked request bodies are not accepted: send Content-Length");
      }
      if (req.get_header_value_count("Content-Length") != 1) {
        return reject(411, "a POST needs exactly one Content-Length header");
      }
      const std::string len = req.get_header_value("Content-Length");
      if (len.empty() || len.size() > 19 ||
          len.find_first_not_of("0123456789") != std::string::npos) {
        return reject(400, "Content-Length is not a decimal number");
      }
      // A body over max_body_bytes is left to cpp-httplib, which reads and discards it (never
      // buffering it) and answers 413, keeping the connection usable.
    }
    if (req.has_header("Content-Encoding") &&
        !EqualsIgnoreCase(req.get_header_value("Content-Encoding"), "identity")) {
      return reject(415, "compressed request bodies are not accepted");
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });

  svr.set_error_handler(httplib::Server::HandlerWithResponse(
      [max_body](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        res.set_content(JsonError(res.status, DefaultMessage(res.status, max_body)),
                        "application/json");
        return httplib::Server::HandlerResponse::Handled;
      }));

  svr.set_logger(
      [this](const httplib::Request& req, const httplib::Response& res) { Record(req, res); });

  auto wrap = [](HttpHandler handler) {
    return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
      HttpResponse out;
      try {
        HttpRequest in;
        in.method = req.method;
        in.path = req.path;
        in.target = req.target;
        in.body = req.body;
        in.remote_addr = req.remote_addr;
        in.remote_port = req.remote_port;
        in.headers.assign(req.headers.begin(), req.headers.end());
        handler(in, out);
      } catch (...) {
        // What went wrong stays in the process: the text of an exception may hold anything.
        out = HttpResponse{};
        out.status = 500;
        out.body = JsonError(500, "internal error");
      }
      res.status = out.status;
      for (auto& [k, v] : out.headers) res.set_header(k, v);
      if (!out.body.empty()) {
        // set_content's effect (the body and one Content-Type) without its copy of the body.
        res.body = std::move(out.body);
        res.headers.erase("Content-Type");
        res.set_header("Content-Type", out.content_type);
      }
    };
  };

  svr.Get("/health", wrap([this](const HttpRequest&, HttpResponse& res) {
            Status s = health_check ? health_check() : Status::Ok();
            nlohmann::json body = {{"status", s.ok() ? "ok" : "unavailable"}};
            if (!s.ok()) body["message"] = s.ToString();
            res.status = s.ok() ? 200 : 503;
            res.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
          }));
  svr.Get("/metrics", wrap([this](const HttpRequest&, HttpResponse& res) {
            res.content_type = std::string(kPrometheusContentType);
            res.body = metrics->RenderPrometheus();
          }));
  for (auto& [key, handler] : routes) {
    // Escaped literals: std::regex only ever compares the path with a fixed string.
    std::string pattern = RegexEscape(key.second);
    if (key.first == "GET") {
      svr.Get(pattern, wrap(handler));
    } else {
      svr.Post(pattern, wrap(handler));
    }
  }
}

Status HttpServer::Impl::Build() {
  if (server) return Status::Ok();
  if (options.tls) {
    Status setup = Status::Ok();
    auto svr = std::make_unique<CoreServer<httplib::SSLServer>>([&](SSL_CTX& ctx) {
      setup = ConfigureServerContext(&ctx, options.tls->cert_pem, options.tls->key_pem);
      return setup.ok();
    });
    VEIL_RETURN_IF_ERROR(setup);
    if (!svr->is_valid()) return Internal("cannot create the TLS server context");
    auto* raw = svr.get();
    process_one = [raw](httplib::Stream& s, bool& closed) { return raw->ProcessOne(s, closed); };
    listen_fd = [raw] { return raw->ListenFd(); };
    server = std::move(svr);
  } else {
    auto svr = std::make_unique<CoreServer<httplib::Server>>();
    auto* raw = svr.get();
    process_one = [raw](httplib::Stream& s, bool& closed) { return raw->ProcessOne(s, closed); };
    listen_fd = [raw] { return raw->ListenFd(); };
    server = std::move(svr);
  }
  Configure(*server);
  return Status::Ok();
}

Status HttpServer::Start() {
  Impl& m = *impl_;
  std::lock_guard lock(m.mu);
  if (m.started) return FailedPrecondition("HttpServer already started");
  VEIL_RETURN_IF_ERROR(m.Build());
  const std::string where = m.options.host + ":" + std::to_string(m.options.port);
  int port = m.options.port;
  if (m.options.port == 0) {
    port = m.server->bind_to_any_port(m.options.host);
    if (port <= 0) return Unavailable("cannot listen on " + where);
  } else if (!m.server->bind_to_port(m.options.host, port)) {
    return Unavailable("cannot listen on " + where + ": " + std::strerror(errno));
  }
  const int fd = m.listen_fd();
  // cpp-httplib listens with a backlog of 5; a burst of clients would see dropped SYNs.
  ::listen(fd, 128);
  socklen_t len = sizeof(m.bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&m.bound), &len);
  m.port = static_cast<std::uint16_t>(port);
  m.started = true;
  m.listen_done = false;
  httplib::Server* svr = m.server.get();
  m.listen_thread = std::thread([svr, &m] {
    svr->listen_after_bind();
    m.listen_done = true;
  });
  // Until the loop runs, cpp-httplib's stop() would not close the socket; wait for it.
  while (!svr->is_running() && !m.listen_done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::Ok();
}

Status HttpServer::Stop(std::chrono::milliseconds grace) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mu);
  if (!m.started || m.stopped) return Status::Ok();
  m.stopped = true;
  const auto deadline = Clock::now() + grace;
  m.stopping.store(true);  // requests not yet admitted are refused (see the pre-routing handler)
  m.server->stop();        // closes the listening socket: new connections are refused from here on
  // Requests being served finish and their responses are written.
  while (m.in_flight.load() > 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Idle keep-alive connections wait in cpp-httplib for their next request; a read shutdown
  // wakes them with end-of-stream. Every admitted request has been answered by now: a response
  // written after this point would not be sent (see tl_close_after_response).
  for (int fd : AcceptedConnections(m.bound)) ::shutdown(fd, SHUT_RD);
  bool cut = false;
  while (!m.listen_done && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!m.listen_done) {
    cut = true;
    for (int fd : AcceptedConnections(m.bound)) ::shutdown(fd, SHUT_RDWR);
  }
  m.listen_thread.join();
  if (cut)
    return Unavailable("HttpServer stop: connections still busy after the grace period were cut");
  return Status::Ok();
}

std::uint16_t HttpServer::port() const { return impl_->port.load(); }

bool HttpServer::tls() const { return impl_->options.tls.has_value(); }

std::string HttpServer::ServeRawForTesting(std::string_view raw) {
  Impl& m = *impl_;
  {
    std::lock_guard lock(m.mu);
    if (!m.Build().ok()) return std::string();
  }
  MemoryStream strm(raw);
  // As cpp-httplib's keep-alive loop would: one request after another until the input ends,
  // the connection is to be closed, or a request fails.
  for (std::size_t i = 0; i < 16 && !strm.exhausted(); ++i) {
    bool closed = false;
    if (!m.process_one(strm, closed) || closed) break;
  }
  return std::move(strm.output());
}

}  // namespace veil::net
