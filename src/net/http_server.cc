// HttpServer (see http_server.h for the contract, docs/notes/net.md for the reasons).
//
// One event thread owns the listening socket and every connection: it accepts, runs TLS, reads a
// request until it is complete and writes responses, all non-blocking under epoll. Workers only
// ever see complete requests, so a slow, silent or hostile client holds a socket and a bounded
// buffer, never a worker. The protocol state of a connection lives in Session; Advance moves it
// forward from the bytes received, and both the event thread and ServeRawForTesting (fuzzing)
// drive it the same way.
//
// Why our own loop and not cpp-httplib's (which the client side still uses): cpp-httplib 0.11
// gives every connection a worker for its whole life, has no bound on the number of header
// fields, only a per-read timeout (so a byte every few seconds holds a worker forever), no cap
// per client, reads a GET's body as the next request, and waits with select() (more than 1024
// descriptors break it). libmicrohttpd has connection caps but no whole-head deadline and brings
// a second TLS library; the rules we need are few enough to state and test here.
#include "veil/net/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <unordered_map>

#include "http_wire.h"
#include "ssl_util.h"

namespace veil::net {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 16 * 1024;
// After a response that closes the connection, what the client still sends is read and dropped
// for this long (or this many bytes) before the socket closes: closing a socket with unread input
// sends a reset, which can destroy the response before the client reads it.
constexpr auto kLingerTime = std::chrono::milliseconds(2000);
constexpr std::size_t kMaxLingerBytes = 1 << 20;
constexpr std::uint64_t kListenerTag = 0;
constexpr std::uint64_t kWakeTag = 1;
constexpr std::size_t kMaxRawTestRequests = 16;

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
    case 500:
      return "internal error";
    default:
      return "HTTP error " + std::to_string(status);
  }
}

std::string IpString(const sockaddr_storage& peer, int* port) {
  char host[INET6_ADDRSTRLEN] = {};
  *port = 0;
  if (peer.ss_family == AF_INET) {
    sockaddr_in a;
    std::memcpy(&a, &peer, sizeof(a));
    inet_ntop(AF_INET, &a.sin_addr, host, sizeof(host));
    *port = ntohs(a.sin_port);
  } else if (peer.ss_family == AF_INET6) {
    sockaddr_in6 a;
    std::memcpy(&a, &peer, sizeof(a));
    inet_ntop(AF_INET6, &a.sin6_addr, host, sizeof(host));
    *port = ntohs(a.sin6_port);
  }
  return host;
}

// Bytes of request bodies being received, in all and per client address. Used by one thread.
class BodyBudget {
 public:
  BodyBudget(std::size_t total, std::size_t per_client) : total_(total), per_client_(per_client) {}
  bool Reserve(const std::string& client, std::size_t n) {
    std::size_t& mine = by_client_[client];
    if (used_ + n > total_ || mine + n > per_client_) {
      if (mine == 0) by_client_.erase(client);
      return false;
    }
    used_ += n;
    mine += n;
    return true;
  }
  void Release(const std::string& client, std::size_t n) {
    if (n == 0) return;
    used_ -= n;
    auto it = by_client_.find(client);
    if (it != by_client_.end() && (it->second -= n) == 0) by_client_.erase(it);
  }

 private:
  std::size_t total_;
  std::size_t per_client_;
  std::size_t used_ = 0;
  std::unordered_map<std::string, std::size_t> by_client_;
};

enum class Phase {
  kIdle,        // between requests on a keep-alive connection
  kHead,        // a request's head is arriving
  kBody,        // its body is arriving
  kProcessing,  // a worker has it
  kWriting,     // its response is leaving
  kDiscard,     // dropping the rest of a body that was refused with 413
  kLinger,      // the last response is out; dropping input until the client closes
};

enum class After { kNextRequest, kDiscard, kClose };

// What the driver of a Session must do next.
enum class Next { kRead, kDispatch, kWrite, kWait };

struct Session {
  Phase phase = Phase::kHead;
  std::string in;  // received and not yet consumed
  std::string out;
  std::size_t out_pos = 0;
  After after = After::kNextRequest;
  wire::RequestHead head;
  std::size_t head_size = 0;
  std::size_t scanned = 0;  // bytes of `in` already searched for a line end
  std::uint64_t discard_left = 0;
  std::size_t reserved = 0;  // body bytes held in the BodyBudget
  std::size_t served = 0;    // responses written on this connection
  int status = 0;            // of the response being written
  bool in_flight = false;    // counted in the server's in-flight requests
  Clock::time_point request_start;
  Clock::time_point deadline;  // of the phase
  bool pending_output() const { return out_pos < out.size(); }
};

struct Completion {
  std::uint64_t conn = 0;
  std::string bytes;
  After after = After::kNextRequest;
  int status = 0;
};

struct Job {
  std::uint64_t conn = 0;
  HttpRequest request;
  After after = After::kNextRequest;
};

