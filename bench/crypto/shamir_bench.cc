// Shamir split and combine, beside a naive baseline measured in the same run.
//
// The baseline is the straightforward constant-time implementation: byte at a time, Horner's rule,
// a bit-by-bit masked GF(2^8) multiplication, Lagrange coefficients with a^254 inversion. It draws
// the same randomness, hashes the same tag with the same SHA-256 and produces the same shares
// (checked before timing), so the ratio measures the arithmetic. Splits are timed twice: with the
// system CSPRNG (what callers get; on this kind of host one getrandom(2) system call costs more
// than the rest of a small split, see BM_ShamirSystemRandom) and with a ChaCha20 stream passed as
// the caller's randomness, which shows the cost of the sharing itself.
#include <benchmark/benchmark.h>
#include <sodium.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "veil/crypto/hash.h"
#include "veil/crypto/random.h"
#include "veil/crypto/shamir.h"

namespace veil::crypto {
namespace {

// A cheap repeatable stream for the caller's-randomness path.
class StreamRandom {
 public:
  void Fill(MutableByteView out) {
    std::array<std::uint8_t, crypto_stream_chacha20_NONCEBYTES> nonce{};
    std::memcpy(nonce.data(), &counter_, sizeof(counter_));
    ++counter_;
    crypto_stream_chacha20(out.data(), out.size(), nonce.data(), key_.data());
  }
  ShamirRandomFn Fn() {
    return [this](MutableByteView out) { Fill(out); };
  }

