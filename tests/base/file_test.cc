// WriteFileAtomically: content and mode as asked, replace or never replace, no temporary file left.
#include "veil/base/file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "support/scratch_dir.h"

namespace veil {
namespace {

namespace fs = std::filesystem;

using testing::ScratchDir;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every name in `dir`, dot files included, sorted.
std::vector<std::string> List(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

mode_t ModeOf(const fs::path& p) {
  struct stat st {};
  VEIL_CHECK(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// The modes below must not be cut by the umask of whoever runs the tests.
class WriteFileAtomicallyTest : public ::testing::Test {
 protected:
  void SetUp() override { old_umask_ = ::umask(022); }
  void TearDown() override { ::umask(old_umask_); }
  ScratchDir dir_{"veil-base-file"};

 private:
  mode_t old_umask_ = 0;
};

TEST_F(WriteFileAtomicallyTest, WritesContentAndMode) {
  const fs::path secret = dir_.path() / "identity.key";
  const Bytes data = {0x00, 0x01, 0xff, 0x00, 0x7f};  // binary, with NULs
  ASSERT_TRUE(WriteFileAtomically(secret, data, 0600, ReplacePolicy::kNeverReplace).ok());
  const std::string back = ReadFile(secret);
  EXPECT_EQ(Bytes(back.begin(), back.end()), data);
  EXPECT_EQ(ModeOf(secret), 0600u);

  const fs::path text = dir_.path() / "port";
  ASSERT_TRUE(
      WriteFileAtomically(text, std::string_view("8545\n"), 0644, ReplacePolicy::kReplace).ok());
  EXPECT_EQ(ReadFile(text), "8545\n");
  EXPECT_EQ(ModeOf(text), 0644u);

  const fs::path empty = dir_.path() / "empty";
  ASSERT_TRUE(WriteFileAtomically(empty, ByteView(), 0640, ReplacePolicy::kReplace).ok());
  EXPECT_TRUE(fs::exists(empty));
  EXPECT_EQ(fs::file_size(empty), 0u);
  EXPECT_EQ(ModeOf(empty), 0640u);

  // Only the three targets: no temporary file is left behind.
  EXPECT_EQ(List(dir_.path()), (std::vector<std::string>{"empty", "identity.key", "port"}));
}

TEST_F(WriteFileAtomicallyTest, ReplaceReplacesContentAndMode) {
  const fs::path p = dir_.path() / "port";
  ASSERT_TRUE(
      WriteFileAtomically(p, std::string_view("old, and longer\n"), 0600, ReplacePolicy::kReplace)
          .ok());
  ASSERT_TRUE(
      WriteFileAtomically(p, std::string_view("new\n"), 0644, ReplacePolicy::kReplace).ok());
  EXPECT_EQ(ReadFile(p), "new\n");  // replaced, not overwritten in place (no tail of the old)
  EXPECT_EQ(ModeOf(p), 0644u);
  EXPECT_EQ(List(dir_.path()), (std::vector<std::string>{"port"}));
}

// A reader racing a writer that replaces the file over and over sees one whole version or the
// other, never an empty, partial or mixed file.
TEST_F(WriteFileAtomicallyTest, AReplaceIsAtomicForAConcurrentReader) {
  const fs::path p = dir_.path() / "state";
  const std::string small = "small\n";
  const std::string large(256 * 1024, 'L');
  ASSERT_TRUE(WriteFileAtomically(p, std::string_view(small), 0644, ReplacePolicy::kReplace).ok());
  std::atomic<bool> done{false};
  std::atomic<int> reads{0}, torn{0};
  std::thread reader([&] {
    while (!done.load()) {
      const std::string got = ReadFile(p);
      if (got != small && got != large) torn.fetch_add(1);
      reads.fetch_add(1);
    }
  });
  for (int i = 0; i < 200; ++i) {
    const std::string& next = i % 2 == 0 ? large : small;
    ASSERT_TRUE(WriteFileAtomically(p, std::string_view(next), 0644, ReplacePolicy::kReplace).ok());
  }
  while (reads.load() < 50) std::this_thread::yield();
  done.store(true);
  reader.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(List(dir_.path()), (std::vector<std::string>{"state"}));
}

// Of several writers racing to create one file with kNeverReplace, exactly one succeeds and the
// file holds its data whole.
TEST_F(WriteFileAtomicallyTest, NeverReplaceHasOneWinnerAmongRacingWriters) {
  const fs::path p = dir_.path() / "identity.key";
  constexpr int kWriters = 8;
  std::vector<std::thread> writers;
  std::vector<Code> codes(kWriters, Code::kInternal);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      const std::string data(4096, static_cast<char>('a' + w));
      codes[static_cast<std::size_t>(w)] =
          WriteFileAtomically(p, std::string_view(data), 0600, ReplacePolicy::kNeverReplace).code();
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(std::count(codes.begin(), codes.end(), Code::kOk), 1);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), Code::kFailedPrecondition), kWriters - 1);
  const std::string got = ReadFile(p);
  ASSERT_EQ(got.size(), 4096u);
  const auto winner =
      static_cast<std::size_t>(std::find(codes.begin(), codes.end(), Code::kOk) - codes.begin());
  EXPECT_EQ(got, std::string(4096, static_cast<char>('a' + winner)));
  EXPECT_EQ(List(dir_.path()), (std::vector<std::string>{"identity.key"}));
}

TEST_F(WriteFileAtomicallyTest, NeverReplaceRefusesAnExistingFileDistinctly) {
  const fs::path p = dir_.path() / "identity.key";
  ASSERT_TRUE(
      WriteFileAtomically(p, std::string_view("first"), 0600, ReplacePolicy::kNeverReplace).ok());
  const Status s =
      WriteFileAtomically(p, std::string_view("second"), 0644, ReplacePolicy::kNeverReplace);
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find(p.string()), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("second"), std::string::npos);  // the data is never in a message
  EXPECT_EQ(ReadFile(p), "first");
  EXPECT_EQ(ModeOf(p), 0600u);
  EXPECT_EQ(List(dir_.path()), (std::vector<std::string>{"identity.key"}));