// A queue of jobs and the threads that run them.
class WorkerPool {
 public:
  void Start(std::size_t threads, std::function<void(Job&)> run) {
    run_ = std::move(run);
    for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
  }
  void Push(Job job) {
    {
      std::lock_guard lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  // Jobs not yet started are dropped; running ones finish.
  void StopAndJoin() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      jobs_.clear();
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void Work() {
    while (true) {
      Job job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (stop_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      run_(job);
    }
  }
  std::function<void(Job&)> run_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

struct SslCtxDeleter {
  void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
};

}  // namespace

std::string ClientAddressKey(std::string_view ip, int ipv6_prefix_bits) {
  const std::string text(ip.substr(0, std::min<std::size_t>(ip.find('%'), 64)));
  char out[INET6_ADDRSTRLEN] = {};
  in_addr v4;
  if (ip.size() < 64 && inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    inet_ntop(AF_INET, &v4, out, sizeof(out));
    return out;
  }
  in6_addr v6;
  if (ip.size() >= 64 || inet_pton(AF_INET6, text.c_str(), &v6) != 1) {
    return "?" + std::string(ip.substr(0, 64));
  }
  if (IN6_IS_ADDR_V4MAPPED(&v6)) {
    std::memcpy(&v4, &v6.s6_addr[12], 4);
    inet_ntop(AF_INET, &v4, out, sizeof(out));
    return out;
  }
  const int bits = std::clamp(ipv6_prefix_bits, 0, 128);
  for (int i = 0; i < 16; ++i) {
    const int keep = std::clamp(bits - 8 * i, 0, 8);
    v6.s6_addr[i] &= static_cast<std::uint8_t>(0xff00u >> keep);
  }
  inet_ntop(AF_INET6, &v6, out, sizeof(out));
  return std::string(out) + "/" + std::to_string(bits);
}

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() && std::equal(k.begin(), k.end(), name.begin(), [](char x, char y) {
          return std::tolower(static_cast<unsigned char>(x)) ==
                 std::tolower(static_cast<unsigned char>(y));
        })) {
      return v;
    }
  }
  return std::string();
}

struct HttpServer::Impl {
  HttpServerOptions options;
  std::shared_ptr<MetricsRegistry> metrics;
  std::map<std::pair<std::string, std::string>, HttpHandler> routes;  // (method, path)
  std::set<std::string> route_paths;
  std::function<Status()> health_check;
  wire::HeadLimits head_limits;
  std::size_t per_client_body_budget = 0;
  std::uint64_t max_discard = 0;

  std::mutex mu;  // Start and Stop
  bool started = false;
  bool stopped = false;
  std::atomic<std::uint16_t> port{0};

  // Shared with the event thread.
  std::atomic<bool> stopping{false};  // refuse requests not yet handed to a worker
  std::atomic<bool> closing{false};   // close every connection that is not writing
  std::atomic<bool> cut{false};       // close every connection
  std::atomic<bool> loop_done{false};
  std::atomic<int> in_flight{0};
  Gauge* in_flight_gauge = nullptr;
  Gauge* connections_gauge = nullptr;

  // Owned by the event thread once it runs.
  struct Conn {
    std::uint64_t id = 0;
    int fd = -1;
    SSL* ssl = nullptr;
    bool handshake_done = false;
    bool ssl_wants_read = false;   // the last TLS call needs the socket readable
    bool ssl_wants_write = false;  // ... or writable
    std::string ip;
    int port = 0;
    std::string client;
    Session s;
    std::uint32_t interest = 0;
    bool dead = false;
    Clock::time_point last_read;
    Clock::time_point last_write;
    Clock::time_point write_deadline;
    std::size_t lingered = 0;
  };
  int listen_fd = -1;
  int epoll_fd = -1;
  int wake_fd = -1;
  bool listener_open = false;
  Clock::time_point listener_paused_until{};
  std::unique_ptr<SSL_CTX, SslCtxDeleter> ssl_ctx;
  std::unordered_map<std::uint64_t, std::unique_ptr<Conn>> conns;
  std::unordered_map<std::string, std::size_t> conns_per_client;
  std::size_t open_conns = 0;
  std::uint64_t next_conn_id = 2;
  std::unique_ptr<BodyBudget> budget;
  std::thread loop_thread;

  WorkerPool workers;
  WorkerPool control;  // /health and /metrics
  std::mutex completions_mu;
  std::vector<Completion> completions;

  // ---- protocol (no I/O) ----
  Next Advance(Session& s, const std::string& client, Clock::time_point now, BodyBudget& budget,
               HttpRequest* request, After* after);
  void Respond(Session& s, int status, std::string_view message,
               const std::vector<std::pair<std::string, std::string>>& fields, After after,
               Clock::time_point now);
  void Written(Session& s, Clock::time_point now);
  Completion Serve(Job& job);
  void Record(const Session& s, Clock::time_point now);

  // ---- event thread ----
  Status Listen();
  void Loop();
  void AcceptAll(Clock::time_point now);
  void Pump(Conn& c, Clock::time_point now);
  bool Handshake(Conn& c);
  enum class Io { kProgress, kBlocked, kEof, kError };
  Io ReadSome(Conn& c, std::size_t max);
  Io WriteSome(Conn& c);
  void Dispatch(Conn& c, HttpRequest request, After after);
  void TakeCompletions(Clock::time_point now);
  void CheckDeadlines(Clock::time_point now);
  void BeginLinger(Conn& c, Clock::time_point now);
  void Close(Conn& c);
  void UpdateInterest(Conn& c);
  void RefuseConnection(int fd, std::string_view reason, std::string_view message);
  bool EvictIdle();
  void Wake() const;
  std::size_t ReadAllowance(const Session& s) const;
};

// ---- protocol ----

