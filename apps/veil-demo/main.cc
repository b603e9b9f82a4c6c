// veil-demo: what a newcomer runs first. Until the products exist it checks every primitive of the
// crypto/ floor against a published known answer, then times each one on this machine.
//
// The timings are a quick look, not the project's figures: those come from the Google Benchmark
// binaries (scripts/bench), written to artifacts/ and quoted in docs/performance.md.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "veil/base/encoding.h"
#include "veil/crypto/aead.h"
#include "veil/crypto/ed25519.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/kdf.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/mac.h"
#include "veil/crypto/pwhash.h"
#include "veil/crypto/random.h"
#include "veil/crypto/shamir.h"
#include "veil/crypto/x25519.h"

namespace {

using namespace veil;
using namespace veil::crypto;

Bytes Hex(std::string_view h) { return HexDecode(h).value(); }
bool Eq(ByteView a, std::string_view hex) { return HexEncode(a) == hex; }

struct Check {
  const char* name;
  const char* source;
  std::function<bool()> run;
};

std::vector<Check> SelfChecks() {
  return {
      {"SHA-256", "FIPS 180-4 \"abc\"",
       [] {
         return Eq(Sha256(AsBytes("abc")),
                   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
       }},
      {"SHA3-256", "FIPS 202 \"abc\"",
       [] {
         return Eq(Sha3_256::Hash(AsBytes("abc")),
                   "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
       }},
      {"SHAKE128", "FIPS 202 empty input",
       [] { return Eq(Shake128::Hash({}, 16), "7f9c2ba4e88f827d616045507605853e"); }},
      {"HMAC-SHA256", "RFC 4231 case 2",
       [] {
         return Eq(HmacSha256(AsBytes("Jefe"), AsBytes("what do ya want for nothing?")),
                   "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
       }},
      {"HKDF-SHA256", "RFC 5869 case 1",
       [] {
         auto okm = Hkdf(HashAlg::kSha256, Hex("000102030405060708090a0b0c"), Bytes(22, 0x0b),
                         Hex("f0f1f2f3f4f5f6f7f8f9"), 42);
         return okm.ok() &&
                Eq(okm->Expose(),
                   "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf3400"
                   "7208d5b887185865");
       }},
      {"AES-128-GCM", "GCM spec test case 2",
       [] {
         auto a = Aead::Create(AeadAlg::kAes128Gcm, Bytes(16));
         auto c = a->Seal(Bytes(12), {}, Bytes(16));
         return c.ok() &&
                Eq(*c, "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf");
       }},
      {"ChaCha20-Poly1305", "RFC 8439 2.8.2 tag",
       [] {
         auto a =
             Aead::Create(AeadAlg::kChaCha20Poly1305,
                          Hex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"));
         auto c = a->Seal(Hex("070000004041424344454647"), Hex("50515253c0c1c2c3c4c5c6c7"),
                          AsBytes("Ladies and Gentlemen of the class of '99: If I could offer you "
                                  "only one tip for the future, sunscreen would be it."));
         return c.ok() && Eq(ByteView(*c).last(16), "1ae10b594f09e26a7e902ecbd0600691");
       }},
      {"X25519", "RFC 7748 6.1",
       [] {
         auto sk = X25519SecretKey::CopyFrom(std::span<const std::uint8_t, 32>(
             Hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")));
         auto pk = X25519PublicKeyFromBytes(
             Hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"));
         auto s = X25519(sk, *pk);
         return s.ok() &&
                Eq(s->Expose(), "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
       }},
      {"Ed25519", "RFC 8032 7.1 test 1",
       [] {
         auto k = Ed25519SigningKey::FromSeedBytes(
             Hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"));
         auto sig = k->Sign({});
         return Eq(sig,
                   "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a3"
                   "3bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b") &&
                Ed25519Verify(k->public_key(), {}, sig).ok() &&
                !Ed25519Verify(k->public_key(), AsBytes("x"), sig).ok();
       }},
      {"scrypt", "RFC 7914 N=16",
       [] {
         auto k = Scrypt({}, {}, {16, 1, 1}, 64);
         return k.ok() && Eq(k->Expose(),
                             "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd00"
                             "69ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906");
       }},
      {"Shamir 2-of-3", "every pair reconstructs; a tampered share is caught",
       [] {
         SecretBytes secret = RandomSecret(32);
         auto shares = ShamirSplit(secret, 2, 3);
         if (!shares.ok()) return false;
         for (int i = 0; i < 3; ++i) {
           for (int j = i + 1; j < 3; ++j) {
             auto pair =
                 ShamirShare::Decode((*shares)[static_cast<std::size_t>(i)].Encode().Expose());
             auto other =
                 ShamirShare::Decode((*shares)[static_cast<std::size_t>(j)].Encode().Expose());
             std::vector<ShamirShare> two;
             two.push_back(std::move(*pair));
             two.push_back(std::move(*other));
             auto back = ShamirCombine(two);
             if (!back.ok() || !back->ConstantTimeEquals(secret)) return false;
           }
         }
         SecretBytes bad = (*shares)[0].Encode();
         bad.ExposeMutable()[bad.size() - 1] ^= 1;
         auto tampered = ShamirShare::Decode(bad.Expose());
         if (!tampered.ok()) return true;
         std::vector<ShamirShare> two;
         two.push_back(std::move(*tampered));
         two.push_back(std::move((*shares)[1]));
         return !ShamirCombine(two).ok();
       }},
  };
}

// Median time of one call, in microseconds, over `rounds` batches.
double TimeUs(const std::function<void()>& op, int rounds, int per_round) {
  std::vector<double> samples;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < per_round; ++i) op();
    const auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / per_round);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Veil demo: primitives self-check and timings"};
  bool quick = false;
  app.add_flag("--quick", quick, "fewer timing rounds, no scrypt (for CI smoke runs)");
  CLI11_PARSE(app, argc, argv);

  std::printf("Veil %s: crypto/ floor self-check\n\n", "0.1.0");
  int failed = 0;
  for (const Check& c : SelfChecks()) {
    const bool ok = c.run();
    failed += ok ? 0 : 1;
    std::printf("  %-4s %-20s %s\n", ok ? "ok" : "FAIL", c.name, c.source);
  }
  if (failed != 0) {
    std::printf("\n%d self-checks FAILED\n", failed);
    return 1;
  }

  const int rounds = quick ? 3 : 15;
  const int n = quick ? 20 : 400;
  auto aead = Aead::Create(AeadAlg::kAes256Gcm, RandomBytes(32));
  auto chacha = Aead::Create(AeadAlg::kChaCha20Poly1305, RandomBytes(32));
  Bytes nonce = RandomBytes(12), in256 = RandomBytes(256), in4k = RandomBytes(4096),
        out256(256 + 16), out4k(4096 + 16), shake_out(168);
  Ed25519SigningKey ed = Ed25519SigningKey::Generate();
  const Ed25519Signature sig = ed.Sign(in256);
  X25519KeyPair xa = X25519Generate(), xb = X25519Generate();
  SecretBytes secret = RandomSecret(32);
  auto shares = ShamirSplit(secret, 2, 3);
  std::vector<ShamirShare> two;
  two.push_back(std::move((*shares)[0]));
  two.push_back(std::move((*shares)[1]));

  struct Row {
    const char* what;
    std::function<void()> op;
    int per_round;
  };
  std::vector<Row> rows = {
      {"AES-256-GCM seal 256 B", [&] { (void)aead->SealInto(nonce, {}, in256, out256); }, n},
      {"AES-256-GCM seal 4 KiB", [&] { (void)aead->SealInto(nonce, {}, in4k, out4k); }, n},
      {"ChaCha20-Poly1305 seal 4 KiB", [&] { (void)chacha->SealInto(nonce, {}, in4k, out4k); }, n},
      {"SHA-256 of 256 B", [&] { (void)Sha256(in256); }, n},
      {"SHAKE128 168 B -> 168 B",
       [&] {
         Shake128 x;
         x.Absorb(ByteView(in256).first(168));
         x.Squeeze(shake_out);
       },
       n},
      {"Ed25519 sign", [&] { (void)ed.Sign(in256); }, n / 4 + 1},
      {"Ed25519 verify", [&] { (void)Ed25519Verify(ed.public_key(), in256, sig); }, n / 4 + 1},
      {"X25519 shared secret", [&] { (void)X25519(xa.secret_key, xb.public_key); }, n / 4 + 1},
      {"Shamir 2-of-3 split 32 B", [&] { (void)ShamirSplit(secret, 2, 3); }, n},
      {"Shamir 2-of-3 combine 32 B", [&] { (void)ShamirCombine(two); }, n},
  };
  if (!quick) {
    rows.push_back({"scrypt N=2^17 r=8 p=1 (recovery kit)",
                    [&] { (void)Scrypt(AsBytes("pw"), in256, kRecoveryKitScrypt, 32); }, 1});
  }

  std::printf(
      "\nTimings on this machine (median of %d rounds; figures of record: docs/performance.md)\n\n",
      rounds);
  std::printf("  %-40s %14s\n", "operation", "time");
  for (const Row& r : rows) {
    const double us = TimeUs(r.op, r.per_round == 1 ? std::min(rounds, 3) : rounds, r.per_round);
    if (us >= 1000) {
      std::printf("  %-40s %11.1f ms\n", r.what, us / 1000);
    } else {
      std::printf("  %-40s %11.2f us\n", r.what, us);
    }
  }
  return 0;
}
