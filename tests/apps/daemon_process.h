// A daemon under test as a real child process (fork/exec), shared by the apps tests: started with
// `--port-file`, waited for until it has written the port it bound on 127.0.0.1, signalled and
// reaped. stderr (the daemon's JSON log) goes to a file the test can read.
//
// Thread safety: one thread per object.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace veil::testing {

class DaemonProcess {
 public:
  DaemonProcess() = default;
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;
  ~DaemonProcess() { Signal(SIGKILL); }

  // Runs `argv` (argv[0] is the binary's path), which must write its port to `port_file`; waits up
  // to `timeout` for it. false when the process exits first or the time runs out (it is then
  // killed). The log (stderr) is appended to `log`.
  bool Start(std::vector<std::string> argv, const std::filesystem::path& port_file,
             const std::filesystem::path& log,
             std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::error_code ec;
    std::filesystem::remove(port_file, ec);
    log_ = log;
    port_ = 0;
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) ::dup2(fd, 2);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream f(port_file);
      int port = 0;
      if (f >> port && port > 0) {
        port_ = port;
        return true;
      }
      int st = 0;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    Signal(SIGKILL);
    return false;
  }

  // Sends `sig` and waits; returns the exit code (or 128 + the signal that killed it), -1 when
  // nothing runs.
  int Signal(int sig) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, sig);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
  }

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // A field of /proc/PID/status in KiB (VmRSS, VmHWM: the peak resident set), or -1.
  long StatusKiB(const std::string& field) const {
    if (pid_ <= 0) return -1;
    std::ifstream f("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(f, line)) {
      if (line.rfind(field + ":", 0) == 0)
        return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
    }
    return -1;
  }
  int port() const { return port_; }
  std::string Log() const {
    std::ifstream f(log_);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path log_;
};

}  // namespace veil::testing