  // A file made by other means counts the same; a dangling symlink too (it is a name in the way).
  const fs::path other = dir_.path() / "other";
  { std::ofstream(other) << "kept"; }
  EXPECT_EQ(
      WriteFileAtomically(other, std::string_view("x"), 0600, ReplacePolicy::kNeverReplace).code(),
      Code::kFailedPrecondition);
  EXPECT_EQ(ReadFile(other), "kept");
  const fs::path link = dir_.path() / "link";
  fs::create_symlink(dir_.path() / "nowhere", link);
  EXPECT_EQ(
      WriteFileAtomically(link, std::string_view("x"), 0600, ReplacePolicy::kNeverReplace).code(),
      Code::kFailedPrecondition);
  EXPECT_FALSE(fs::exists(dir_.path() / "nowhere"));
  EXPECT_EQ(List(dir_.path()), (std::vector<std::string>{"identity.key", "link", "other"}));
}

TEST_F(WriteFileAtomicallyTest, MissingDirectoryFailsClearlyAndLeavesNothing) {
  const fs::path missing = dir_.path() / "no-such-dir";
  for (ReplacePolicy policy : {ReplacePolicy::kReplace, ReplacePolicy::kNeverReplace}) {
    const Status s = WriteFileAtomically(missing / "port", std::string_view("1\n"), 0644, policy);
    EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
    EXPECT_NE(s.message().find((missing / "port").string()), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(std::strerror(ENOENT)), std::string::npos) << s.message();
  }
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_TRUE(List(dir_.path()).empty());
}

TEST_F(WriteFileAtomicallyTest, FailedRenameRemovesTheTemporaryFile) {
  // A directory in the way: the temporary file is written, then rename(2) fails (EISDIR).
  const fs::path target = dir_.path() / "busy";
  fs::create_directory(target);
  const Status s =
      WriteFileAtomically(target, std::string_view("data"), 0644, ReplacePolicy::kReplace);
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("rename"), std::string::npos) << s.message();
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_EQ(List(dir_.path()), (std::vector<std::string>{"busy"}));
}

TEST_F(WriteFileAtomicallyTest, FailedWriteRemovesTheTemporaryFile) {
  // A file size limit below the data: the first write(2) is short (the loop goes on), the next
  // fails with EFBIG (SIGXFSZ ignored, as it would otherwise kill the test).
  constexpr rlim_t kLimit = 4096;
  struct rlimit old_limit {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  if (old_limit.rlim_cur != RLIM_INFINITY && old_limit.rlim_cur <= kLimit) GTEST_SKIP();
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = old_limit;
  limit.rlim_cur = kLimit;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  const std::string big(3 * kLimit, 'x');
  const fs::path p = dir_.path() / "big";
  const Status s = WriteFileAtomically(p, big, 0644, ReplacePolicy::kReplace);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old_limit), 0);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find(std::strerror(EFBIG)), std::string::npos) << s.message();
  EXPECT_TRUE(List(dir_.path()).empty());
}

TEST_F(WriteFileAtomicallyTest, RefusesAPathThatNamesNoFile) {
  EXPECT_EQ(
      WriteFileAtomically(dir_.path() / "", std::string_view("x"), 0644, ReplacePolicy::kReplace)
          .code(),
      Code::kInvalidArgument);
  EXPECT_EQ(
      WriteFileAtomically(fs::path(), std::string_view("x"), 0644, ReplacePolicy::kReplace).code(),
      Code::kInvalidArgument);
  EXPECT_TRUE(List(dir_.path()).empty());
}

}  // namespace
}  // namespace veil
