// A plain TCP connection to a loopback server, for bytes no client library would send: shared by
// the net/ tests and the hostile-client suite.
//
// Thread safety: one thread per object.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace veil::net {

// A plain TCP connection to 127.0.0.1:port, for bytes no client library would send.
class RawConnection {
 public:
  // source: the loopback address to connect from (127.0.0.0/8 is all loopback), so that tests
  // can play several client addresses.
  explicit RawConnection(std::uint16_t port, const char* source = nullptr)
      : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    if (source != nullptr) {
      sockaddr_in from{};
      from.sin_family = AF_INET;
      inet_pton(AF_INET, source, &from.sin_addr);
      bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof(from));
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    timeval tv{5, 0};  // a reply that never comes fails the test instead of hanging it
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  }
  ~RawConnection() { close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  void SetReceiveTimeout(int seconds) {
    timeval tv{seconds, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  bool Send(const std::string& bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // Everything until the server closes the connection (or 5 s pass).
  std::string ReadToEnd() {
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = recv(fd_, buf, sizeof(buf), 0)) > 0) out.append(buf, static_cast<std::size_t>(n));
    return out;
  }
  bool ReadByte(char* c) { return recv(fd_, c, 1, 0) == 1; }
  // One response: its headers and a body of Content-Length bytes.
  std::string ReadResponse() {
    std::string out;
    char c;
    while (out.find("\r\n\r\n") == std::string::npos && recv(fd_, &c, 1, 0) == 1) out += c;
    std::size_t length = 0;
    const auto at = out.find("Content-Length: ");
    if (at != std::string::npos) length = std::stoul(out.substr(at + 16));
    std::string body(length, '\0');
    std::size_t got = 0;
    while (got < length) {
      const ssize_t n = recv(fd_, body.data() + got, length - got, 0);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    return out + body.substr(0, got);
  }

 private:
  int fd_;
  bool connected_ = false;
};

}  // namespace veil::net
