// The AVX-512 IFMA multi-scalar multiplication (see msm_avx512.h; docs/notes/ec.md derives the
// bounds). Field elements of eight lanes: five vectors of radix-2^51 limbs, one lane each.
//   "tight": limbs 1..4 < 2^51, limb 0 < 2^51 + 2^17 (what Carry returns);
//   every input of Mul must have limbs < 2^52 (the multiplier reads 52 bits), so each sum and
//   difference is carried before it is multiplied.
#include "msm_avx512.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/status.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define VEIL_EC_HAVE_AVX512 1
// g++ 12 reports its own intrinsics' _mm512_undefined_epi32 (a self-initialised register) as
// (maybe) uninitialised once they are inlined here; the warning is about the header, not this code.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#define VEIL_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512ifma")))
#define VEIL_AVX512_INLINE VEIL_AVX512 __attribute__((always_inline)) inline
#else
#define VEIL_EC_HAVE_AVX512 0
#endif

namespace veil::ec::internal {

bool HaveAvx512Ifma() {
#if VEIL_EC_HAVE_AVX512
  static const bool kHave = [] {
    __builtin_cpu_init();
    const bool cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                     __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512ifma");
    const char* env = std::getenv("VEIL_EC_AVX512");
    return cpu && !(env != nullptr && std::strcmp(env, "0") == 0);
  }();
  return kHave;
#else
  return false;
#endif
}

namespace {

// The window width c for n points: the c that minimises the lanes' additions, ceil(W / 8) groups
// of eight windows, each n + 2^(c-1) additions (W = floor(253 / c) + 1 windows).
struct Windows {
  unsigned c;
  std::size_t count;   // W
  std::size_t groups;  // ceil(W / 8)
};

std::size_t WindowCount(unsigned c) { return 253 / c + 1; }

Windows ChooseWindows(std::size_t n) {
  Windows best{0, 0, 0};
  std::size_t best_cost = SIZE_MAX;
  for (unsigned c = 2; c <= 16; ++c) {
    const std::size_t count = WindowCount(c);
    const std::size_t groups = (count + 7) / 8;
    const std::size_t cost = groups * (n + (std::size_t{1} << (c - 1)));
    if (cost < best_cost) {
      best_cost = cost;
      best = {c, count, groups};
    }
  }
  return best;
}

// Signed digits without a carry chain: with h = sum over the windows below the top of
// 2^(c win + c - 1), the signed digit of window win is window win of s + h minus 2^(c-1) (the
// carries of the addition are the recoding's carries), so any window's digit is read directly.
// The top window starts at bit c floor(253 / c) and h has no bit there, so its digit is that
// window of s + h unshifted: for s < l < 2^253 at most 2^(253 mod c) <= 2^(c-1), a bucket like the
// others. Every digit's magnitude is therefore at most 2^(c-1).
using Words = std::array<std::uint64_t, 4>;

// h: the bit c win + c - 1 of every window below the top.
Words Halves(const Windows& w) {
  Words h{};
  for (std::size_t win = 0; win + 1 < w.count; ++win) {
    const std::size_t bit = win * w.c + w.c - 1;
    h[bit / 64] |= std::uint64_t{1} << (bit % 64);
  }
  return h;
}

Words AddHalves(const Scalar& s, const Words& h) {
  const Scalar::Bytes b = s.ToBytes();
  Words r;
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint64_t x = LoadLe64(b.data() + 8 * i);
    const std::uint64_t sum = x + h[i];
    r[i] = sum + carry;
    carry = static_cast<std::uint64_t>(sum < x) | static_cast<std::uint64_t>(r[i] < sum);
  }
  return r;  // s + h < 2^253 + 2^253: no carry out of the top word
}

std::int32_t Digit(const Words& v, std::size_t win, const Windows& w) {
  const std::size_t bit = win * w.c;
  const std::size_t idx = bit / 64, off = bit % 64;
  std::uint64_t x = v[idx] >> off;
  if (off + w.c > 64 && idx + 1 < 4) x |= v[idx + 1] << (64 - off);
  const auto d = static_cast<std::int32_t>(x & ((std::uint64_t{1} << w.c) - 1));
  return win + 1 == w.count ? d : d - (std::int32_t{1} << (w.c - 1));
}

// A point's cached form, 20 limbs: Y+X, Y-X, Z, 2dT, each with limbs < 2^51 + 2^18 (FeReduce's
// bound; FeMul's is tighter).
constexpr std::size_t kLimbs = 20;
// A table row: the 20 limbs and 4 words of padding, so a row is three 64-byte lines and three
// full 512-bit loads.
constexpr std::size_t kRow = 24;
struct alignas(64) Row {
  std::uint64_t w[kRow];
};
static_assert(sizeof(Row) == kRow * sizeof(std::uint64_t));

void AppendNiels(const Extended& e, std::uint64_t* out) {
  const Fe25519 x = crypto::FeReduce(e.x);
  const Fe25519 y = crypto::FeReduce(e.y);
  const Fe25519 f[4] = {crypto::FeReduce(FeAdd(y, x)), crypto::FeReduce(FeSub(y, x)),
                        crypto::FeReduce(e.z), FeMul(crypto::FeReduce(e.t), kD2)};
  for (std::size_t k = 0; k < 4; ++k) {
    for (std::size_t i = 0; i < 5; ++i) out[5 * k + i] = f[k].v[i];
  }
}

// Points a call takes at once (more are summed in chunks): the table takes 192 bytes a point, and
// an event keeps a row's offset times 4 in 32 bits.
constexpr std::size_t kMaxPoints = std::size_t{1} << 18;
static_assert((kMaxPoints + 1) * kRow * 4 < (std::uint64_t{1} << 32));

// Event encoding, one 32-bit word a lane and step: (offset of the point's table row) << 2 |
// boundary << 1 | negative. A boundary folds the running sum into the window's sum; its offset
// names the identity's row so that the row read stays in bounds.
constexpr std::uint32_t kNegative = 1;
constexpr std::uint32_t kBoundary = 2;

#if VEIL_EC_HAVE_AVX512

using V = __m512i;
struct FeV {
  V l[5];
};
struct ExtV {
  FeV x, y, z, t;
};
struct NielsV {
  FeV yp, ym, z, t2d;
};

VEIL_AVX512_INLINE V Bcast(std::uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }

VEIL_AVX512_INLINE FeV FeConst(const Fe25519& f) {
  return {{Bcast(f.v[0]), Bcast(f.v[1]), Bcast(f.v[2]), Bcast(f.v[3]), Bcast(f.v[4])}};
}

// Carries limbs below 2^63 to tight limbs (the top carry folds into limb 0 times 19).
VEIL_AVX512_INLINE FeV Carry(V r0, V r1, V r2, V r3, V r4) {
  const V m = Bcast((std::uint64_t{1} << 51) - 1);
  FeV r{{r0, r1, r2, r3, r4}};
  V c = _mm512_setzero_si512();
  for (std::size_t i = 0; i < 5; ++i) {
    r.l[i] = _mm512_add_epi64(r.l[i], c);
    c = _mm512_srli_epi64(r.l[i], 51);
    r.l[i] = _mm512_and_si512(r.l[i], m);
  }
  r.l[0] = _mm512_add_epi64(r.l[0], _mm512_mullo_epi64(c, Bcast(19)));
  return r;
}

VEIL_AVX512_INLINE FeV Add(const FeV& a, const FeV& b) {
  return Carry(_mm512_add_epi64(a.l[0], b.l[0]), _mm512_add_epi64(a.l[1], b.l[1]),
               _mm512_add_epi64(a.l[2], b.l[2]), _mm512_add_epi64(a.l[3], b.l[3]),
               _mm512_add_epi64(a.l[4], b.l[4]));
}

// 2p in limbs: 2^52 - 38, then 2^52 - 2; above any limb of a tight or cached element.
VEIL_AVX512_INLINE V TwoP(std::size_t i) {
  return Bcast(i == 0 ? (std::uint64_t{1} << 52) - 38 : (std::uint64_t{1} << 52) - 2);
}

// a - b as a + 2p - b, for b with limbs below 2^52 - 38.
VEIL_AVX512_INLINE FeV Sub(const FeV& a, const FeV& b) {
  V r[5];
  for (std::size_t i = 0; i < 5; ++i) {
    r[i] = _mm512_sub_epi64(_mm512_add_epi64(a.l[i], TwoP(i)), b.l[i]);
  }
  return Carry(r[0], r[1], r[2], r[3], r[4]);
}

// -a as 2p - a, not carried: limbs below 2^52, fit only as an input of Mul.
VEIL_AVX512_INLINE FeV NegForMul(const FeV& a) {
  FeV r;
  for (std::size_t i = 0; i < 5; ++i) r.l[i] = _mm512_sub_epi64(TwoP(i), a.l[i]);
  return r;
}

// a b for limbs below 2^52. A partial product a_i b_j = lo + hi 2^52 = lo + 2 hi 2^51: lo goes to
// position i + j, 2 hi to position i + j + 1. Each position then holds less than 2^56, and
// position k + 5 folds into k times 19 (2^255 = 19 mod p): below 2^61 before the carry.
VEIL_AVX512_INLINE FeV Mul(const FeV& a, const FeV& b) {
  const V zero = _mm512_setzero_si512();
  V lo[9], hi[10];
  for (std::size_t k = 0; k < 9; ++k) lo[k] = zero;
  for (std::size_t k = 0; k < 10; ++k) hi[k] = zero;
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = 0; j < 5; ++j) {
      lo[i + j] = _mm512_madd52lo_epu64(lo[i + j], a.l[i], b.l[j]);
      hi[i + j + 1] = _mm512_madd52hi_epu64(hi[i + j + 1], a.l[i], b.l[j]);
    }
  }
  V t[10];
  for (std::size_t k = 0; k < 10; ++k) {
    const V twice_hi = _mm512_add_epi64(hi[k], hi[k]);
    t[k] = k < 9 ? _mm512_add_epi64(lo[k], twice_hi) : twice_hi;
  }
  const V nineteen = Bcast(19);
  V r[5];
  for (std::size_t k = 0; k < 5; ++k) {
    r[k] = _mm512_add_epi64(t[k], _mm512_mullo_epi64(t[k + 5], nineteen));
  }
  return Carry(r[0], r[1], r[2], r[3], r[4]);
}