Next HttpServer::Impl::Advance(Session& s, const std::string& client, Clock::time_point now,
                               BodyBudget& bodies, HttpRequest* request, After* after) {
  while (true) {
    switch (s.phase) {
      case Phase::kIdle:
        if (s.in.empty()) return Next::kRead;
        s.phase = Phase::kHead;
        s.request_start = now;
        s.deadline = now + options.head_timeout;
        s.scanned = 0;
        [[fallthrough]];
      case Phase::kHead: {
        // Parse again only when a line has ended since the last try (or a limit is reached), so
        // that a head arriving a byte at a time costs a parse per line, not per byte.
        if (s.in.size() < head_limits.max_head_bytes) {
          const std::size_t from = s.scanned;
          s.scanned = s.in.size();
          const bool new_line = s.in.find('\n', from) != std::string::npos;
          const bool long_first_line = s.in.size() > head_limits.max_target_bytes + 32 &&
                                       s.in.find('\n') == std::string::npos;
          if (!new_line && !long_first_line) return Next::kRead;
        }
        wire::Refusal refusal;
        switch (wire::ParseRequestHead(s.in, head_limits, &s.head, &s.head_size, &refusal)) {
          case wire::HeadStatus::kIncomplete:
            return Next::kRead;
          case wire::HeadStatus::kRefused:
            Respond(s, refusal.status, refusal.message, refusal.fields, After::kClose, now);
            return Next::kWrite;
          case wire::HeadStatus::kComplete:
            break;
        }
        if (stopping.load()) {
          Respond(s, 503, "the server is stopping", {}, After::kClose, now);
          return Next::kWrite;
        }
        const std::uint64_t length = s.head.content_length;
        // A refusal before the body is read. Without Expect: 100-continue the client is sending
        // the body already: it is dropped and the connection kept when that is cheap enough
        // (closing with unread input would send a reset, which can destroy the refusal).
        auto refuse_body = [&](int status, const std::string& message) {
          const std::uint64_t have = s.in.size() - s.head_size;
          After then = After::kClose;
          if (!s.head.expect_continue && s.head.keep_alive && length <= max_discard) {
            const std::uint64_t now_dropped = std::min<std::uint64_t>(have, length);
            s.in.erase(0, s.head_size + now_dropped);
            s.head_size = 0;
            s.discard_left = length - now_dropped;
            then = After::kDiscard;
          }
          Respond(s, status, message, {}, then, now);
          return Next::kWrite;
        };
        if (length > options.max_body_bytes) {
          return refuse_body(413, DefaultMessage(413, options.max_body_bytes));
        }
        if (length > 0) {
          if (!bodies.Reserve(client, length)) {
            return refuse_body(503, "the server is receiving too many request bodies: retry later");
          }
          s.reserved = length;
        }
        s.phase = Phase::kBody;
        s.deadline = s.request_start + options.request_timeout;
        if (s.head.expect_continue && s.in.size() - s.head_size < length) {
          s.out.append("HTTP/1.1 100 Continue\r\n\r\n");
        }
        [[fallthrough]];
      }
      case Phase::kBody: {
        const std::size_t need = s.head_size + s.head.content_length;
        if (s.in.size() < need) return Next::kRead;
        request->method = s.head.method;
        request->path = s.head.path;
        request->target = s.head.target;
        request->headers = s.head.fields;
        if (s.in.size() == need) {
          request->body = std::move(s.in);
          request->body.erase(0, s.head_size);
          s.in = std::string();
        } else {
          request->body.assign(s.in, s.head_size, s.head.content_length);
          s.in.erase(0, need);
        }
        s.scanned = 0;
        *after = s.head.keep_alive && s.served + 1 < options.keep_alive_max_requests
                     ? After::kNextRequest
                     : After::kClose;
        s.phase = Phase::kProcessing;
        return Next::kDispatch;
      }
      case Phase::kDiscard: {
        const std::uint64_t n = std::min<std::uint64_t>(s.discard_left, s.in.size());
        s.in.erase(0, n);
        s.scanned = 0;
        s.discard_left -= n;
        if (s.discard_left > 0) return Next::kRead;
        s.phase = Phase::kIdle;
        s.deadline = now + options.keep_alive_timeout;
        continue;
      }
      case Phase::kLinger:
        s.in.clear();
        return Next::kRead;
      case Phase::kProcessing:
        return Next::kWait;
      case Phase::kWriting:
        return Next::kWrite;
    }
  }
}

void HttpServer::Impl::Respond(Session& s, int status, std::string_view message,
                               const std::vector<std::pair<std::string, std::string>>& fields,
                               After after, Clock::time_point now) {
  s.out.append(wire::SerializeResponse(status, "application/json", fields,
                                       wire::JsonErrorBody(status, message),
                                       s.head.method == "HEAD", after == After::kClose));
  s.after = after;
  s.status = status;
  s.phase = Phase::kWriting;
  if (s.request_start == Clock::time_point{}) s.request_start = now;
}

// The response is out: count it and move to what comes after it.
void HttpServer::Impl::Written(Session& s, Clock::time_point now) {
  Record(s, now);
  s.out.clear();
  s.out_pos = 0;
  ++s.served;
  switch (s.after) {
    case After::kNextRequest:
      s.phase = Phase::kIdle;
      s.deadline = now + options.keep_alive_timeout;
      s.head = wire::RequestHead{};
      s.request_start = Clock::time_point{};
      if (s.in.capacity() > 4 * kReadChunk) s.in = std::string(s.in);  // give back a body's room
      break;
    case After::kDiscard:
      s.phase = Phase::kDiscard;
      s.deadline = s.request_start + options.request_timeout;
      break;
    case After::kClose:
      s.phase = Phase::kLinger;
      s.deadline = now + kLingerTime;
      break;
  }
}

