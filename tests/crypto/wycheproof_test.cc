// Every case of the Wycheproof files in tests/data/wycheproof, through the veil-vectors runner.
#include "wycheproof.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace veil::vectors {
namespace {

class Wycheproof : public testing::TestWithParam<const char*> {};

TEST_P(Wycheproof, EveryCasePasses) {
  auto report = RunWycheproofFile(test::DataPath(std::string("wycheproof/") + GetParam()));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_GT(report->passed, 80);
  EXPECT_EQ(report->failed, 0);
  for (const auto& f : report->failures) ADD_FAILURE() << f;
}

INSTANTIATE_TEST_SUITE_P(Files, Wycheproof,
                         testing::Values("aes_gcm_test.json", "chacha20_poly1305_test.json",
                                         "xchacha20_poly1305_test.json", "hmac_sha256_test.json",
                                         "ed25519_test.json", "hkdf_sha256_test.json",
                                         "x25519_test.json"));

TEST(WycheproofRunner, RejectsUnsupportedAndMalformedFiles) {
  EXPECT_FALSE(RunWycheproof(nlohmann::json::parse(R"({"algorithm":"RSA","testGroups":[]})")).ok());
  EXPECT_FALSE(RunWycheproof(nlohmann::json::parse(R"({"foo":1})")).ok());
  EXPECT_EQ(RunWycheproofFile("/nonexistent.json").status().code(), Code::kNotFound);
  // A case with a broken hex field is an error of the file, not a pass.
  auto bad = nlohmann::json::parse(
      R"({"algorithm":"HKDF-SHA-256","testGroups":[{"tests":[{"tcId":1,"ikm":"zz","salt":"",
          "info":"","size":4,"okm":"00000000","result":"valid"}]}]})");
  EXPECT_FALSE(RunWycheproof(bad).ok());
}

// A runner that passes everything would be worthless: a wrong output fails a "valid" case, and an
// "invalid" case passes only when the operation rejects it (a wrong output is not a rejection).
TEST(WycheproofRunner, WrongExpectationCountsAsFailure) {
  auto j = nlohmann::json::parse(
      R"({"algorithm":"HKDF-SHA-256","testGroups":[{"tests":[
          {"tcId":1,"ikm":"00","salt":"","info":"","size":4,"okm":"00000000","result":"valid"},
          {"tcId":2,"ikm":"00","salt":"","info":"","size":4,"okm":"00000000","result":"invalid"},
          {"tcId":3,"ikm":"00","salt":"","info":"","size":9000,"okm":"00","result":"invalid"}]}]})");
  auto r = RunWycheproof(j);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 2);
  EXPECT_EQ(r->passed, 1);
}

}  // namespace
}  // namespace veil::vectors
