// ScratchDir: a private scratch directory for tests and benchmarks, made with mkdtemp under the
// system's temporary directory ($TMPDIR, default /tmp) and removed with everything in it when
// the object goes. A test makes one per test (or per fixture); a benchmark binary shares one for
// the whole process (Process(), named after the binary: veil_bench_ledger makes
// veil-bench-ledger-XXXXXX, removed at exit). NewPath names fresh files in it.
//
// A benchmark's durable writes need a real disk: on tmpfs fdatasync costs nothing, so Process()
// warns on stderr when it lands there.
//
// The one helper of its kind: tests/ and bench/ both include it (as "support/scratch_dir.h").
// It depends on nothing but the standard library and POSIX. A directory that cannot be made
// aborts with the reason: a test or benchmark without its scratch space has nothing to run.
//
// Thread safety: NewPath, NewFile and Process may be called from any thread.
#pragma once

#include <stdlib.h>
#include <sys/vfs.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace veil::testing {

class ScratchDir {
 public:
  explicit ScratchDir(std::string_view prefix = "veil-test") {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      std::perror(("mkdtemp " + tmpl).c_str());
      std::abort();
    }
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // A fresh name in the directory, stem-0, stem-1, ...; nothing is created.
  std::filesystem::path NewPath(std::string_view stem) {
    return path_ / (std::string(stem) + "-" + std::to_string(sequence_.fetch_add(1)));
  }

  bool OnTmpfs() const {
    struct statfs fs {};
    constexpr long kTmpfsMagic = 0x01021994;
    return ::statfs(path_.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kTmpfsMagic;
  }

  // The process's scratch directory, made on first use.
  static ScratchDir& Process() {
    static ScratchDir* const dir = [] {
      // program_invocation_short_name (glibc): the binary's name, "veil_bench_ledger".
      std::string prefix = program_invocation_short_name;
      std::replace(prefix.begin(), prefix.end(), '_', '-');
      static ScratchDir made(prefix);
      if (made.OnTmpfs()) {
        std::fprintf(stderr,
                     "%s: WARNING: %s is on tmpfs; fdatasync is free there, so durable write "
                     "timings are not durable (set TMPDIR to a real disk)\n",
                     program_invocation_short_name, made.path().c_str());
      }
      return &made;
    }();
    return *dir;
  }
  // Process().NewPath(stem).
  static std::filesystem::path NewFile(std::string_view stem) { return Process().NewPath(stem); }

 private:
  std::filesystem::path path_;
  std::atomic<int> sequence_{0};
};

}  // namespace veil::testing