void HttpServer::Impl::Record(const Session& s, Clock::time_point now) {
  const std::string route = route_paths.count(s.head.path) ? s.head.path : "other";
  const std::string& m = s.head.method;
  const std::string method = m == "GET" || m == "POST" || m == "HEAD" ? m : std::string("other");
  metrics
      ->GetCounter("veil_http_requests_total", "HTTP responses by route, method and status",
                   {{"route", route}, {"method", method}, {"code", std::to_string(s.status)}})
      .Inc();
  if (s.status >= 400) {
    metrics
        ->GetCounter("veil_http_request_errors_total",
                     "HTTP responses with a status of 400 or more, by route and method",
                     {{"route", route}, {"method", method}})
        .Inc();
  }
  metrics
      ->GetHistogram("veil_http_request_duration_seconds",
                     "HTTP request latency in seconds, first byte read to response written",
                     {{"route", route}, {"method", method}})
      .Observe(std::chrono::duration<double>(now - s.request_start).count());
}

// On a worker: the handler's response, serialized.
Completion HttpServer::Impl::Serve(Job& job) {
  HttpRequest& req = job.request;
  const bool head_only = req.method == "HEAD";
  HttpResponse out;
  const std::string method = head_only ? "GET" : req.method;
  try {
    if (method == "GET" && req.path == "/health") {
      Status s = health_check ? health_check() : Status::Ok();
      nlohmann::json body = {{"status", s.ok() ? "ok" : "unavailable"}};
      if (!s.ok()) body["message"] = s.ToString();
      out.status = s.ok() ? 200 : 503;
      out.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    } else if (method == "GET" && req.path == "/metrics") {
      out.content_type = std::string(kPrometheusContentType);
      out.body = metrics->RenderPrometheus();
    } else if (auto it = routes.find({method, req.path}); it != routes.end()) {
      it->second(req, out);
    } else {
      out.status = 404;
    }
  } catch (...) {
    // What went wrong stays in the process: the text of an exception may hold anything.
    out = HttpResponse{};
    out.status = 500;
  }
  if (out.status < 100 || out.status > 599) {
    out = HttpResponse{};
    out.status = 500;
  }
  if (out.status >= 400 && out.body.empty()) {
    out.content_type = "application/json";
    out.body = wire::JsonErrorBody(out.status, DefaultMessage(out.status, options.max_body_bytes));
  }
  Completion c;
  c.conn = job.conn;
  c.after = job.after;
  c.status = out.status;
  c.bytes = wire::SerializeResponse(out.status, out.content_type, out.headers, out.body, head_only,
                                    job.after == After::kClose);
  return c;
}

// ---- event thread ----

Status HttpServer::Impl::Listen() {
  const std::string where = options.host + ":" + std::to_string(options.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(options.port);
  if (getaddrinfo(options.host.c_str(), port_text.c_str(), &hints, &found) != 0) {
    return Unavailable("cannot listen on " + where + ": unknown host");
  }
  int err = 0;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    // SO_REUSEADDR only: SO_REUSEPORT would let another process of the same user bind the same
    // port and take a share of our connections.
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 512) == 0) {
      listen_fd = fd;
      break;
    }
    err = errno;
    ::close(fd);
  }
  freeaddrinfo(found);
  if (listen_fd < 0) return Unavailable("cannot listen on " + where + ": " + std::strerror(err));
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  getsockname(listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
  int bound_port = 0;
  IpString(bound, &bound_port);
  port = static_cast<std::uint16_t>(bound_port);
  return Status::Ok();
}

void HttpServer::Impl::Wake() const {
  const std::uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd, &one, sizeof(one));
}

std::size_t HttpServer::Impl::ReadAllowance(const Session& s) const {
  switch (s.phase) {
    case Phase::kIdle:
    case Phase::kHead:
      return s.in.size() >= head_limits.max_head_bytes
                 ? 0
                 : std::min(kReadChunk, head_limits.max_head_bytes - s.in.size());
    case Phase::kBody: {
      const std::size_t need = s.head_size + s.head.content_length;
      return s.in.size() >= need ? 0 : std::min<std::size_t>(4 * kReadChunk, need - s.in.size());
    }
    case Phase::kDiscard:
      return static_cast<std::size_t>(std::min<std::uint64_t>(4 * kReadChunk, s.discard_left));
    case Phase::kLinger:
      return kReadChunk;
    case Phase::kProcessing:
    case Phase::kWriting:
      return 0;
  }
  return 0;
}

