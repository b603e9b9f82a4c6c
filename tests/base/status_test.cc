// Status and Result: the error convention behaves as documented.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "veil/base/result.h"

namespace veil {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  VEIL_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

Status CheckEven(int x) {
  VEIL_RETURN_IF_ERROR(Half(x));
  return Status::Ok();
}

TEST(Status, OkAndCodes) {
  EXPECT_TRUE(Status::Ok().ok());
  EXPECT_EQ(InvalidArgument("x").code(), Code::kInvalidArgument);
  EXPECT_EQ(InvalidArgument("bad length").ToString(), "invalid argument: bad length");
  EXPECT_EQ(VerificationFailed().ToString(), "verification failed");
  EXPECT_EQ(CodeName(Code::kDataLoss), "data loss");
}

TEST(Result, ValueAndErrorPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Quarter(5).status().message(), "odd");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_FALSE(CheckEven(3).ok());
  EXPECT_EQ(Half(3).value_or(-1), -1);
}

TEST(Result, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(7));
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

TEST(ResultDeathTest, ReadingAFailedResultAborts) {
  Result<int> r = InvalidArgument("nope");
  EXPECT_DEATH((void)r.value(), "nope");
}

}  // namespace
}  // namespace veil