VEIL_AVX512_INLINE FeV Blend(__mmask8 m, const FeV& a, const FeV& b) {
  FeV r;
  for (std::size_t i = 0; i < 5; ++i) r.l[i] = _mm512_mask_blend_epi64(m, a.l[i], b.l[i]);
  return r;
}
VEIL_AVX512_INLINE ExtV Blend(__mmask8 m, const ExtV& a, const ExtV& b) {
  return {Blend(m, a.x, b.x), Blend(m, a.y, b.y), Blend(m, a.z, b.z), Blend(m, a.t, b.t)};
}
VEIL_AVX512_INLINE NielsV Blend(__mmask8 m, const NielsV& a, const NielsV& b) {
  return {Blend(m, a.yp, b.yp), Blend(m, a.ym, b.ym), Blend(m, a.z, b.z), Blend(m, a.t2d, b.t2d)};
}

// The columns of an 8 x 8 matrix of words given its rows: r[k] becomes column k.
VEIL_AVX512_INLINE void Transpose8x8(V r[8]) {
  V t[8], u[8];
  for (std::size_t i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]);
  }
  // 0x88 takes 128-bit lanes 0 and 2 of each source, 0xdd lanes 1 and 3.
  for (std::size_t i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm512_shuffle_i64x2(t[4 * i + 0], t[4 * i + 2], 0x88);
    u[4 * i + 1] = _mm512_shuffle_i64x2(t[4 * i + 0], t[4 * i + 2], 0xdd);
    u[4 * i + 2] = _mm512_shuffle_i64x2(t[4 * i + 1], t[4 * i + 3], 0x88);
    u[4 * i + 3] = _mm512_shuffle_i64x2(t[4 * i + 1], t[4 * i + 3], 0xdd);
  }
  r[0] = _mm512_shuffle_i64x2(u[0], u[4], 0x88);
  r[4] = _mm512_shuffle_i64x2(u[0], u[4], 0xdd);
  r[2] = _mm512_shuffle_i64x2(u[1], u[5], 0x88);
  r[6] = _mm512_shuffle_i64x2(u[1], u[5], 0xdd);
  r[1] = _mm512_shuffle_i64x2(u[2], u[6], 0x88);
  r[5] = _mm512_shuffle_i64x2(u[2], u[6], 0xdd);
  r[3] = _mm512_shuffle_i64x2(u[3], u[7], 0x88);
  r[7] = _mm512_shuffle_i64x2(u[3], u[7], 0xdd);
}