HttpServer::Impl::Io HttpServer::Impl::ReadSome(Conn& c, std::size_t max) {
  std::string& in = c.s.in;
  const std::size_t old = in.size();
  in.resize(old + max);
  ssize_t n;
  if (c.ssl != nullptr && c.s.phase != Phase::kLinger) {
    c.ssl_wants_read = c.ssl_wants_write = false;
    n = SSL_read(c.ssl, in.data() + old, static_cast<int>(max));
    if (n <= 0) {
      in.resize(old);
      switch (SSL_get_error(c.ssl, static_cast<int>(n))) {
        case SSL_ERROR_WANT_READ:
          c.ssl_wants_read = true;
          return Io::kBlocked;
        case SSL_ERROR_WANT_WRITE:
          c.ssl_wants_write = true;
          return Io::kBlocked;
        case SSL_ERROR_ZERO_RETURN:
          return Io::kEof;
        default:
          ERR_clear_error();
          return Io::kError;
      }
    }
  } else {
    do {
      n = ::recv(c.fd, in.data() + old, max, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      in.resize(old);
      if (n == 0) return Io::kEof;
      return errno == EAGAIN || errno == EWOULDBLOCK ? Io::kBlocked : Io::kError;
    }
  }
  in.resize(old + static_cast<std::size_t>(n));
  return Io::kProgress;
}

HttpServer::Impl::Io HttpServer::Impl::WriteSome(Conn& c) {
  Session& s = c.s;
  const char* data = s.out.data() + s.out_pos;
  const std::size_t left = s.out.size() - s.out_pos;
  ssize_t n;
  if (c.ssl != nullptr) {
    c.ssl_wants_read = c.ssl_wants_write = false;
    n = SSL_write(c.ssl, data, static_cast<int>(std::min<std::size_t>(left, 1 << 30)));
    if (n <= 0) {
      switch (SSL_get_error(c.ssl, static_cast<int>(n))) {
        case SSL_ERROR_WANT_WRITE:
          c.ssl_wants_write = true;
          return Io::kBlocked;
        case SSL_ERROR_WANT_READ:
          c.ssl_wants_read = true;
          return Io::kBlocked;
        default:
          ERR_clear_error();
          return Io::kError;
      }
    }
  } else {
    do {
      n = ::send(c.fd, data, left, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? Io::kBlocked : Io::kError;
  }
  s.out_pos += static_cast<std::size_t>(n);
  return Io::kProgress;
}

bool HttpServer::Impl::Handshake(Conn& c) {
  c.ssl_wants_read = c.ssl_wants_write = false;
  const int r = SSL_do_handshake(c.ssl);
  if (r == 1) {
    c.handshake_done = true;
    return true;
  }
  switch (SSL_get_error(c.ssl, r)) {
    case SSL_ERROR_WANT_READ:
      c.ssl_wants_read = true;
      return false;
    case SSL_ERROR_WANT_WRITE:
      c.ssl_wants_write = true;
      return false;
    default:
      ERR_clear_error();
      Close(c);
      return false;
  }
}

void HttpServer::Impl::UpdateInterest(Conn& c) {
  if (c.dead) return;
  std::uint32_t want = 0;
  if (c.s.phase != Phase::kProcessing) {
    if (c.ssl_wants_read) want |= EPOLLIN;
    if (c.ssl_wants_write || c.s.pending_output()) want |= EPOLLOUT;
    if (c.s.phase != Phase::kWriting && ReadAllowance(c.s) > 0) want |= EPOLLIN;
  }
  if (want == c.interest) return;
  epoll_event ev{};
  ev.events = want;
  ev.data.u64 = c.id;
  epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
  c.interest = want;
}

void HttpServer::Impl::Close(Conn& c) {
  if (c.dead) return;
  c.dead = true;
  epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
  if (c.ssl != nullptr) {
    SSL_free(c.ssl);
    c.ssl = nullptr;
    ERR_clear_error();
  }
  ::close(c.fd);
  if (auto it = conns_per_client.find(c.client); it != conns_per_client.end()) {
    if (--it->second == 0) conns_per_client.erase(it);
  }
  budget->Release(c.client, c.s.reserved);
  c.s.reserved = 0;
  if (c.s.in_flight) {
    c.s.in_flight = false;
    in_flight.fetch_sub(1);
    in_flight_gauge->Dec();
  }
  --open_conns;
  connections_gauge->Dec();
}

void HttpServer::Impl::BeginLinger(Conn& c, Clock::time_point now) {
  if (c.ssl != nullptr) {
    SSL_shutdown(c.ssl);  // close_notify, best effort
    ERR_clear_error();
  }
  ::shutdown(c.fd, SHUT_WR);
  c.s.phase = Phase::kLinger;
  c.s.deadline = now + kLingerTime;
  c.ssl_wants_read = c.ssl_wants_write = false;
}

void HttpServer::Impl::Dispatch(Conn& c, HttpRequest request, After after) {
  c.s.in_flight = true;
  in_flight.fetch_add(1);
  in_flight_gauge->Inc();
  request.remote_addr = c.ip;
  request.remote_port = c.port;
  const bool builtin = (request.method == "GET" || request.method == "HEAD") &&
                       (request.path == "/health" || request.path == "/metrics");
  Job job{c.id, std::move(request), after};
  (builtin ? control : workers).Push(std::move(job));
}

// Moves a connection as far as its bytes allow: handshake, write, read, parse, dispatch.
void HttpServer::Impl::Pump(Conn& c, Clock::time_point now) {
  for (int round = 0; round < 64 && !c.dead; ++round) {
    if (c.ssl != nullptr && !c.handshake_done && c.s.phase != Phase::kLinger) {
      if (!Handshake(c)) break;
    }
    bool progressed = false;
    if (c.s.pending_output()) {
      const Io w = WriteSome(c);
      if (w == Io::kError) {
        Close(c);
        return;
      }
      if (w == Io::kProgress) {
        progressed = true;
        c.last_write = now;
      }
      if (!c.s.pending_output()) {
        if (c.s.phase == Phase::kWriting) {
          const bool was_in_flight = c.s.in_flight;
          Written(c.s, now);
          if (was_in_flight) {
            c.s.in_flight = false;
            in_flight.fetch_sub(1);
            in_flight_gauge->Dec();
          }
          if (c.s.phase == Phase::kLinger) BeginLinger(c, now);
        } else {
          c.s.out.clear();
          c.s.out_pos = 0;
        }
      }
    }
    if (c.s.phase == Phase::kWriting || c.s.phase == Phase::kProcessing) break;
    if (const std::size_t allowance = ReadAllowance(c.s); allowance > 0) {
      const Io r = ReadSome(c, allowance);
      if (r == Io::kError || r == Io::kEof) {
        Close(c);  // the client is gone, or closed mid-request: nothing to answer
        return;
      }
      if (r == Io::kProgress) {
        progressed = true;
        c.last_read = now;
        if (c.s.phase == Phase::kLinger && (c.lingered += c.s.in.size()) > kMaxLingerBytes) {
          Close(c);
          return;
        }
      }
    }
    HttpRequest request;
    After after = After::kNextRequest;
    const Next next = Advance(c.s, c.client, now, *budget, &request, &after);
    if (next == Next::kDispatch) {
      Dispatch(c, std::move(request), after);
      break;
    }
    if (next == Next::kWrite) {
      c.write_deadline = now + options.request_timeout;
      c.last_write = now;
      progressed = true;
    }
    if (!progressed) break;
  }
  UpdateInterest(c);
}

void HttpServer::Impl::TakeCompletions(Clock::time_point now) {
  std::vector<Completion> done;
  {
    std::lock_guard lock(completions_mu);
    done.swap(completions);
  }
  for (Completion& d : done) {
    auto it = conns.find(d.conn);
    if (it == conns.end() || it->second->dead) continue;  // gone: Close settled its counts
    Conn& c = *it->second;
    budget->Release(c.client, c.s.reserved);
    c.s.reserved = 0;
    c.s.out.append(d.bytes);
    c.s.after = d.after;
    c.s.status = d.status;
    c.s.phase = Phase::kWriting;
    c.write_deadline = now + options.request_timeout;
    c.last_write = now;
    Pump(c, now);
  }
}

void HttpServer::Impl::RefuseConnection(int fd, std::string_view reason, std::string_view message) {
  metrics
      ->GetCounter("veil_http_connections_refused_total", "connections closed at accept, by reason",
                   {{"reason", std::string(reason)}})
      .Inc();
  if (!options.tls) {
    const std::string bytes = wire::SerializeResponse(
        503, "application/json", {}, wire::JsonErrorBody(503, message), false, true);
    [[maybe_unused]] ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
  }
  ::close(fd);
}

bool HttpServer::Impl::EvictIdle() {
  Conn* oldest = nullptr;
  for (auto& [id, c] : conns) {
    if (c->dead || c->s.phase != Phase::kIdle || !c->s.in.empty()) continue;
    if (oldest == nullptr || c->s.deadline < oldest->s.deadline) oldest = c.get();
  }
  if (oldest == nullptr) return false;
  Close(*oldest);
  return true;
}

void HttpServer::Impl::AcceptAll(Clock::time_point now) {
  while (listener_open) {
    sockaddr_storage peer{};
    socklen_t len = sizeof(peer);
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: stop accepting for a moment instead of spinning on the listener.
        epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
        listener_paused_until = now + std::chrono::milliseconds(100);
        metrics
            ->GetCounter("veil_http_connections_refused_total",
                         "connections closed at accept, by reason", {{"reason", "descriptors"}})
            .Inc();
      }
      return;
    }
    int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    auto c = std::make_unique<Conn>();
    c->ip = IpString(peer, &c->port);
    c->client = ClientAddressKey(c->ip);
    if (auto it = conns_per_client.find(c->client);
        it != conns_per_client.end() && it->second >= options.max_connections_per_client) {
      RefuseConnection(fd, "per_client", "too many connections from this client address");
      continue;
    }
    if (open_conns >= options.max_connections && !EvictIdle()) {
      RefuseConnection(fd, "server_full", "the server is at its connection limit: retry later");
      continue;
    }
    c->id = next_conn_id++;
    c->fd = fd;
    if (ssl_ctx) {
      c->ssl = SSL_new(ssl_ctx.get());
      if (c->ssl == nullptr || SSL_set_fd(c->ssl, fd) != 1) {
        ERR_clear_error();
        if (c->ssl != nullptr) SSL_free(c->ssl);
        ::close(fd);
        continue;
      }
      SSL_set_accept_state(c->ssl);
    }
    // The first request's head is due within head_timeout of the accept.
    c->s.phase = Phase::kHead;
    c->s.request_start = now;
    c->s.deadline = now + options.head_timeout;
    c->last_read = now;
    ++conns_per_client[c->client];
    ++open_conns;
    connections_gauge->Inc();
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = c->id;
    c->interest = EPOLLIN;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    Conn& ref = *c;
    conns.emplace(ref.id, std::move(c));
    Pump(ref, now);
  }
}

void HttpServer::Impl::CheckDeadlines(Clock::time_point now) {
  auto timeout = [&](Conn& c, const char* phase) {
    metrics
        ->GetCounter("veil_http_timeouts_total", "connections timed out, by phase",
                     {{"phase", phase}})
        .Inc();
    if ((c.s.phase == Phase::kHead || c.s.phase == Phase::kBody) &&
        (c.ssl == nullptr || c.handshake_done)) {
      budget->Release(c.client, c.s.reserved);
      c.s.reserved = 0;
      Respond(c.s, 408, "the request did not arrive in time", {}, After::kClose, now);
      c.write_deadline = now + options.write_timeout;
      c.last_write = now;
      Pump(c, now);
    } else {
      Close(c);
    }
  };
  for (auto& [id, cp] : conns) {
    Conn& c = *cp;
    if (c.dead) continue;
    switch (c.s.phase) {
      case Phase::kIdle:
        if (now >= c.s.deadline) Close(c);
        break;
      case Phase::kHead:
        if (now >= c.s.deadline || now >= c.last_read + options.read_timeout) timeout(c, "head");
        break;
      case Phase::kBody:
        if (now >= c.s.deadline || now >= c.last_read + options.read_timeout) timeout(c, "body");
        break;
      case Phase::kDiscard:
        if (now >= c.s.deadline || now >= c.last_read + options.read_timeout) Close(c);
        break;
      case Phase::kWriting:
        if (now >= c.write_deadline || now >= c.last_write + options.write_timeout) {
          timeout(c, "write");
        }
        break;
      case Phase::kLinger:
        if (now >= c.s.deadline) Close(c);
        break;
      case Phase::kProcessing:
        break;
    }
  }
}

void HttpServer::Impl::Loop() {
  // The only thread that writes to sockets: a peer that vanished makes a write fail with EPIPE
  // instead of killing the process with SIGPIPE (TLS writes cannot pass MSG_NOSIGNAL).
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);

  epoll_event events[128];
  Clock::time_point next_check = Clock::now();
  while (true) {
    const int n = epoll_wait(epoll_fd, events, 128, 25);
    const Clock::time_point now = Clock::now();
    for (int i = 0; i < n; ++i) {
      const std::uint64_t tag = events[i].data.u64;
      if (tag == kListenerTag) {
        AcceptAll(now);
      } else if (tag == kWakeTag) {
        std::uint64_t count;
        [[maybe_unused]] ssize_t r = ::read(wake_fd, &count, sizeof(count));
      } else if (auto it = conns.find(tag); it != conns.end() && !it->second->dead) {
        Conn& c = *it->second;
        if (c.s.phase == Phase::kProcessing) {
          // Only a hang-up or an error is reported with no interest: the client is gone.
          if (events[i].events & (EPOLLERR | EPOLLHUP)) Close(c);
        } else {
          Pump(c, now);
        }
      }
    }
    TakeCompletions(now);
    if (stopping.load() && listener_open) {
      epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
      ::close(listen_fd);
      listen_fd = -1;
      listener_open = false;
    }
    if (listener_open && listener_paused_until != Clock::time_point{} &&
        now >= listener_paused_until) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = kListenerTag;
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev);
      listener_paused_until = Clock::time_point{};
    }
    if (cut.load()) {
      for (auto& [id, c] : conns) Close(*c);
    } else if (closing.load()) {
      for (auto& [id, c] : conns) {
        if (c->s.phase != Phase::kWriting) Close(*c);
      }
    }
    if (now >= next_check) {
      CheckDeadlines(now);
      next_check = now + std::chrono::milliseconds(50);
    }
    for (auto it = conns.begin(); it != conns.end();) {
      it = it->second->dead ? conns.erase(it) : std::next(it);
    }
    if ((closing.load() || cut.load()) && conns.empty()) break;
  }
  loop_done.store(true);
}

