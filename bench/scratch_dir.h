// The scratch directory of a bench binary: one per process, made with mkdtemp on first use under
// $TMPDIR (default /tmp) and named after the binary (veil_bench_ledger makes
// veil-bench-ledger-XXXXXX), removed with everything in it at exit. Benchmarks put their fresh
// databases and data directories in it. It must be a real disk: on tmpfs fdatasync costs nothing
// and durable write rows mean nothing, so a warning on stderr says so. Shared by the bench
// binaries.
//
// Thread safety: Path() and NewFile() may be called from any thread.
#pragma once

#include <sys/vfs.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace veil::bench {

class ScratchDir {
 public:
  // The directory, made on first call (aborts if it cannot be made: a benchmark without its
  // scratch space has nothing to measure).
  static const std::filesystem::path& Path() {
    static ScratchDir dir;
    return dir.path_;
  }
  // A fresh name in the scratch directory, stem-0, stem-1, ...; nothing is created.
  static std::filesystem::path NewFile(const std::string& stem) {
    static std::atomic<int> seq{0};
    return Path() / (stem + "-" + std::to_string(seq.fetch_add(1)));
  }

 private:
  ScratchDir() {
    // program_invocation_short_name (glibc): the binary's name, "veil_bench_ledger".
    const std::string program = program_invocation_short_name;
    std::string prefix = program;
    std::replace(prefix.begin(), prefix.end(), '_', '-');
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      std::perror((program + ": mkdtemp " + tmpl).c_str());
      std::abort();
    }
    path_ = tmpl;
    struct statfs fs {};
    constexpr long kTmpfsMagic = 0x01021994;
    if (::statfs(tmpl.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kTmpfsMagic) {
      std::fprintf(stderr,
                   "%s: WARNING: %s is on tmpfs; fdatasync is free there, so the durable write "
                   "rows are not durable (set TMPDIR to a real disk)\n",
                   program.c_str(), tmpl.c_str());
    }
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path path_;
};

}  // namespace veil::bench
