// The scratch directory tests and benchmarks share (tests/support/scratch_dir.h).
#include "support/scratch_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

namespace veil::testing {
namespace {

TEST(ScratchDir, MadePrivateAndRemovedWithItsContents) {
  std::filesystem::path kept;
  {
    ScratchDir a("veil-scratch-test");
    ScratchDir b("veil-scratch-test");
    kept = a.path();
    EXPECT_NE(a.path(), b.path());
    EXPECT_TRUE(std::filesystem::is_directory(a.path()));
    EXPECT_EQ(a.path().parent_path(), std::filesystem::temp_directory_path());
    EXPECT_EQ(a.path().filename().string().rfind("veil-scratch-test-", 0), 0u);
    struct stat st {};
    ASSERT_EQ(::stat(a.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);  // mkdtemp's mode: nobody else reads it
    std::filesystem::create_directories(a.path() / "sub" / "deeper");
    std::ofstream(a.path() / "sub" / "deeper" / "file") << "x";
  }
  EXPECT_FALSE(std::filesystem::exists(kept));
}

TEST(ScratchDir, NewPathNamesFreshFilesAndCreatesNothing) {
  ScratchDir dir("veil-scratch-test");
  const auto first = dir.NewPath("db");
  const auto second = dir.NewPath("db");
  EXPECT_EQ(first, dir.path() / "db-0");
  EXPECT_EQ(second, dir.path() / "db-1");
  EXPECT_FALSE(std::filesystem::exists(first));
}

TEST(ScratchDir, TheProcessDirectoryIsOneAndNamedAfterTheBinary) {
  ScratchDir& p = ScratchDir::Process();
  EXPECT_EQ(&p, &ScratchDir::Process());
  EXPECT_EQ(p.path().filename().string().rfind("veil-base-tests-", 0), 0u) << p.path();
  EXPECT_EQ(ScratchDir::NewFile("x").parent_path(), p.path());
}

}  // namespace
}  // namespace veil::testing
