// Benchmarks of the group floor (ec/), each beside libsodium's ristretto255 API in the same run.
//
// libsodium's API takes and returns encodings, so every one of its operations decodes and encodes;
// the "in memory" figures of ours do not, and the "...WithCodec" ones do the same work as
// libsodium's for a like-for-like ratio. MSM is compared with n separate libsodium
// multiplications plus n - 1 additions (what a user of its API must do).
#include <benchmark/benchmark.h>
#include <sodium.h>

#include <vector>

#include "veil/ec/ed25519.h"
#include "veil/ec/ristretto.h"

namespace {

using namespace veil;
using namespace veil::ec;

using Bytes32 = std::array<std::uint8_t, 32>;

RistrettoPoint RandomPoint() { return BasepointMul(Scalar::Random()); }

Bytes32 RandomPointBytes() {
  Bytes32 b;
  crypto_core_ristretto255_random(b.data());
  return b;
}

Bytes32 RandomScalarBytes() {
  Bytes32 b;
  crypto_core_ristretto255_scalar_random(b.data());
  return b;
}

// --- field and scalar arithmetic ---

void BM_FieldMul_Veil(benchmark::State& state) {
  crypto::Fe25519 a = RandomPoint().edwards().x, b = RandomPoint().edwards().y;
  for (auto _ : state) {
    a = crypto::FeMul(a, b);
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_FieldMul_Veil);

void BM_FieldInvert_Veil(benchmark::State& state) {
  crypto::Fe25519 a = RandomPoint().edwards().x;
  for (auto _ : state) {
    a = crypto::FeInvert(a);
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_FieldInvert_Veil);

void BM_ScalarMul_Veil(benchmark::State& state) {
  Scalar a = Scalar::Random(), b = Scalar::Random();
  for (auto _ : state) {
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_ScalarMul_Veil);

void BM_ScalarMul_Libsodium(benchmark::State& state) {
  Bytes32 a = RandomScalarBytes(), b = RandomScalarBytes();
  for (auto _ : state) {
    crypto_core_ristretto255_scalar_mul(a.data(), a.data(), b.data());
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_ScalarMul_Libsodium);

void BM_ScalarInvert_Veil(benchmark::State& state) {
  Scalar a = Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize(a.Invert());
}
BENCHMARK(BM_ScalarInvert_Veil);

void BM_ScalarInvert_Libsodium(benchmark::State& state) {
  Bytes32 a = RandomScalarBytes(), out;
  for (auto _ : state)
    benchmark::DoNotOptimize(crypto_core_ristretto255_scalar_invert(out.data(), a.data()));
}
BENCHMARK(BM_ScalarInvert_Libsodium);

// --- point operations ---

void BM_PointAdd_Veil(benchmark::State& state) {
  RistrettoPoint a = RandomPoint(), b = RandomPoint();
  for (auto _ : state) {
    a = a + b;
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_PointAdd_Veil);

void BM_PointAddWithCodec_Veil(benchmark::State& state) {
  const Bytes32 a = RandomPointBytes(), b = RandomPointBytes();
  for (auto _ : state) {
    auto pa = RistrettoPoint::Decode(a), pb = RistrettoPoint::Decode(b);
    benchmark::DoNotOptimize((*pa + *pb).Encode());
  }
}
BENCHMARK(BM_PointAddWithCodec_Veil);

void BM_PointAdd_Libsodium(benchmark::State& state) {
  const Bytes32 a = RandomPointBytes(), b = RandomPointBytes();
  Bytes32 out;
  for (auto _ : state)
    benchmark::DoNotOptimize(crypto_core_ristretto255_add(out.data(), a.data(), b.data()));
}
BENCHMARK(BM_PointAdd_Libsodium);

void BM_Encode_Veil(benchmark::State& state) {
  const RistrettoPoint p = RandomPoint();
  for (auto _ : state) benchmark::DoNotOptimize(p.Encode());
}
BENCHMARK(BM_Encode_Veil);

void BM_Decode_Veil(benchmark::State& state) {
  const Bytes32 b = RandomPointBytes();
  for (auto _ : state) benchmark::DoNotOptimize(RistrettoPoint::Decode(b));
}
BENCHMARK(BM_Decode_Veil);

void BM_FromUniformBytes_Veil(benchmark::State& state) {
  std::array<std::uint8_t, 64> h;
  randombytes_buf(h.data(), h.size());
  for (auto _ : state) benchmark::DoNotOptimize(RistrettoPoint::FromUniformBytes(h));
}
BENCHMARK(BM_FromUniformBytes_Veil);

void BM_FromUniformBytes_Libsodium(benchmark::State& state) {
  std::array<std::uint8_t, 64> h;
  randombytes_buf(h.data(), h.size());
  Bytes32 out;
  for (auto _ : state)
    benchmark::DoNotOptimize(crypto_core_ristretto255_from_hash(out.data(), h.data()));
}
BENCHMARK(BM_FromUniformBytes_Libsodium);

// --- scalar multiplication ---

void BM_VariableBaseMul_Veil(benchmark::State& state) {
  const RistrettoPoint p = RandomPoint();
  const Scalar s = Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize(s * p);
}
BENCHMARK(BM_VariableBaseMul_Veil);

void BM_VariableBaseMulWithCodec_Veil(benchmark::State& state) {
  const Bytes32 p = RandomPointBytes();
  const Scalar s = Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize((s * *RistrettoPoint::Decode(p)).Encode());
}
BENCHMARK(BM_VariableBaseMulWithCodec_Veil);

void BM_VariableBaseMul_Libsodium(benchmark::State& state) {
  const Bytes32 p = RandomPointBytes(), s = RandomScalarBytes();
  Bytes32 out;
  for (auto _ : state)
    benchmark::DoNotOptimize(crypto_scalarmult_ristretto255(out.data(), s.data(), p.data()));
}
BENCHMARK(BM_VariableBaseMul_Libsodium);

void BM_VariableBaseMulVartime_Veil(benchmark::State& state) {
  const RistrettoPoint p = RandomPoint();
  const Scalar s = Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize(p.MulVartime(s));
}
BENCHMARK(BM_VariableBaseMulVartime_Veil);

void BM_FixedBaseMul_Veil(benchmark::State& state) {
  const Scalar s = Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize(BasepointMul(s));
}
BENCHMARK(BM_FixedBaseMul_Veil);

void BM_FixedBaseMulWithEncode_Veil(benchmark::State& state) {
  const Scalar s = Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize(BasepointMul(s).Encode());
}
BENCHMARK(BM_FixedBaseMulWithEncode_Veil);

void BM_FixedBaseMul_Libsodium(benchmark::State& state) {
  const Bytes32 s = RandomScalarBytes();
  Bytes32 out;
  for (auto _ : state)
    benchmark::DoNotOptimize(crypto_scalarmult_ristretto255_base(out.data(), s.data()));
}
BENCHMARK(BM_FixedBaseMul_Libsodium);

void BM_FixedBaseTableMul_Veil(benchmark::State& state) {
  const FixedBaseTable table(RandomPoint());
  const Scalar s = Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize(table.Mul(s));
}
BENCHMARK(BM_FixedBaseTableMul_Veil);

void BM_FixedBaseTableBuild_Veil(benchmark::State& state) {
  const RistrettoPoint p = RandomPoint();
  for (auto _ : state) benchmark::DoNotOptimize(FixedBaseTable(p));
}
BENCHMARK(BM_FixedBaseTableBuild_Veil)->Unit(benchmark::kMicrosecond);

void BM_DoubleScalarMulBasepoint_Veil(benchmark::State& state) {
  const RistrettoPoint a = RandomPoint();
  const Scalar x = Scalar::Random(), y = Scalar::Random();
  for (auto _ : state) benchmark::DoNotOptimize(DoubleScalarMulBasepointVartime(x, a, y));
}
BENCHMARK(BM_DoubleScalarMulBasepoint_Veil);

// --- Ed25519 verification (ed25519.h) beside libsodium's, same rules (tests/ec/ed25519_test.cc)
// ---

// A signed message of 600 bytes (about a ledger transaction's body).
struct Ed25519Case {
  Bytes32 pk;
  std::array<std::uint8_t, 64> sig;
  std::vector<std::uint8_t> msg = std::vector<std::uint8_t>(600, 0x5a);
  Ed25519Case() {
    std::array<std::uint8_t, 64> sk;
    crypto_sign_keypair(pk.data(), sk.data());
    crypto_sign_detached(sig.data(), nullptr, msg.data(), msg.size(), sk.data());
  }
};

void BM_Ed25519Verify_Libsodium(benchmark::State& state) {
  const Ed25519Case c;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        crypto_sign_verify_detached(c.sig.data(), c.msg.data(), c.msg.size(), c.pk.data()));
  }
}
BENCHMARK(BM_Ed25519Verify_Libsodium)->Unit(benchmark::kMicrosecond);

// From the key's bytes: the key decoded every time, as libsodium does.
void BM_Ed25519Verify_Veil(benchmark::State& state) {
  const Ed25519Case c;
  for (auto _ : state) benchmark::DoNotOptimize(Ed25519VerifyVartime(c.pk, c.msg, c.sig));
}
BENCHMARK(BM_Ed25519Verify_Veil)->Unit(benchmark::kMicrosecond);

// Preparing a key (decoding and the tables of the halved multiplication), what a node pays once
// a sender.
void BM_Ed25519PrepareKey_Veil(benchmark::State& state) {
  const Ed25519Case c;
  for (auto _ : state) benchmark::DoNotOptimize(Ed25519VerifyingKey::FromBytes(c.pk));
}
BENCHMARK(BM_Ed25519PrepareKey_Veil)->Unit(benchmark::kMicrosecond);

// With the key parsed once (a node's cache of its senders' keys).
void BM_Ed25519Verify_VeilParsedKey(benchmark::State& state) {
  const Ed25519Case c;
  const Ed25519VerifyingKey key = Ed25519VerifyingKey::FromBytes(c.pk).value();
  for (auto _ : state) benchmark::DoNotOptimize(key.Verify(c.msg, c.sig));
}
BENCHMARK(BM_Ed25519Verify_VeilParsedKey)->Unit(benchmark::kMicrosecond);

// --- multi-scalar multiplication and sums ---

// An MSM of n random points and scalars by `algorithm`, counter s_per_point.
void RunMsm(benchmark::State& state, std::size_t n, MsmAlgorithm algorithm) {
  std::vector<Scalar> s(n);
  std::vector<RistrettoPoint> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = Scalar::Random();
    p[i] = RandomPoint();
  }
  for (auto _ : state) benchmark::DoNotOptimize(MultiScalarMulVartime(s, p, algorithm));
  state.counters["s_per_point"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}

void BM_Msm_Veil(benchmark::State& state) {
  RunMsm(state, static_cast<std::size_t>(state.range(0)), MsmAlgorithm::kAuto);
}
BENCHMARK(BM_Msm_Veil)
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->Unit(benchmark::kMicrosecond);

// Each algorithm behind MultiScalarMulVartime around the size where the automatic choice
// switches: the measurement behind the crossing (docs/notes/ec.md). Arg 0: the MsmAlgorithm
// value, 1 Straus, 3 Pippenger, 4 Pippenger on AVX-512 IFMA (skipped where the CPU has none).
void BM_Msm_Algorithm(benchmark::State& state) {
  const auto algorithm = static_cast<MsmAlgorithm>(state.range(0));
  if (algorithm == MsmAlgorithm::kPippengerAvx512 && !HasAvx512Msm()) {
    state.SkipWithError("no AVX-512 IFMA on this CPU");
    return;
  }
  RunMsm(state, static_cast<std::size_t>(state.range(1)), algorithm);
}
BENCHMARK(BM_Msm_Algorithm)
    ->ArgsProduct({{1, 3, 4}, {2, 4, 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 4096}})
    ->Unit(benchmark::kMicrosecond);

// What libsodium's API offers for an MSM: n multiplications and n - 1 additions on encodings.
void BM_Msm_Libsodium(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<Bytes32> s(n), p(n);
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = RandomScalarBytes();
    p[i] = RandomPointBytes();
  }
  for (auto _ : state) {
    Bytes32 acc{}, t;
    for (std::size_t i = 0; i < n; ++i) {
      benchmark::DoNotOptimize(crypto_scalarmult_ristretto255(t.data(), s[i].data(), p[i].data()));
      benchmark::DoNotOptimize(crypto_core_ristretto255_add(acc.data(), acc.data(), t.data()));
    }
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(BM_Msm_Libsodium)->Arg(64)->Unit(benchmark::kMicrosecond);

void BM_Sum4096_Veil(benchmark::State& state) {
  std::vector<RistrettoPoint> p(4096);
  for (auto& q : p) q = RandomPoint();
  for (auto _ : state) benchmark::DoNotOptimize(Sum(p));
}
BENCHMARK(BM_Sum4096_Veil)->Unit(benchmark::kMicrosecond);

// The reconciliation check as the reference does it: 4,096 commitments arrive encoded.
void BM_Sum4096FromEncodings_Veil(benchmark::State& state) {
  std::vector<CompressedRistretto> e(4096);
  for (auto& q : e) q = RandomPoint().Encode();
  for (auto _ : state) {
    auto pts = RistrettoPoint::DecodeBatch(e);
    benchmark::DoNotOptimize(Sum(*pts).Encode());
  }
}
BENCHMARK(BM_Sum4096FromEncodings_Veil)->Unit(benchmark::kMicrosecond);

void BM_Sum4096_Libsodium(benchmark::State& state) {
  std::vector<Bytes32> p(4096);
  for (auto& q : p) q = RandomPointBytes();
  for (auto _ : state) {
    Bytes32 acc = p[0];
    for (std::size_t i = 1; i < p.size(); ++i) {
      benchmark::DoNotOptimize(crypto_core_ristretto255_add(acc.data(), acc.data(), p[i].data()));
    }
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(BM_Sum4096_Libsodium)->Unit(benchmark::kMicrosecond);

}  // namespace
