// Differential test of ML-KEM-768 and ML-DSA-65 against an independent implementation,
// @noble/post-quantum, run by Node.js through tests/oracle/noble_pq.mjs (installed by
// scripts/test). Every input is random and passed to both sides, so the outputs must agree byte for
// byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "veil/crypto/mldsa65.h"
#include "veil/crypto/mlkem768.h"
#include "veil/crypto/random.h"
#include "veil/crypto/testing/mldsa65.h"
#include "veil/crypto/testing/mlkem768.h"

namespace veil::crypto {
namespace {

using nlohmann::json;

// Runs the oracle on a batch of requests; fails the test if Node or the package is missing.
json Oracle(const json& requests) {
  char path[] = "/tmp/veil-oracle-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  {
    std::ofstream out(path);
    out << requests.dump();
  }
  close(fd);
  const std::string script = std::string(VEIL_TEST_DATA_DIR) + "/../oracle/noble_pq.mjs";
  const std::string cmd = "node " + script + " < " + path;
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string output;
  char buf[65536];
  std::size_t n;
  while (p != nullptr && (n = fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  const int rc = p != nullptr ? pclose(p) : -1;
  unlink(path);
  EXPECT_EQ(rc, 0) << "the oracle failed; run scripts/test (it installs tests/oracle)";
  json answers = json::parse(output, nullptr, false);
  EXPECT_TRUE(answers.is_array() && answers.size() == requests.size());
  return answers;
}

std::string RandHex(std::size_t n) { return test::Hx(RandomBytes(n)); }

TEST(PqOracle, MlKem768MatchesNoble) {
  constexpr std::size_t kKeys = 12;
  json req = json::array();
  std::vector<std::string> seeds, ms;
  for (std::size_t i = 0; i < kKeys; ++i) {
    seeds.push_back(RandHex(64));
    req.push_back({{"op", "mlkem_keygen"}, {"seed", seeds.back()}});
  }
  json keys = Oracle(req);
  json req2 = json::array();
  std::vector<Bytes> cts;
  for (std::size_t i = 0; i < kKeys; ++i) {
    const Bytes seed = test::H(seeds[i]);
    MlKem768KeyPair kp = for_testing::MlKem768KeyGenInternal(
        Secret<32>::CopyFrom(std::span<const std::uint8_t, 32>(seed.data(), 32)),
        Secret<32>::CopyFrom(std::span<const std::uint8_t, 32>(seed.data() + 32, 32)));
    ASSERT_EQ(test::Hx(kp.ek.bytes()), keys[i]["ek"]) << i;
    ASSERT_EQ(test::Hx(kp.dk.Encode().Expose()), keys[i]["dk"]) << i;
    ms.push_back(RandHex(32));
    req2.push_back({{"op", "mlkem_encaps"}, {"ek", keys[i]["ek"]}, {"m", ms.back()}});
    // Decapsulation of a random (invalid) ciphertext exercises implicit rejection on both sides.
    cts.push_back(RandomBytes(kMlKem768CiphertextSize));
    req2.push_back({{"op", "mlkem_decaps"}, {"dk", keys[i]["dk"]}, {"ct", test::Hx(cts.back())}});
  }
  json out = Oracle(req2);
  for (std::size_t i = 0; i < kKeys; ++i) {
    const Bytes seed = test::H(seeds[i]);
    auto dk = MlKem768DecapsulationKey::FromSeed(
        Secret<64>::CopyFrom(std::span<const std::uint8_t, 64>(seed.data(), 64)));
    const Bytes m = test::H(ms[i]);
    MlKem768Encapsulation e = for_testing::MlKem768EncapsInternal(
        dk.encapsulation_key(), Secret<32>::CopyFrom(std::span<const std::uint8_t, 32>(m)));
    EXPECT_EQ(test::Hx(e.ciphertext), out[2 * i]["ct"]);
    EXPECT_EQ(test::Hx(e.shared_secret.Expose()), out[2 * i]["ss"]);
    auto rejected = MlKem768Decaps(dk, cts[i]);
    ASSERT_TRUE(rejected.ok());
    EXPECT_EQ(test::Hx(rejected->Expose()), out[2 * i + 1]["ss"]);
  }
}

// Pure ML-DSA (FIPS 204 Algorithm 2) with explicit randomness: M' = 0 || len(ctx) || ctx || M.
Bytes PureMessage(ByteView msg, ByteView ctx) {
  const std::uint8_t head[2] = {0, static_cast<std::uint8_t>(ctx.size())};
  return Concat({head, ctx, msg});
}

TEST(PqOracle, MlDsa65MatchesNoble) {
  constexpr std::size_t kKeys = 6;
  json req = json::array();
  std::vector<std::string> seeds;
  for (std::size_t i = 0; i < kKeys; ++i) {
    seeds.push_back(RandHex(32));
    req.push_back({{"op", "mldsa_keygen"}, {"seed", seeds.back()}});
  }
  json keys = Oracle(req);
  json req2 = json::array();
  struct Sig {
    std::size_t key;
    Bytes msg, ctx, rnd;
  };
  std::vector<Sig> sigs;
  for (std::size_t i = 0; i < kKeys; ++i) {
    for (int k = 0; k < 2; ++k) {
      Sig s{i, RandomBytes(RandomUniform(200)), RandomBytes(RandomUniform(40)),
            k == 0 ? Bytes() : RandomBytes(32)};
      req2.push_back({{"op", "mldsa_sign"},
                      {"sk", keys[i]["sk"]},
                      {"msg", test::Hx(s.msg)},
                      {"ctx", test::Hx(s.ctx)},
                      {"rnd", test::Hx(s.rnd)}});
      sigs.push_back(std::move(s));
    }
  }
  json out = Oracle(req2);
  json req3 = json::array();
  for (std::size_t j = 0; j < sigs.size(); ++j) {
    const Sig& s = sigs[j];
    const Bytes seed = test::H(seeds[s.key]);
    MlDsa65KeyPair kp =
        MlDsa65KeyGenFromSeed(Secret<32>::CopyFrom(std::span<const std::uint8_t, 32>(seed)));
    ASSERT_EQ(test::Hx(kp.pk.bytes()), keys[s.key]["pk"]);
    ASSERT_EQ(test::Hx(kp.sk.Encode().Expose()), keys[s.key]["sk"]);
    Secret<32> rnd;  // zero for the deterministic variant
    if (!s.rnd.empty()) rnd = Secret<32>::CopyFrom(std::span<const std::uint8_t, 32>(s.rnd));
    const MlDsa65Signature ours =
        for_testing::MlDsa65SignInternal(kp.sk, PureMessage(s.msg, s.ctx), rnd);
    EXPECT_EQ(test::Hx(ours), out[j]["sig"]) << j;
    if (s.rnd.empty()) {
      auto det = MlDsa65Sign(kp.sk, s.msg, s.ctx, MlDsaSigning::kDeterministic);
      ASSERT_TRUE(det.ok());
      EXPECT_EQ(test::Hx(*det), out[j]["sig"]);
    }
    // Each side verifies the other's signatures: noble's (equal to ours) pass here, and ours of
    // a different message must fail there.
    EXPECT_TRUE(MlDsa65Verify(kp.pk, s.msg, s.ctx, test::H(out[j]["sig"].get<std::string>())).ok());
    req3.push_back({{"op", "mldsa_verify"},
                    {"pk", keys[s.key]["pk"]},
                    {"msg", test::Hx(s.msg)},
                    {"ctx", test::Hx(s.ctx)},
                    {"sig", test::Hx(ours)}});
    Bytes other = s.msg;
    other.push_back(1);
    req3.push_back({{"op", "mldsa_verify"},
                    {"pk", keys[s.key]["pk"]},
                    {"msg", test::Hx(other)},
                    {"ctx", test::Hx(s.ctx)},
                    {"sig", test::Hx(ours)}});
  }
  json verdicts = Oracle(req3);
  for (std::size_t j = 0; j < sigs.size(); ++j) {
    EXPECT_TRUE(verdicts[2 * j]["ok"].get<bool>()) << j;
    EXPECT_FALSE(verdicts[2 * j + 1]["ok"].get<bool>()) << j;
  }
}

}  // namespace
}  // namespace veil::crypto