// P + Q, extended plus cached, to extended (add-2008-hwcd-3, as internal::Add; complete).
VEIL_AVX512_INLINE ExtV AddNiels(const ExtV& p, const NielsV& q) {
  const FeV pp = Mul(Add(p.y, p.x), q.yp);
  const FeV mm = Mul(Sub(p.y, p.x), q.ym);
  const FeV tt = Mul(p.t, q.t2d);
  const FeV zz = Mul(p.z, q.z);
  FeV zz2;  // below 2^53: a sum's input, never a product's
  for (std::size_t i = 0; i < 5; ++i) zz2.l[i] = _mm512_add_epi64(zz.l[i], zz.l[i]);
  const FeV cx = Sub(pp, mm);
  const FeV cy = Add(pp, mm);
  const FeV cz = Add(zz2, tt);
  const FeV ct = Sub(zz2, tt);
  return {Mul(cx, ct), Mul(cy, cz), Mul(cz, ct), Mul(cx, cy)};
}

VEIL_AVX512_INLINE NielsV ToNiels(const ExtV& e, const FeV& d2) {
  return {Add(e.y, e.x), Sub(e.y, e.x), e.z, Mul(e.t, d2)};
}

// Projective (X : Y : Z) and completed forms, as internal::Double (dbl-2008-hwcd).
struct ProjV {
  FeV x, y, z;
};
struct CompV {
  FeV x, y, z, t;
};