HttpServer::HttpServer(HttpServerOptions options, std::shared_ptr<MetricsRegistry> metrics)
    : impl_(std::make_unique<Impl>()),
      metrics_(metrics ? std::move(metrics) : std::make_shared<MetricsRegistry>()) {
  Impl& m = *impl_;
  m.options = std::move(options);
  m.metrics = metrics_;
  m.in_flight_gauge =
      &metrics_->GetGauge("veil_http_in_flight_requests",
                          "HTTP requests being served (request read, response not yet written)");
  m.connections_gauge = &metrics_->GetGauge("veil_http_open_connections", "open HTTP connections");
  m.route_paths = {"/health", "/metrics"};
  m.head_limits.max_head_bytes = std::max<std::size_t>(m.options.max_head_bytes, 256);
  m.head_limits.max_target_bytes = std::min<std::size_t>(8 * 1024, m.head_limits.max_head_bytes);
  m.head_limits.max_fields = std::max<std::size_t>(m.options.max_header_fields, 1);
  m.options.max_buffered_body_bytes =
      std::max(m.options.max_buffered_body_bytes, m.options.max_body_bytes);
  m.per_client_body_budget =
      std::max(m.options.max_body_bytes, m.options.max_buffered_body_bytes / 4);
  // A refused body is read and dropped, keeping the connection, up to four times the limit.
  m.max_discard = 4 * static_cast<std::uint64_t>(m.options.max_body_bytes);
  m.options.max_connections = std::max<std::size_t>(m.options.max_connections, 1);
  m.options.max_connections_per_client =
      std::max<std::size_t>(m.options.max_connections_per_client, 1);
  m.options.worker_threads = std::max<std::size_t>(m.options.worker_threads, 1);
  m.options.keep_alive_max_requests = std::max<std::size_t>(m.options.keep_alive_max_requests, 1);
}