 private:
  std::array<std::uint8_t, crypto_stream_chacha20_KEYBYTES> key_{};
  std::uint64_t counter_ = 0;
};

SecretBytes BenchSecret(std::size_t n) {
  SecretBytes s(n);
  for (std::size_t i = 0; i < n; ++i) s.ExposeMutable()[i] = static_cast<std::uint8_t>(i * 13 + 5);
  return s;
}

// ---------------------------------------------------------------------------------------------
// The naive baseline

namespace naive {

std::uint8_t Mul(std::uint8_t a, std::uint8_t b) {
  std::uint8_t r = 0;
  for (int i = 0; i < 8; ++i) {
    r = static_cast<std::uint8_t>(r ^ (a & -((b >> i) & 1)));
    a = static_cast<std::uint8_t>((a << 1) ^ (0x1b & -(a >> 7)));
  }
  return r;
}

// a^254 by square-and-multiply over the (public) exponent's bits.
std::uint8_t Inv(std::uint8_t a) {
  std::uint8_t r = 1;
  for (int bit = 7; bit >= 0; --bit) {
    r = Mul(r, r);
    if (((254 >> bit) & 1) != 0) r = Mul(r, a);
  }
  return r;
}

void Tag(ByteView split_id, std::size_t t, ByteView check_key, ByteView secret, std::uint8_t* tag) {
  Bytes input(AsBytes("veil.shamir.v1").begin(), AsBytes("veil.shamir.v1").end());
  input.insert(input.end(), split_id.begin(), split_id.end());
  input.push_back(static_cast<std::uint8_t>(t));
  input.insert(input.end(), check_key.begin(), check_key.end());
  input.insert(input.end(), secret.begin(), secret.end());
  const Sha256Digest d = Sha256(input);
  std::memcpy(tag, d.data(), kShamirTagSize);
}

struct Split {
  Bytes split_id;
  std::vector<SecretBytes> ys;  // ys[x - 1]
};

Split DoSplit(const SecretBytes& secret, std::size_t t, std::size_t n,
              const ShamirRandomFn& random) {
  const std::size_t len = secret.size() + kShamirValueOverhead;
  SecretBytes rnd(kShamirSplitIdSize + kShamirCheckKeySize + (t - 1) * len);
  random(rnd.ExposeMutable());
  const ByteView r = rnd.Expose();
  Split out;
  out.split_id.assign(r.begin(), r.begin() + kShamirSplitIdSize);
  std::vector<SecretBytes> coeffs;
  coeffs.emplace_back(len);
  std::uint8_t* a0 = coeffs[0].ExposeMutable().data();
  std::memcpy(a0, secret.Expose().data(), secret.size());
  std::memcpy(a0 + secret.size(), r.data() + kShamirSplitIdSize, kShamirCheckKeySize);
  Tag(out.split_id, t, ByteView(a0 + secret.size(), kShamirCheckKeySize), secret.Expose(),
      a0 + secret.size() + kShamirCheckKeySize);
  for (std::size_t k = 1; k < t; ++k) {
    coeffs.push_back(SecretBytes::CopyFrom(r.subspan(24 + (k - 1) * len, len)));
  }
  for (std::size_t x = 1; x <= n; ++x) {
    SecretBytes y(len);
    for (std::size_t b = 0; b < len; ++b) {
      std::uint8_t acc = 0;
      for (std::size_t k = t; k-- > 0;) {
        acc = Mul(acc, static_cast<std::uint8_t>(x)) ^ coeffs[k].Expose()[b];
      }
      y.ExposeMutable()[b] = acc;
    }
    out.ys.push_back(std::move(y));
  }
  return out;
}

// Combines the shares at the given indices (exactly t of them).
bool DoCombine(const Split& split, std::size_t t, const std::vector<std::uint8_t>& xs,
               SecretBytes& secret_out) {
  const std::size_t len = split.ys[0].size();
  SecretBytes v(len);
  for (std::size_t i = 0; i < t; ++i) {
    std::uint8_t num = 1, den = 1;
    for (std::size_t m = 0; m < t; ++m) {
      if (m == i) continue;
      num = Mul(num, xs[m]);
      den = Mul(den, static_cast<std::uint8_t>(xs[i] ^ xs[m]));
    }
    const std::uint8_t l = Mul(num, Inv(den));
    const ByteView y = split.ys[xs[i] - 1u].Expose();
    for (std::size_t b = 0; b < len; ++b) v.ExposeMutable()[b] ^= Mul(l, y[b]);
  }
  const std::size_t s = len - kShamirValueOverhead;
  std::array<std::uint8_t, kShamirTagSize> tag;
  Tag(split.split_id, t, v.Expose().subspan(s, kShamirCheckKeySize), v.Expose().first(s),
      tag.data());
  if (!ConstantTimeEquals(tag, v.Expose().subspan(s + kShamirCheckKeySize))) return false;
  secret_out = SecretBytes::CopyFrom(v.Expose().first(s));
  return true;
}

}  // namespace naive

// ---------------------------------------------------------------------------------------------
// Benchmarks

void BM_Split(benchmark::State& state, std::size_t t, std::size_t n, std::size_t len,
              bool system_random) {
  const SecretBytes secret = BenchSecret(len);
  StreamRandom stream;
  const ShamirRandomFn fn = stream.Fn();
  for (auto _ : state) {
    auto shares = system_random ? ShamirSplit(secret, t, n) : ShamirSplit(secret, t, n, fn);
    benchmark::DoNotOptimize(shares);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(len));
}

void BM_Combine(benchmark::State& state, std::size_t t, std::size_t n, std::size_t len,
                std::size_t given) {
  const SecretBytes secret = BenchSecret(len);
  auto shares = ShamirSplit(secret, t, n);
  if (!shares.ok()) return state.SkipWithError("split failed");
  const std::span<const ShamirShare> some(shares->data(), given);
  for (auto _ : state) {
    auto got = ShamirCombine(some);
    benchmark::DoNotOptimize(got);
  }
  if (!ShamirCombine(some).ok()) state.SkipWithError("combine failed");
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(len));
}

void BM_NaiveSplit(benchmark::State& state, std::size_t t, std::size_t n, std::size_t len) {
  const SecretBytes secret = BenchSecret(len);
  {
    // The baseline must compute what the library computes.
    StreamRandom a, b;
    auto ours = ShamirSplit(secret, t, n, a.Fn());
    const naive::Split theirs = naive::DoSplit(secret, t, n, b.Fn());
    for (std::size_t i = 0; i < n; ++i) {
      if (!ours.ok() || !(*ours)[i].y().ConstantTimeEquals(theirs.ys[i])) {
        return state.SkipWithError("naive split disagrees with the library");
      }
    }
  }
  StreamRandom stream;
  const ShamirRandomFn fn = stream.Fn();
  for (auto _ : state) {
    naive::Split s = naive::DoSplit(secret, t, n, fn);
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(len));
}

void BM_NaiveCombine(benchmark::State& state, std::size_t t, std::size_t n, std::size_t len) {
  const SecretBytes secret = BenchSecret(len);
  StreamRandom stream;
  const naive::Split split = naive::DoSplit(secret, t, n, stream.Fn());
  std::vector<std::uint8_t> xs;
  for (std::size_t i = 0; i < t; ++i) xs.push_back(static_cast<std::uint8_t>(i + 1));
  SecretBytes out;
  if (!naive::DoCombine(split, t, xs, out) || !out.ConstantTimeEquals(secret)) {
    return state.SkipWithError("naive combine failed");
  }
  for (auto _ : state) {
    bool ok = naive::DoCombine(split, t, xs, out);
    benchmark::DoNotOptimize(ok);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(len));
}

// The one randombytes_buf call a 2-of-3 split of 32 bytes makes (8 + 16 + 64 bytes).
void BM_ShamirSystemRandom_88B(benchmark::State& state) {
  std::array<std::uint8_t, 88> buf;
  for (auto _ : state) {
    RandomBytes(buf);
    benchmark::DoNotOptimize(buf);
  }
}
BENCHMARK(BM_ShamirSystemRandom_88B);

const bool kRegistered = [] {
  struct Case {
    const char* name;
    std::size_t t, n, len;
  };
  for (const Case& c : {Case{"2of3_32B", 2, 3, 32}, Case{"3of5_32B", 3, 5, 32},
                        Case{"2of3_1KiB", 2, 3, 1024}, Case{"3of5_1KiB", 3, 5, 1024}}) {
    const std::string suffix = c.name;
    benchmark::RegisterBenchmark(("BM_ShamirSplit_" + suffix).c_str(), BM_Split, c.t, c.n, c.len,
                                 true);
    benchmark::RegisterBenchmark(("BM_ShamirSplitCallerRandom_" + suffix).c_str(), BM_Split, c.t,
                                 c.n, c.len, false);
    benchmark::RegisterBenchmark(("BM_ShamirNaiveSplitCallerRandom_" + suffix).c_str(),
                                 BM_NaiveSplit, c.t, c.n, c.len);
    benchmark::RegisterBenchmark(("BM_ShamirCombine_" + suffix).c_str(), BM_Combine, c.t, c.n,
                                 c.len, c.t);
    benchmark::RegisterBenchmark(("BM_ShamirNaiveCombine_" + suffix).c_str(), BM_NaiveCombine, c.t,
                                 c.n, c.len);
  }
  // All five shares of a 3-of-5 split: the two extra shares are checked against the polynomials.
  benchmark::RegisterBenchmark("BM_ShamirCombineAllShares_3of5_32B", BM_Combine, 3, 5, 32, 5);
  return true;
}();

}  // namespace
}  // namespace veil::crypto