VEIL_AVX512_INLINE CompV DoubleV(const ProjV& p) {
  const FeV xx = Mul(p.x, p.x);
  const FeV yy = Mul(p.y, p.y);
  const FeV zz = Mul(p.z, p.z);
  FeV zz2;  // below 2^53: a difference's first input only
  for (std::size_t i = 0; i < 5; ++i) zz2.l[i] = _mm512_add_epi64(zz.l[i], zz.l[i]);
  const FeV x_plus_y = Add(p.x, p.y);
  const FeV x_plus_y_sq = Mul(x_plus_y, x_plus_y);
  const FeV yy_plus_xx = Add(yy, xx);
  const FeV yy_minus_xx = Sub(yy, xx);
  return {Sub(x_plus_y_sq, yy_plus_xx), yy_plus_xx, yy_minus_xx, Sub(zz2, yy_minus_xx)};
}
VEIL_AVX512_INLINE ProjV ToProjV(const CompV& c) {
  return {Mul(c.x, c.t), Mul(c.y, c.z), Mul(c.z, c.t)};
}
VEIL_AVX512_INLINE ExtV ToExtV(const CompV& c) {
  return {Mul(c.x, c.t), Mul(c.y, c.z), Mul(c.z, c.t), Mul(c.x, c.y)};
}

// 2^k P, k >= 1.
VEIL_AVX512_INLINE ExtV Times2kV(const ExtV& p, unsigned k) {
  CompV c = DoubleV({p.x, p.y, p.z});
  for (unsigned i = 1; i < k; ++i) c = DoubleV(ToProjV(c));
  return ToExtV(c);
}

// A lane-major block of eight extended points: limb i of coordinate k of lane l at [5 k + i][l].
struct LaneBlock {
  std::uint64_t w[kLimbs][8];
};

// Coordinate k (x, y, z, t) of a lane's point in a block.
Fe25519 LaneElement(const LaneBlock& b, std::size_t k, std::size_t lane) {
  Fe25519 f;
  for (std::size_t i = 0; i < 5; ++i) f.v[i] = b.w[5 * k + i][lane];
  return f;
}

VEIL_AVX512_INLINE void Store(const ExtV& e, LaneBlock& out) {
  const FeV* coords[4] = {&e.x, &e.y, &e.z, &e.t};
  for (std::size_t k = 0; k < 4; ++k) {
    for (std::size_t i = 0; i < 5; ++i) _mm512_storeu_si512(out.w[5 * k + i], coords[k]->l[i]);
  }
}
VEIL_AVX512_INLINE ExtV Load(const LaneBlock& in) {
  ExtV e;
  FeV* coords[4] = {&e.x, &e.y, &e.z, &e.t};
  for (std::size_t k = 0; k < 4; ++k) {
    for (std::size_t i = 0; i < 5; ++i) coords[k]->l[i] = _mm512_loadu_si512(in.w[5 * k + i]);
  }
  return e;
}

