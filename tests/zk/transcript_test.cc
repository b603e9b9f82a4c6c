// The transcript: a known-answer test against an independent model of the framing (Python's
// hashlib.shake_256 over the byte string of docs/notes/transcript.md), determinism, sensitivity
// to every change of protocol, version, label, data, type and order, injectivity on pairs that a
// naive concatenation would confuse, and challenge chaining.
#include "veil/zk/transcript.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "zk_test_util.h"

namespace veil::zk {
namespace {

using test::B;
using test::Hx;

std::string Challenge(const std::function<void(Transcript&)>& ops,
                      std::string_view protocol = "veil.test", std::uint64_t version = 1) {
  Transcript t(protocol, version);
  ops(t);
  return Hx(t.ChallengeBytes("challenge", 32));
}

// Computed by an independent model: the frames op || len(label) || label || len(data) (8 bytes,
// big-endian) || data, hashed with Python's hashlib.shake_256 (the script is in
// docs/notes/transcript.md).
TEST(Transcript, KnownAnswer) {
  Transcript t("veil.test", 7);
  t.AppendMessage("msg", B("hello"));
  t.AppendU64("n", 0x0102030405060708);
  ec::CompressedRistretto::Bytes p{};
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::uint8_t>(i);
  t.AppendPoint("P", ec::CompressedRistretto(p));
  t.AppendScalar("x", ec::Scalar::FromUint64(5));
  EXPECT_EQ(Hx(t.ChallengeScalar("c1").ToBytes()),
            "0f4027a7cb9b7bab71142ab28256e80644ad5c117612551edb559f79be4c000a");
  EXPECT_EQ(Hx(t.ChallengeBytes("b2", 40)),
            "a48a2f616ace443db4ae507e6580b07c4f6deaa828248ee0e9cd200e41da8ef5a1ee2af4abd2e79e");
  EXPECT_EQ(Hx(t.ChallengeScalar("c1").ToBytes()),
            "8b5a3dd2adbf03986d084bd62c4b778f095cf10929c32f9919336ef3d5665d0c");
}

TEST(Transcript, RngKnownAnswer) {
  Transcript t("veil.test", 7);
  t.AppendMessage("msg", B("hello"));
  TranscriptRng rng = t.BuildRng();
  rng.AppendWitness("w", ec::Scalar::FromUint64(9));
  std::array<std::uint8_t, 32> randomness;
  randomness.fill(0xAA);
  rng.FinalizeWithRandomness(randomness);
  EXPECT_EQ(Hx(rng.NextScalar().ToBytes()),
            "ea786c133484f01b776b83b0975bce711cffbb2561ac534cec212b0aa6079207");
  EXPECT_EQ(Hx(rng.NextScalar().ToBytes()),
            "94c5a5ba5c8132e1606b35b0c2c01bc1b7ba757c6da99d9f24c2f31e34345c0f");
}

TEST(Transcript, Deterministic) {
  auto ops = [](Transcript& t) {
    t.AppendMessage("a", B("data"));
    t.AppendU64("n", 42);
    t.AppendScalar("s", ec::Scalar::FromUint64(3));
    t.AppendPoint("P", ec::RistrettoPoint::Generator());
  };
  EXPECT_EQ(Challenge(ops), Challenge(ops));
  Transcript a("p", 1), b("p", 1);
  EXPECT_EQ(a.ChallengeScalar("c"), b.ChallengeScalar("c"));
}

TEST(Transcript, EveryChangeChangesTheChallenge) {
  std::vector<std::string> outs = {
      Challenge([](Transcript&) {}),
      Challenge([](Transcript&) {}, "veil.test2"),
      Challenge([](Transcript&) {}, "veil.test", 2),
      Challenge([](Transcript& t) { t.AppendMessage("a", B("x")); }),
      Challenge([](Transcript& t) { t.AppendMessage("b", B("x")); }),
      Challenge([](Transcript& t) { t.AppendMessage("a", B("y")); }),
      Challenge([](Transcript& t) { t.AppendMessage("a", B("")); }),
      Challenge([](Transcript& t) { t.AppendMessage("", B("")); }),
      Challenge([](Transcript& t) { t.AppendMessage("", B("a")); }),
      Challenge([](Transcript& t) {
        t.AppendMessage("a", B("x"));
        t.AppendMessage("b", B("y"));
      }),
      Challenge([](Transcript& t) {
        t.AppendMessage("b", B("y"));
        t.AppendMessage("a", B("x"));
      }),
      // The same 8 bytes as a message and as a U64: the op code tells them apart.
      Challenge([](Transcript& t) { t.AppendU64("n", 0x6162636465666768); }),
      Challenge([](Transcript& t) { t.AppendMessage("n", B("abcdefgh")); }),
      // A point, a scalar and a message with the same 32 bytes.
      Challenge([](Transcript& t) { t.AppendScalar("v", ec::Scalar::FromUint64(1)); }),
      Challenge([](Transcript& t) {
        t.AppendPoint("v", ec::CompressedRistretto(ec::Scalar::FromUint64(1).ToBytes()));
      }),
      Challenge([](Transcript& t) {
        const auto b = ec::Scalar::FromUint64(1).ToBytes();
        t.AppendMessage("v", b);
      }),
      Challenge([](Transcript& t) { t.AppendU64("n", 0); }),
      Challenge([](Transcript& t) { t.AppendU64("n", 1); }),
  };
  std::set<std::string> distinct(outs.begin(), outs.end());
  EXPECT_EQ(distinct.size(), outs.size());
}

TEST(Transcript, FramingIsInjectiveOnTrickyPairs) {
  // Label/data boundary.
  EXPECT_NE(Challenge([](Transcript& t) { t.AppendMessage("ab", B("c")); }),
            Challenge([](Transcript& t) { t.AppendMessage("a", B("bc")); }));
  // Data split across two appends.
  EXPECT_NE(Challenge([](Transcript& t) {
              t.AppendMessage("m", B("ab"));
              t.AppendMessage("m", B("c"));
            }),
            Challenge([](Transcript& t) {
              t.AppendMessage("m", B("a"));
              t.AppendMessage("m", B("bc"));
            }));
  // One message versus the same bytes in two.
  EXPECT_NE(Challenge([](Transcript& t) { t.AppendMessage("m", B("abc")); }),
            Challenge([](Transcript& t) {
              t.AppendMessage("m", B("ab"));
              t.AppendMessage("m", B("c"));
            }));
  // An empty append is not nothing.
  EXPECT_NE(Challenge([](Transcript&) {}),
            Challenge([](Transcript& t) { t.AppendMessage("m", B("")); }));
  // A message that contains the bytes of a frame does not equal that frame.
  Transcript probe("veil.test", 1);
  Bytes frame = {0x02, 0x01, 'm', 0, 0, 0, 0, 0, 0, 0, 1, 'x'};
  EXPECT_NE(Challenge([&](Transcript& t) { t.AppendMessage("m", frame); }),
            Challenge([](Transcript& t) {
              t.AppendMessage("m", B(""));
              t.AppendMessage("m", B("x"));
            }));
  // Protocol name and version.
  EXPECT_NE(Challenge([](Transcript&) {}, "ab", 1), Challenge([](Transcript&) {}, "a", 1));
}

TEST(Transcript, ChallengesChainAndDependOnLength) {
  Transcript t("veil.test", 1);
  const ec::Scalar c1 = t.ChallengeScalar("c");
  const ec::Scalar c2 = t.ChallengeScalar("c");
  const ec::Scalar c3 = t.ChallengeScalar("c");
  EXPECT_FALSE(c1 == c2);
  EXPECT_FALSE(c2 == c3);
  EXPECT_FALSE(c1 == c3);

  // A challenge changes the state for what follows.
  Transcript a("veil.test", 1), b("veil.test", 1);
  (void)a.ChallengeBytes("x", 16);
  a.AppendMessage("m", B("1"));
  b.AppendMessage("m", B("1"));
  EXPECT_NE(Hx(a.ChallengeBytes("c", 32)), Hx(b.ChallengeBytes("c", 32)));

  // 16 bytes is not a prefix of 32 bytes: the length is framed.
  Transcript s("veil.test", 1), l("veil.test", 1);
  Bytes short_out = s.ChallengeBytes("c", 16);
  Bytes long_out = l.ChallengeBytes("c", 32);
  EXPECT_NE(Hx(short_out), Hx(ByteView(long_out).first(16)));

  // A forked transcript continues independently.
  Transcript base("veil.test", 1);
  base.AppendMessage("m", B("common"));
  Transcript fork = base;
  fork.AppendMessage("m", B("fork"));
  EXPECT_FALSE(base.ChallengeScalar("c") == fork.ChallengeScalar("c"));
}

TEST(Transcript, RngDependsOnWitnessRandomnessAndStatement) {
  auto draw = [](std::string_view stmt, std::uint64_t w, std::uint8_t rnd) {
    Transcript t("veil.test", 1);
    t.AppendMessage("stmt", AsBytes(stmt));
    TranscriptRng rng = t.BuildRng();
    rng.AppendWitness("w", ec::Scalar::FromUint64(w));
    std::array<std::uint8_t, 32> r;
    r.fill(rnd);
    rng.FinalizeWithRandomness(r);
    return Hx(rng.NextScalar().ToBytes());
  };
  std::set<std::string> outs = {draw("a", 1, 0), draw("b", 1, 0), draw("a", 2, 0), draw("a", 1, 1)};
  EXPECT_EQ(outs.size(), 4u);
  EXPECT_EQ(draw("a", 1, 0), draw("a", 1, 0));

  // Fresh randomness: two draws on the same inputs differ.
  Transcript t("veil.test", 1);
  TranscriptRng r1 = t.BuildRng(), r2 = t.BuildRng();
  r1.AppendWitness("w", ec::Scalar::One());
  r2.AppendWitness("w", ec::Scalar::One());
  r1.Finalize();
  r2.Finalize();
  EXPECT_FALSE(r1.NextScalar() == r2.NextScalar());

  // Building an RNG does not change the transcript.
  Transcript x("veil.test", 1), y("veil.test", 1);
  {
    TranscriptRng r = x.BuildRng();
    r.Finalize();
    (void)r.NextScalar();
  }
  EXPECT_EQ(x.ChallengeScalar("c"), y.ChallengeScalar("c"));
}

// A moved generator's stream goes with it; the moved-from one has no state left and any use of it
// aborts, where it used to draw the very nonces its successor draws.
TEST(TranscriptDeathTest, AMovedFromRngIsDeadNotATwin) {
  const std::array<std::uint8_t, 32> fixed{};
  Transcript t("veil.test", 1);
  TranscriptRng twin = t.BuildRng();
  twin.FinalizeWithRandomness(fixed);
  TranscriptRng rng = t.BuildRng();
  rng.FinalizeWithRandomness(fixed);
  TranscriptRng moved = std::move(rng);
  EXPECT_EQ(moved.NextScalar(), twin.NextScalar());
  EXPECT_DEATH((void)rng.NextScalar(), "used after a move");
  EXPECT_DEATH(rng.AppendWitness("w", ec::Scalar::One()), "used after a move");
  EXPECT_DEATH(rng.FinalizeWithRandomness(fixed), "used after a move");
  // Move assignment likewise; assigning a live generator to a moved-from one revives the target.
  TranscriptRng target = t.BuildRng();
  target = std::move(moved);
  EXPECT_EQ(target.NextScalar(), twin.NextScalar());
  EXPECT_DEATH((void)moved.NextScalar(), "used after a move");
  rng = std::move(target);
  EXPECT_EQ(rng.NextScalar(), twin.NextScalar());
}

}  // namespace
}  // namespace veil::zk
