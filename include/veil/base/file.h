// WriteFileAtomically: a file written whole or not at all, and durable when the call returns.
//
// The data goes to a fresh temporary file in the target's directory (a unique name, O_EXCL, so no
// two writers ever share it), which is fsynced and then given the target's name in one directory
// operation: rename(2), which replaces an existing file, or link(2), which never does. The
// directory is fsynced last, so the new name survives a crash. A reader sees the old file or the
// new one, never a partial one. On every failure the temporary file is removed, and the target is
// untouched unless only the last step, the directory fsync, failed. Only a crash can leave a
// temporary file (NAME.tmp.PID.SEQ) behind.
//
// Secrets may pass through (the guardian's key file): the data is neither copied nor logged, and no
// message contains it.
//
// Thread safety: safe from several threads and processes at once, even on the same path; with
// kReplace the last rename wins, with kNeverReplace exactly one writer succeeds.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <utility>

#include "veil/base/bytes.h"
#include "veil/base/status.h"

namespace veil {

// An owned file descriptor, closed when it goes out of scope (-1: none).
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  // Gives the descriptor up without closing it.
  int Release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

enum class ReplacePolicy : std::uint8_t {
  kReplace,       // an existing file at the path is replaced atomically (rename(2))
  kNeverReplace,  // an existing file is left as it is and the call fails (link(2))
};

// Writes `data` to `path` with permission bits `mode` (as for open(2), so the umask applies).
// kFailedPrecondition: kNeverReplace and `path` already exists (its content untouched); no other
// failure has this code, so a caller may branch on it (load the existing file instead).
// kInvalidArgument: `path` names no file (empty, or ends in "/", ".", "..").
// kUnavailable: any failed system call, the message naming the path, the step and strerror's text;
// a failed final directory fsync is reported although the new file is already in place.
Status WriteFileAtomically(const std::filesystem::path& path, ByteView data, mode_t mode,
                           ReplacePolicy policy);

// The same for text (a port number, a PEM file).
inline Status WriteFileAtomically(const std::filesystem::path& path, std::string_view data,
                                  mode_t mode, ReplacePolicy policy) {
  return WriteFileAtomically(path, AsBytes(data), mode, policy);
}

}  // namespace veil