HttpServer::~HttpServer() { Stop().IgnoreError(); }

void HttpServer::Handle(std::string method, std::string path, HttpHandler handler) {
  VEIL_CHECK_MSG(method == "GET" || method == "POST", "HttpServer routes are GET or POST");
  VEIL_CHECK_MSG(!path.empty() && path[0] == '/', "HttpServer paths start with '/'");
  VEIL_CHECK_MSG(path != "/health" && path != "/metrics", "/health and /metrics are built in");
  VEIL_CHECK_MSG(handler != nullptr, "HttpServer handler must not be empty");
  std::lock_guard lock(impl_->mu);
  VEIL_CHECK_MSG(!impl_->started, "HttpServer::Handle after Start");
  impl_->route_paths.insert(path);
  bool inserted =
      impl_->routes.try_emplace({std::move(method), std::move(path)}, std::move(handler)).second;
  VEIL_CHECK_MSG(inserted, "HttpServer route registered twice");
}

void HttpServer::SetHealthCheck(std::function<Status()> check) {
  std::lock_guard lock(impl_->mu);
  VEIL_CHECK_MSG(!impl_->started, "HttpServer::SetHealthCheck after Start");
  impl_->health_check = std::move(check);
}

Status HttpServer::Start() {
  Impl& m = *impl_;
  std::lock_guard lock(m.mu);
  if (m.started) return FailedPrecondition("HttpServer already started");
  if (m.options.tls) {
    m.ssl_ctx.reset(SSL_CTX_new(TLS_server_method()));
    if (!m.ssl_ctx) return Internal("cannot create the TLS server context");
    Status setup =
        ConfigureServerContext(m.ssl_ctx.get(), m.options.tls->cert_pem, m.options.tls->key_pem);
    if (!setup.ok()) {
      m.ssl_ctx.reset();
      return setup;
    }
    SSL_CTX_set_mode(m.ssl_ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE |
                                          SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                          SSL_MODE_RELEASE_BUFFERS);
  }
  VEIL_RETURN_IF_ERROR(m.Listen());
  m.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  m.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (m.epoll_fd < 0 || m.wake_fd < 0) {
    ::close(m.listen_fd);
    return Internal("cannot create the server's event loop");
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenerTag;
  epoll_ctl(m.epoll_fd, EPOLL_CTL_ADD, m.listen_fd, &ev);
  ev.data.u64 = kWakeTag;
  epoll_ctl(m.epoll_fd, EPOLL_CTL_ADD, m.wake_fd, &ev);
  m.listener_open = true;
  m.budget =
      std::make_unique<BodyBudget>(m.options.max_buffered_body_bytes, m.per_client_body_budget);
  auto run = [&m](Job& job) {
    if (m.cut.load()) return;  // its connection is being cut: no effect without a reply
    Completion c = m.Serve(job);
    {
      std::lock_guard guard(m.completions_mu);
      m.completions.push_back(std::move(c));
    }
    m.Wake();
  };
  m.workers.Start(m.options.worker_threads, run);
  m.control.Start(1, run);
  m.started = true;
  m.loop_thread = std::thread([&m] { m.Loop(); });
  return Status::Ok();
}

Status HttpServer::Stop(std::chrono::milliseconds grace) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mu);
  if (!m.started || m.stopped) return Status::Ok();
  m.stopped = true;
  const auto deadline = Clock::now() + grace;
  // From here the event thread closes the listener and refuses every request it has not yet
  // handed to a worker (503): a request read now could not be sure of its reply.
  m.stopping.store(true);
  m.Wake();
  while (m.in_flight.load() > 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  bool cut = m.in_flight.load() > 0;
  if (!cut) {
    m.closing.store(true);  // every response is out: close the connections
    m.Wake();
    while (!m.loop_done.load() && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    cut = !m.loop_done.load();
  }
  if (cut) {
    m.cut.store(true);
    m.Wake();
  }
  m.loop_thread.join();
  m.workers.StopAndJoin();
  m.control.StopAndJoin();
  ::close(m.epoll_fd);
  ::close(m.wake_fd);
  if (m.listen_fd >= 0) ::close(m.listen_fd);
  if (cut) {
    return Unavailable("HttpServer stop: connections still busy after the grace period were cut");
  }
  return Status::Ok();
}

std::uint16_t HttpServer::port() const { return impl_->port.load(); }

bool HttpServer::tls() const { return impl_->options.tls.has_value(); }

std::string HttpServer::ServeRawForTesting(std::string_view raw) {
  Impl& m = *impl_;
  BodyBudget budget(m.options.max_buffered_body_bytes, m.per_client_body_budget);
  Session s;
  s.in.assign(raw);
  std::string out;
  const std::string client = "127.0.0.1";
  std::size_t requests = 0;
  while (requests < kMaxRawTestRequests) {
    const Clock::time_point now = Clock::now();
    if (s.phase == Phase::kHead && s.request_start == Clock::time_point{}) s.request_start = now;
    HttpRequest request;
    After after = After::kNextRequest;
    const Next next = m.Advance(s, client, now, budget, &request, &after);
    out.append(s.out, s.out_pos);  // a 100 Continue, or a response Advance wrote
    s.out_pos = s.out.size();
    if (next == Next::kDispatch) {
      ++requests;
      request.remote_addr = client;
      Job job{0, std::move(request), after};
      Completion c = m.Serve(job);
      budget.Release(client, s.reserved);
      s.reserved = 0;
      out.append(c.bytes);
      s.after = c.after;
      s.status = c.status;
      s.phase = Phase::kWriting;
      s.out.clear();
      s.out_pos = 0;
    } else if (next != Next::kWrite) {
      break;  // the input ends inside a request
    }
    if (s.phase == Phase::kWriting) {
      m.Written(s, now);
      if (s.phase == Phase::kLinger) break;
    }
  }
  return out;
}

}  // namespace veil::net