// Runs one group's event streams (steps x 8 events) over the cached points and stores the eight
// window sums.
VEIL_AVX512 void RunGroup(const std::uint32_t* events, std::size_t steps,
                          const std::uint64_t* table, LaneBlock& out) {
  const FeV d2 = FeConst(kD2);
  const V zero = _mm512_setzero_si512();
  const FeV fe0{{zero, zero, zero, zero, zero}};
  const FeV fe1{{Bcast(1), zero, zero, zero, zero}};
  ExtV running{fe0, fe1, fe1, fe0};
  ExtV sum = running;
  const __m256i negative = _mm256_set1_epi32(kNegative);
  const __m256i boundary = _mm256_set1_epi32(kBoundary);
  for (std::size_t s = 0; s < steps; ++s) {
    const __m256i e =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(events + 8 * s));  // NOLINT
    const __mmask8 neg = _mm256_test_epi32_mask(e, negative);
    const __mmask8 bnd = _mm256_test_epi32_mask(e, boundary);
    // Each lane's table row, read as three 512-bit words and turned into limb vectors.
    const std::uint64_t* row[8];
    for (std::size_t lane = 0; lane < 8; ++lane) row[lane] = table + (events[8 * s + lane] >> 2);
    V limbs[24];
    for (std::size_t b = 0; b < 3; ++b) {
      V* block = &limbs[8 * b];
      for (std::size_t lane = 0; lane < 8; ++lane)
        block[lane] = _mm512_loadu_si512(row[lane] + 8 * b);
      Transpose8x8(block);
    }
    NielsV g;
    FeV* parts[4] = {&g.yp, &g.ym, &g.z, &g.t2d};
    for (std::size_t k = 0; k < 4; ++k) {
      for (std::size_t i = 0; i < 5; ++i) parts[k]->l[i] = limbs[5 * k + i];
    }
    // A negative digit adds -P: Y+X and Y-X swap, 2dT changes sign.
    const NielsV point{Blend(neg, g.yp, g.ym), Blend(neg, g.ym, g.yp), g.z,
                       Blend(neg, g.t2d, NegForMul(g.t2d))};
    // Boundary lanes add the running sum to the window's sum instead; a step with none skips
    // the running sum's cached form and the blends.
    if (bnd == 0) {
      running = AddNiels(running, point);
      continue;
    }
    const NielsV addend = Blend(bnd, point, ToNiels(running, d2));
    const ExtV target = Blend(bnd, running, sum);
    const ExtV r = AddNiels(target, addend);
    running = Blend(bnd, r, running);
    sum = Blend(bnd, sum, r);
  }
  Store(sum, out);
}

// Lane l of group g holds window G l + g (G groups), so each lane's sums combine by Horner over
// the groups, all lanes at once: A_l = sum over g of 2^(c g) S_(G l + g). The lanes are left for
// the caller (sum over l of 2^(c G l) A_l, a chain of doublings cheaper in 64-bit code).
VEIL_AVX512 void CombineGroups(const LaneBlock* group_sums, std::size_t groups, unsigned c,
                               LaneBlock& out) {
  const FeV d2 = FeConst(kD2);
  ExtV acc = Load(group_sums[groups - 1]);
  for (std::size_t g = groups - 1; g-- > 0;) {
    acc = AddNiels(Times2kV(acc, c), ToNiels(Load(group_sums[g]), d2));
  }
  Store(acc, out);
}

VEIL_AVX512 void FieldOps(const Fe25519& a, const Fe25519& b, LaneBlock& out) {
  const FeV va = FeConst(a), vb = FeConst(b);
  const FeV r[3] = {Mul(va, vb), Add(va, vb), Sub(va, vb)};
  for (std::size_t k = 0; k < 3; ++k) {
    for (std::size_t i = 0; i < 5; ++i) _mm512_storeu_si512(out.w[5 * k + i], r[k].l[i]);
  }
}

#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif  // VEIL_EC_HAVE_AVX512

