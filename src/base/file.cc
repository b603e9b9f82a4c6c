// Atomic, durable file writes (file.h): temporary file, fsync, rename or link, directory fsync.
#include "veil/base/file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace veil {
namespace {

// A stale temporary file of a crashed process whose pid came round again takes the next number;
// a hundred in a row means something else is wrong.
constexpr int kMaxTempAttempts = 100;

std::atomic<std::uint64_t> temp_sequence{0};

// Unlinks the temporary file when the write fails, whichever step failed.
class TempName {
 public:
  explicit TempName(std::filesystem::path path) : path_(std::move(path)) {}
  ~TempName() {
    if (armed_) ::unlink(path_.c_str());
  }
  TempName(const TempName&) = delete;
  TempName& operator=(const TempName&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // The name is gone (renamed or unlinked) or kept on purpose: nothing to remove.
  void Disarm() { armed_ = false; }

 private:
  std::filesystem::path path_;
  bool armed_ = true;
};

// "write /d/port: fsync temporary file /d/port.tmp.7.0: Input/output error". `err` is taken from
// errno before anything else runs (building the message may allocate, which may change errno).
Status Failed(const std::filesystem::path& path, const std::string& step, int err) {
  return Unavailable("write " + path.string() + ": " + step + ": " + std::strerror(err));
}

Status WriteAll(const std::filesystem::path& path, const TempName& tmp, int fd, ByteView data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    const int err = errno;
    if (n < 0 && err == EINTR) continue;
    if (n < 0) return Failed(path, "write temporary file " + tmp.path().string(), err);
    // A regular file never takes zero bytes of a non-empty write; refuse to spin if one does.
    if (n == 0) return Failed(path, "write temporary file " + tmp.path().string(), EIO);
    done += static_cast<std::size_t>(n);
  }
  return Status::Ok();
}

Status FsyncDir(const std::filesystem::path& path, const std::filesystem::path& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    return Failed(path, "open directory " + dir.string(), err);
  }
  if (::fsync(fd.get()) != 0) {
    const int err = errno;
    return Failed(path, "fsync directory " + dir.string(), err);
  }
  return Status::Ok();
}

}  // namespace

Status WriteFileAtomically(const std::filesystem::path& path, ByteView data, mode_t mode,
                           ReplacePolicy policy) {
  const std::filesystem::path name = path.filename();
  if (name.empty() || name == "." || name == "..") {
    return InvalidArgument("write " + path.string() + ": not a file name");
  }
  // The temporary file goes beside the target: rename(2) and link(2) work within one file system.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";

  int fd_value = -1;
  std::filesystem::path tmp_path;
  for (int attempt = 0;; ++attempt) {
    tmp_path = path.parent_path() / (name.string() + ".tmp." + std::to_string(::getpid()) + "." +
                                     std::to_string(temp_sequence.fetch_add(1)));
    fd_value = ::open(tmp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd_value >= 0) break;
    const int err = errno;
    if (err == EINTR) continue;
    if (err != EEXIST || attempt + 1 >= kMaxTempAttempts) {
      return Failed(path, "create temporary file " + tmp_path.string(), err);
    }
  }
  // Destroyed in reverse order: on an early return the name is unlinked, then the file closed.
  UniqueFd fd(fd_value);
  TempName tmp(std::move(tmp_path));

  VEIL_RETURN_IF_ERROR(WriteAll(path, tmp, fd.get(), data));
  if (::fsync(fd.get()) != 0) {
    const int err = errno;
    return Failed(path, "fsync temporary file " + tmp.path().string(), err);
  }
  // close(2) is where some file systems (NFS) report a failed write; the descriptor is gone after
  // it either way, so it is not retried.
  if (::close(fd.Release()) != 0) {
    const int err = errno;
    return Failed(path, "close temporary file " + tmp.path().string(), err);
  }

  if (policy == ReplacePolicy::kReplace) {
    if (::rename(tmp.path().c_str(), path.c_str()) != 0) {
      const int err = errno;
      return Failed(path, "rename " + tmp.path().string() + " into place", err);
    }
    tmp.Disarm();
  } else {
    // link(2) fails with EEXIST instead of replacing, atomically: of two racing writers one wins.
    if (::link(tmp.path().c_str(), path.c_str()) != 0) {
      const int err = errno;
      if (err == EEXIST) return FailedPrecondition(path.string() + " already exists");
      return Failed(path, "link " + tmp.path().string() + " into place", err);
    }
    // The target holds the data now; a failed unlink would only leave a second name behind, and
    // the write itself has succeeded, so it is not reported.
    ::unlink(tmp.path().c_str());
    tmp.Disarm();
  }
  return FsyncDir(path, dir);
}

}  // namespace veil
