// Keccak: our portable C++ against OpenSSL 3.0's assembly, the same work on both sides in one run.
//
// Pairs are named BM_<Function>_<Workload>_{Veil,OpenSSL}. The target is SHAKE128 on one 168-byte
// block within 1.3x of OpenSSL: absorb a 168-byte input, squeeze 168 bytes. That is two
// permutations on both sides (the input fills the first block exactly, so the padding takes a
// second), plus each side's per-message overhead; OpenSSL reuses one EVP_MD_CTX and an EVP_MD
// fetched once, so no lookup or allocation is counted against it. OpenSSL does not expose the raw
// permutation, so BM_KeccakF1600_Veil has no partner; half of the SHAKE128 pair is the nearest
// comparison.
#include <benchmark/benchmark.h>
#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <memory>

#include "veil/crypto/keccak.h"

namespace {

using veil::Bytes;
using veil::crypto::KeccakState;
using veil::crypto::Sha3_256;
using veil::crypto::Shake128;

// One EVP_MD fetched up front and one context reused across iterations.
class OpenSslHasher {
 public:
  explicit OpenSslHasher(const char* name)
      : md_(EVP_MD_fetch(nullptr, name, nullptr), &EVP_MD_free),
        ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {}
  bool ok() const { return md_ != nullptr && ctx_ != nullptr; }

  bool Hash(const std::uint8_t* in, std::size_t in_len, std::uint8_t* out, std::size_t out_len,
            bool xof) {
    if (EVP_DigestInit_ex2(ctx_.get(), md_.get(), nullptr) != 1) return false;
    if (EVP_DigestUpdate(ctx_.get(), in, in_len) != 1) return false;
    if (xof) return EVP_DigestFinalXOF(ctx_.get(), out, out_len) == 1;
    unsigned int n = 0;
    return EVP_DigestFinal_ex(ctx_.get(), out, &n) == 1 && n == out_len;
  }

 private:
  std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> md_;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

Bytes Input(std::size_t n) {
  Bytes in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return in;
}

void BM_KeccakF1600_Veil(benchmark::State& state) {
  KeccakState s{};
  for (auto _ : state) {
    veil::crypto::KeccakF1600(s);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_KeccakF1600_Veil);

// The streaming interface into a stack buffer, as OpenSSL's side writes into one: no allocation.
void BM_Shake128_168B_Veil(benchmark::State& state) {
  const Bytes in = Input(168);
  std::array<std::uint8_t, 168> out;
  for (auto _ : state) {
    Shake128 x;
    x.Absorb(in);
    x.Squeeze(out);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 168);
}
BENCHMARK(BM_Shake128_168B_Veil);

void BM_Shake128_168B_OpenSSL(benchmark::State& state) {
  const Bytes in = Input(168);
  std::array<std::uint8_t, 168> out;
  OpenSslHasher h("SHAKE128");
  if (!h.ok()) state.SkipWithError("EVP_MD_fetch(SHAKE128) failed");
  for (auto _ : state) {
    if (!h.Hash(in.data(), in.size(), out.data(), out.size(), true)) {
      state.SkipWithError("OpenSSL SHAKE128 failed");
      break;
    }
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 168);
}
BENCHMARK(BM_Shake128_168B_OpenSSL);

// state.range(0) is the input length: 32 B (one block, a typical hash of a key or commitment)
// and 4 KiB (throughput).
void BM_Sha3_256_Veil(benchmark::State& state) {
  const Bytes in = Input(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto digest = Sha3_256::Hash(in);
    benchmark::DoNotOptimize(digest);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha3_256_Veil)->Arg(32)->Arg(4096);

void BM_Sha3_256_OpenSSL(benchmark::State& state) {
  const Bytes in = Input(static_cast<std::size_t>(state.range(0)));
  std::array<std::uint8_t, 32> digest;
  OpenSslHasher h("SHA3-256");
  if (!h.ok()) state.SkipWithError("EVP_MD_fetch(SHA3-256) failed");
  for (auto _ : state) {
    if (!h.Hash(in.data(), in.size(), digest.data(), digest.size(), false)) {
      state.SkipWithError("OpenSSL SHA3-256 failed");
      break;
    }
    benchmark::DoNotOptimize(digest);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha3_256_OpenSSL)->Arg(32)->Arg(4096);

}  // namespace