// One call's points, at most kMaxPoints (the table takes 192 bytes a point).
Extended PippengerAvx512Chunk(std::span<const Scalar> scalars,
                              std::span<const RistrettoPoint> points) {
#if VEIL_EC_HAVE_AVX512
  const std::size_t n = scalars.size();
  const Windows w = ChooseWindows(n);
  const std::size_t buckets = std::size_t{1} << (w.c - 1);
  const std::size_t steps = n + buckets;

  // The cached points, then the identity (1, 1, 1, 0) at index n.
  VEIL_CHECK_MSG(n <= kMaxPoints, "PippengerAvx512Chunk: too many points");
  std::vector<Row> rows(n + 1);  // aligned to cache lines: three lines a row
  for (std::size_t j = 0; j < n; ++j) AppendNiels(points[j].edwards(), rows[j].w);
  AppendNiels(kIdentity, rows[n].w);
  const std::uint64_t* table = rows.data()->w;
  const auto identity_event = static_cast<std::uint32_t>(n * kRow) << 2;

  const Words h = Halves(w);
  std::vector<Words> words(n);
  for (std::size_t j = 0; j < n; ++j) words[j] = AddHalves(scalars[j], h);

  std::vector<std::int32_t> digits(8 * n);
  std::vector<std::uint32_t> counts(8 * (buckets + 1));
  std::vector<std::uint32_t> next(buckets + 1);
  std::vector<std::uint32_t> events(8 * steps);
  std::vector<LaneBlock> group_sums(w.groups);
  for (std::size_t g = 0; g < w.groups; ++g) {
    std::fill(counts.begin(), counts.end(), 0u);
    for (std::size_t lane = 0; lane < 8; ++lane) {
      const std::size_t win = w.groups * lane + g;
      std::int32_t* d = &digits[lane * n];
      std::uint32_t* count = &counts[lane * (buckets + 1)];
      for (std::size_t j = 0; j < n; ++j) {
        d[j] = win < w.count ? Digit(words[j], win, w) : 0;
        ++count[static_cast<std::size_t>(d[j] < 0 ? -d[j] : d[j])];
      }
    }
    // Lane order: the zero digits (identity additions), then bucket 2^(c-1) down to 1, each
    // followed by its boundary.
    for (std::size_t lane = 0; lane < 8; ++lane) {
      const std::uint32_t* count = &counts[lane * (buckets + 1)];
      std::uint32_t at = count[0];
      next[0] = 0;
      for (std::size_t k = buckets; k >= 1; --k) {
        next[k] = at;
        at += count[k];
        events[8 * at + lane] = identity_event | kBoundary;
        ++at;
      }
      const std::int32_t* d = &digits[lane * n];
      for (std::size_t j = 0; j < n; ++j) {
        const auto k = static_cast<std::size_t>(d[j] < 0 ? -d[j] : d[j]);
        const std::uint32_t e =
            k == 0 ? identity_event
                   : (static_cast<std::uint32_t>(j * kRow) << 2) | (d[j] < 0 ? kNegative : 0u);
        events[8 * next[k]++ + lane] = e;
      }
    }
    RunGroup(events.data(), steps, table, group_sums[g]);
  }
  LaneBlock out;
  CombineGroups(group_sums.data(), w.groups, w.c, out);
  // sum over lanes of 2^(c G l) A_l, from the highest lane down.
  Extended total = kIdentity;
  const unsigned lane_shift = w.c * static_cast<unsigned>(w.groups);
  for (std::size_t lane = 8; lane-- > 0;) {
    const Extended a{LaneElement(out, 0, lane), LaneElement(out, 1, lane),
                     LaneElement(out, 2, lane), LaneElement(out, 3, lane)};
    total = lane == 7 ? a : AddExt(Times2k(total, lane_shift), a);
  }
  return total;
#else
  (void)scalars;
  (void)points;
  VEIL_CHECK_MSG(false, "PippengerAvx512: not built for this target");
  return kIdentity;
#endif
}

}  // namespace

Avx512FieldResults Avx512FieldForTest(const Fe25519& a, const Fe25519& b) {
  VEIL_CHECK_MSG(HaveAvx512Ifma(), "Avx512FieldForTest: the CPU has no AVX-512 IFMA");
  Avx512FieldResults r{};
#if VEIL_EC_HAVE_AVX512
  LaneBlock out;
  FieldOps(a, b, out);
  r = {LaneElement(out, 0, 0), LaneElement(out, 1, 0), LaneElement(out, 2, 0)};
  for (std::size_t lane = 1; lane < 8; ++lane) {
    for (std::size_t k = 0; k < 3; ++k) {
      VEIL_CHECK_MSG(LaneElement(out, k, lane).v == LaneElement(out, k, 0).v,
                     "Avx512FieldForTest: the lanes disagree");
    }
  }
#else
  (void)a;
  (void)b;
#endif
  return r;
}

Extended PippengerAvx512(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  VEIL_CHECK_MSG(HaveAvx512Ifma(), "PippengerAvx512: the CPU has no AVX-512 IFMA");
  VEIL_CHECK_MSG(scalars.size() == points.size(), "PippengerAvx512: spans differ in length");
  Extended total = kIdentity;
  for (std::size_t at = 0; at < scalars.size(); at += kMaxPoints) {
    const std::size_t len = std::min(kMaxPoints, scalars.size() - at);
    total = AddExt(total, PippengerAvx512Chunk(scalars.subspan(at, len), points.subspan(at, len)));
  }
  return total;
}

}  // namespace veil::ec::internal
