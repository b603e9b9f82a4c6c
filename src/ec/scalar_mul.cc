// Scalar multiplication on ristretto255 (see ristretto.h for which are constant time):
//   - variable base, constant time: signed radix-16 digits, a table of 1P..8P, 4 doublings and
//     one table addition per digit, every table entry read for every digit;
//   - fixed base, constant time: 32 tables of 1..8 times 256^i P in affine Niels form, two passes
//     over the odd and even digits with 4 doublings between (64 additions, 4 doublings);
//   - variable time: width-5 NAF for one point, a NAF-5 / NAF-8 pair for a A + b B, Straus
//     (interleaved NAF-5) for small multi-scalar sums, Pippenger (signed buckets) for large ones.
// docs/notes/ec.md gives the operation counts behind the choices.
#include <algorithm>
#include <vector>

#include "edwards.h"
#include "msm_avx512.h"
#include "veil/base/consttime.h"
#include "veil/base/status.h"
#include "veil/crypto/secret.h"
#include "veil/ec/ristretto.h"

namespace veil::ec {

using crypto::Fe25519;
using crypto::FeAdd;
using crypto::FeMul;
using crypto::FeSub;
using internal::AffineNiels;
using internal::Completed;
using internal::Extended;
using internal::Projective;
using internal::ProjectiveNiels;

struct FixedBaseTable::Impl {
  // tables[i][k] = (k + 1) 256^i P.
  std::array<std::array<AffineNiels, 8>, 32> tables;
};

namespace {

// The affine Niels form of a point, given 1/Z.
AffineNiels ToAffineNiels(const Extended& p, const Fe25519& z_inv) {
  const Fe25519 x = FeMul(p.x, z_inv);
  const Fe25519 y = FeMul(p.y, z_inv);
  return {FeAdd(y, x), FeSub(y, x), FeMul(FeMul(x, y), internal::kD2)};
}

// The affine Niels forms of many points with one field inversion (Montgomery's trick).
std::vector<AffineNiels> ToAffineNielsBatch(std::span<const Extended> points) {
  const std::size_t n = points.size();
  std::vector<Fe25519> z_inv(n), scratch(n);
  for (std::size_t i = 0; i < n; ++i) z_inv[i] = points[i].z;
  crypto::FeInvertBatch(z_inv, scratch);
  std::vector<AffineNiels> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = ToAffineNiels(points[i], z_inv[i]);
  return out;
}

std::shared_ptr<const FixedBaseTable::Impl> BuildFixedBaseTable(const Extended& p) {
  std::vector<Extended> multiples;
  multiples.reserve(256);
  Extended base = p;  // 256^i P
  for (std::size_t i = 0; i < 32; ++i) {
    Extended m = base;
    for (std::size_t k = 0; k < 8; ++k) {
      multiples.push_back(m);
      m = internal::AddExt(m, base);
    }
    base = internal::Times2k(base, 8);
  }
  const std::vector<AffineNiels> niels = ToAffineNielsBatch(multiples);
  auto impl = std::make_shared<FixedBaseTable::Impl>();
  for (std::size_t i = 0; i < 32; ++i) {
    for (std::size_t k = 0; k < 8; ++k) impl->tables[i][k] = niels[8 * i + k];
  }
  return impl;
}

Extended FixedBaseMul(const FixedBaseTable::Impl& t, const Scalar& s) {
  const std::array<std::int8_t, 64> d = s.ToRadix16();
  // sum d_i 16^i P = sum over odd i (16 * d_i 256^((i-1)/2) P) + sum over even i d_i 256^(i/2) P.
  Extended q = internal::kIdentity;
  for (std::size_t i = 1; i < 64; i += 2) {
    q = internal::ToExtended(internal::Add(
        q, internal::LookupSigned(t.tables[i / 2], d[i], internal::kAffineNielsIdentity)));
  }
  q = internal::Times2k(q, 4);
  for (std::size_t i = 0; i < 64; i += 2) {
    q = internal::ToExtended(internal::Add(
        q, internal::LookupSigned(t.tables[i / 2], d[i], internal::kAffineNielsIdentity)));
  }
  return q;
}

const FixedBaseTable& BasepointTable() {
  static const FixedBaseTable table(RistrettoPoint::Generator());
  return table;
}

// Odd multiples P, 3P, ..., (2 kCount - 1) P.
template <std::size_t kCount>
std::array<ProjectiveNiels, kCount> OddMultiples(const Extended& p) {
  std::array<ProjectiveNiels, kCount> t;
  const Extended p2 = internal::DoubleExt(p);
  Extended m = p;
  t[0] = internal::ToNiels(m);
  for (std::size_t i = 1; i < kCount; ++i) {
    m = internal::AddExt(m, p2);
    t[i] = internal::ToNiels(m);
  }
  return t;
}

// The odd multiples Q .. (2 n - 1) Q of Q, each in the extended form.
void OddMultiplesExt(const Extended& q, std::span<Extended> out) {
  const Extended q2 = internal::DoubleExt(q);
  out[0] = q;
  for (std::size_t i = 1; i < out.size(); ++i) out[i] = internal::AddExt(out[i - 1], q2);
}

// The odd multiples Q .. 127 Q of Q in affine form, for NAF-8.
std::vector<AffineNiels> AffineOddMultiples64(const Extended& q) {
  std::vector<Extended> m(64);
  OddMultiplesExt(q, m);
  return ToAffineNielsBatch(m);
}

// The basepoint's, for NAF-8.
const std::vector<AffineNiels>& BasepointOddMultiples() {
  static const std::vector<AffineNiels> table = AffineOddMultiples64(internal::kBasepoint);
  return table;
}

template <typename Niels>
Completed AddDigit(const Completed& c, std::int8_t digit, const Niels* odd_multiples) {
  const Extended e = internal::ToExtended(c);
  if (digit > 0) return internal::Add(e, odd_multiples[digit / 2]);
  return internal::Sub(e, odd_multiples[(-digit) / 2]);
}

// Working memory of the variable-time multi-scalar multiplications, kept per thread between calls.
// Allocating it afresh each time cost more than the arithmetic at some sizes: blocks above glibc's
// mmap threshold (128 KiB: Straus's tables from about 100 points, Pippenger's arrays) come back
// as fresh pages, and faulting them in took 8-20% of an MSM (docs/performance.md). Only public data
// passes through here (these functions are variable time); above kScratchKeep bytes the memory is
// returned after the call.
struct StrausDigit {
  std::uint32_t point;
  std::int32_t value;
};
struct VartimeScratch {
  std::vector<std::array<ProjectiveNiels, 8>> tables;
  std::vector<std::array<std::int8_t, 256>> nafs;
  std::vector<StrausDigit> digits;
  std::vector<AffineNiels> niels;
  std::vector<Fe25519> prefix;
  std::vector<Fe25519> z_inv;
  std::vector<std::array<std::uint64_t, 4>> words;
  std::vector<std::uint8_t> carries;

  std::size_t Bytes() const {
    return tables.capacity() * sizeof(tables[0]) + nafs.capacity() * sizeof(nafs[0]) +
           digits.capacity() * sizeof(digits[0]) + niels.capacity() * sizeof(niels[0]) +
           prefix.capacity() * sizeof(prefix[0]) + z_inv.capacity() * sizeof(z_inv[0]) +
           words.capacity() * sizeof(words[0]) + carries.capacity();
  }
  void ReleaseIfLarge() {
    constexpr std::size_t kScratchKeep = std::size_t{8} << 20;
    if (Bytes() > kScratchKeep) *this = VartimeScratch();
  }
};

VartimeScratch& Scratch() {
  thread_local VartimeScratch scratch;
  return scratch;
}

// Straus: one doubling chain, each point's NAF-5 digits added from its own table. The nonzero
// digits (about one in six) are listed bit by bit first, so the main loop reads only them, in
// order, instead of testing every point's digit at every bit.
Extended StrausVartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const std::size_t n = scalars.size();
  VartimeScratch& scratch = Scratch();
  auto& tables = scratch.tables;
  auto& nafs = scratch.nafs;
  tables.resize(n);
  nafs.resize(n);
  std::array<std::uint32_t, 257> start{};  // digits of bit i: [start[i], start[i + 1])
  for (std::size_t j = 0; j < n; ++j) {
    nafs[j] = scalars[j].ToNafVartime(5);
    tables[j] = OddMultiples<8>(points[j].edwards());
    for (std::size_t i = 0; i < 256; ++i) start[i + 1] += nafs[j][i] != 0 ? 1u : 0u;
  }
  for (std::size_t i = 0; i < 256; ++i) start[i + 1] += start[i];
  auto& digits = scratch.digits;
  digits.resize(start[256]);
  std::array<std::uint32_t, 256> next;
  std::copy(start.begin(), start.end() - 1, next.begin());
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < 256; ++i) {
      if (nafs[j][i] != 0) digits[next[i]++] = {static_cast<std::uint32_t>(j), nafs[j][i]};
    }
  }
  int top = 255;
  while (top >= 0 &&
         start[static_cast<std::size_t>(top) + 1] == start[static_cast<std::size_t>(top)]) {
    --top;
  }
  Extended out = internal::kIdentity;
  if (top >= 0) {
    Projective r{crypto::kFeZero, crypto::kFeOne, crypto::kFeOne};
    Completed c{};
    for (int i = top; i >= 0; --i) {
      const auto bit = static_cast<std::size_t>(i);
      c = internal::Double(r);
      for (std::uint32_t k = start[bit]; k < start[bit + 1]; ++k) {
        const StrausDigit d = digits[k];
        c = AddDigit(c, static_cast<std::int8_t>(d.value), tables[d.point].data());
      }
      r = internal::ToProjective(c);
    }
    out = internal::ToExtended(c);
  }
  scratch.ReleaseIfLarge();
  return out;
}

// Pippenger: per window of w bits, points sorted into 2^(w-1) buckets by |digit| (negated for
// negative digits), buckets summed with the running-sum trick. The windows run from the lowest up,
// each point's signed digit made on the fly from its scalar's words and a carry (no digit array),
// and their sums are combined at the end by doubling, from the highest down.
Extended PippengerVartime(std::span<const Scalar> scalars, std::span<const RistrettoPoint> points) {
  const std::size_t n = scalars.size();
  // Window width: the cost model of docs/notes/ec.md (windows * (7 n + 18 * 2^(w-1)) field
  // multiplications) shifted by measurement toward wider windows, since a point's add also costs
  // its digit and memory traffic (docs/performance.md has the probe).
  const unsigned w = n < 200 ? 6 : n < 700 ? 7 : n < 2500 ? 8 : n < 10000 ? 9 : 10;
  // ceil(253 / w) + 1 windows: the last takes the final carry.
  const std::size_t windows = (253 + w - 1) / w + 1;
  VartimeScratch& scratch = Scratch();
  auto& words = scratch.words;
  auto& carries = scratch.carries;
  words.resize(n);
  carries.assign(n, 0);
  for (std::size_t j = 0; j < n; ++j) {
    const Scalar::Bytes b = scalars[j].ToBytes();
    for (std::size_t i = 0; i < 4; ++i) words[j][i] = LoadLe64(b.data() + 8 * i);
  }
  // The points in affine Niels form, with one field inversion (Montgomery's trick).
  auto& niels = scratch.niels;
  auto& z_inv = scratch.z_inv;
  auto& prefix = scratch.prefix;
  niels.resize(n);
  z_inv.resize(n);
  prefix.resize(n);
  for (std::size_t j = 0; j < n; ++j) z_inv[j] = points[j].edwards().z;
  crypto::FeInvertBatch(z_inv, prefix);
  for (std::size_t j = 0; j < n; ++j) niels[j] = ToAffineNiels(points[j].edwards(), z_inv[j]);

  const std::size_t bucket_count = std::size_t{1} << (w - 1);
  const std::int32_t radix = std::int32_t{1} << w;
  const std::uint64_t mask = (std::uint64_t{1} << w) - 1;
  std::vector<Extended> buckets(bucket_count);
  std::vector<bool> used(bucket_count);
  std::vector<Extended> window_sums(windows);
  for (std::size_t win = 0; win < windows; ++win) {
    const std::size_t bit = win * w;
    const std::size_t idx = bit / 64, off = bit % 64;
    std::fill(used.begin(), used.end(), false);
    for (std::size_t j = 0; j < n; ++j) {
      std::uint64_t v = idx < 4 ? words[j][idx] >> off : 0;
      if (off + w > 64 && idx + 1 < 4) v |= words[j][idx + 1] << (64 - off);
      std::int32_t d = static_cast<std::int32_t>(v & mask) + carries[j];
      const std::int32_t carry = (d + radix / 2) >> w;  // 1 when d >= 2^(w-1)
      carries[j] = static_cast<std::uint8_t>(carry);
      d -= carry * radix;
      if (d == 0) continue;
      const auto b = static_cast<std::size_t>((d > 0 ? d : -d) - 1);
      const AffineNiels& q = niels[j];
      if (!used[b]) {
        // The first point into a bucket is written, not added to the identity. From the affine
        // Niels form: 2x = (y+x) - (y-x), 2y = (y+x) + (y-x), and with Z = 4 the extended
        // coordinates are (4x : 4y : 4 : 4xy) = (2(2x) : 2(2y) : 4 : (2x)(2y)).
        const Fe25519 x2 = FeSub(q.y_plus_x, q.y_minus_x);
        const Fe25519 y2 = crypto::FeReduce(FeAdd(q.y_plus_x, q.y_minus_x));
        const Fe25519 four{{4, 0, 0, 0, 0}};
        const Extended e{FeAdd(x2, x2), FeAdd(y2, y2), four, FeMul(x2, y2)};
        buckets[b] = d > 0 ? e : internal::NegExt(e);
        used[b] = true;
      } else {
        buckets[b] = internal::ToExtended(d > 0 ? internal::Add(buckets[b], q)
                                                : internal::Sub(buckets[b], q));
      }
    }
    // sum_k (k + 1) bucket_k = sum over k from the top of the running sum of buckets >= k.
    Extended running = internal::kIdentity;
    Extended window_sum = internal::kIdentity;
    for (std::size_t k = bucket_count; k-- > 0;) {
      if (used[k]) running = internal::AddExt(running, buckets[k]);
      window_sum = internal::AddExt(window_sum, running);
    }
    window_sums[win] = window_sum;
  }
  Extended total = window_sums[windows - 1];
  for (std::size_t win = windows - 1; win-- > 0;) {
    total = internal::AddExt(internal::Times2k(total, w), window_sums[win]);
  }
  scratch.ReleaseIfLarge();
  return total;
}

}  // namespace

FixedBaseTable::FixedBaseTable(const RistrettoPoint& p)
    : point_(p), impl_(BuildFixedBaseTable(p.edwards())) {}

RistrettoPoint FixedBaseTable::Mul(const Scalar& s) const {
  return RistrettoPoint::FromEdwardsUnchecked(FixedBaseMul(*impl_, s));
}

RistrettoPoint BasepointMul(const Scalar& s) { return BasepointTable().Mul(s); }

namespace {

// [s]P, constant time, over the signed radix-16 digits d[top..0] of s (top = 63 for any scalar,
// 32 for s < 2^128: the digits above are zero).
Extended VariableBaseMul(const Scalar& s, const Extended& p, std::size_t top) {
  std::array<ProjectiveNiels, 8> table;
  Extended m = p;
  for (std::size_t k = 0; k < 8; ++k) {
    table[k] = internal::ToNiels(m);
    m = internal::AddExt(m, p);
  }
  std::array<std::int8_t, 64> d = s.ToRadix16();
  // After each table addition only X, Y, Z are needed (the next step doubles), so the completed
  // point goes to projective coordinates (3M); the fourth doubling goes to extended (4M), which
  // the addition needs.
  Completed c = internal::Add(internal::kIdentity,
                              internal::LookupSigned(table, d[top], internal::kNielsIdentity));
  for (std::size_t i = top; i-- > 0;) {
    c = internal::Double(internal::ToProjective(c));
    for (int k = 0; k < 3; ++k) c = internal::Double(internal::ToProjective(c));
    c = internal::Add(internal::ToExtended(c),
                      internal::LookupSigned(table, d[i], internal::kNielsIdentity));
  }
  crypto::SecureWipe(d.data(), d.size());
  return internal::ToExtended(c);
}

}  // namespace

RistrettoPoint operator*(const Scalar& s, const RistrettoPoint& p) {
  return RistrettoPoint::FromEdwardsUnchecked(VariableBaseMul(s, p.edwards(), 63));
}

RistrettoPoint MulShort(const Scalar& s, const RistrettoPoint& p) {
  const Scalar::Bytes b = s.ToBytes();
  std::uint8_t high = 0;
  for (std::size_t i = 16; i < 32; ++i) high |= b[i];
  bool below = high == 0;  // a precondition, true for every correct caller: nothing to hide
  VEIL_DECLASSIFY(&below, sizeof below);
  VEIL_CHECK_MSG(below, "MulShort: scalar is not below 2^128");
  // s < 2^128: digits 0..31 carry at most a 1 into digit 32.
  return RistrettoPoint::FromEdwardsUnchecked(VariableBaseMul(s, p.edwards(), 32));
}

struct MultiScalarMulTable::Impl {
  std::vector<std::array<ProjectiveNiels, 8>> tables;
};

MultiScalarMulTable::MultiScalarMulTable(std::span<const RistrettoPoint> points)
    : size_(points.size()) {
  auto impl = std::make_shared<Impl>();
  impl->tables.resize(points.size());
  for (std::size_t j = 0; j < points.size(); ++j) {
    const Extended& p = points[j].edwards();
    Extended m = p;
    for (std::size_t k = 0; k < 8; ++k) {
      impl->tables[j][k] = internal::ToNiels(m);
      m = internal::AddExt(m, p);
    }
  }
  impl_ = std::move(impl);
}

RistrettoPoint MultiScalarMulTable::Mul(std::span<const Scalar> scalars) const {
  VEIL_CHECK_MSG(scalars.size() == size_, "MultiScalarMulTable::Mul: wrong number of scalars");
  const std::size_t n = size_;
  if (n == 0) return RistrettoPoint();
  // One doubling chain (4 per digit) shared by every point; each digit costs one table lookup
  // (all 8 entries read) and one addition, even for a zero digit, so nothing depends on the
  // scalars.
  std::vector<std::array<std::int8_t, 64>> digits(n);
  for (std::size_t j = 0; j < n; ++j) digits[j] = scalars[j].ToRadix16();
  const auto& tables = impl_->tables;
  Extended acc = internal::kIdentity;
  for (std::size_t i = 64; i-- > 0;) {
    if (i != 63) {
      Completed c = internal::Double(internal::ToProjective(acc));
      for (int k = 0; k < 3; ++k) c = internal::Double(internal::ToProjective(c));
      acc = internal::ToExtended(c);
    }
    for (std::size_t j = 0; j < n; ++j) {
      acc = internal::ToExtended(internal::Add(
          acc, internal::LookupSigned(tables[j], digits[j][i], internal::kNielsIdentity)));
    }
  }
  crypto::SecureWipe(digits.data(), digits.size() * sizeof(digits[0]));
  return RistrettoPoint::FromEdwardsUnchecked(acc);
}

RistrettoPoint MultiScalarMul(std::span<const Scalar> scalars,
                              std::span<const RistrettoPoint> points) {
  VEIL_CHECK_MSG(scalars.size() == points.size(), "MultiScalarMul: spans differ in length");
  return MultiScalarMulTable(points).Mul(scalars);
}

RistrettoPoint RistrettoPoint::MulVartime(const Scalar& s) const {
  const Scalar one_scalar[1] = {s};
  const RistrettoPoint one_point[1] = {*this};
  return RistrettoPoint::FromEdwardsUnchecked(StrausVartime(one_scalar, one_point));
}

RistrettoPoint DoubleScalarMulBasepointVartime(const Scalar& a, const RistrettoPoint& big_a,
                                               const Scalar& b) {
  const std::array<std::int8_t, 256> a_naf = a.ToNafVartime(5);
  const std::array<std::int8_t, 256> b_naf = b.ToNafVartime(8);
  const std::array<ProjectiveNiels, 8> a_table = OddMultiples<8>(big_a.edwards());
  const std::vector<AffineNiels>& b_table = BasepointOddMultiples();
  int i = 255;
  while (i >= 0 && a_naf[static_cast<std::size_t>(i)] == 0 &&
         b_naf[static_cast<std::size_t>(i)] == 0) {
    --i;
  }
  if (i < 0) return RistrettoPoint();
  Projective r{crypto::kFeZero, crypto::kFeOne, crypto::kFeOne};
  Completed c{};
  for (; i >= 0; --i) {
    c = internal::Double(r);
    const std::int8_t da = a_naf[static_cast<std::size_t>(i)];
    const std::int8_t db = b_naf[static_cast<std::size_t>(i)];
    if (da != 0) c = AddDigit(c, da, a_table.data());
    if (db != 0) c = AddDigit(c, db, b_table.data());
    r = internal::ToProjective(c);
  }
  return RistrettoPoint::FromEdwardsUnchecked(internal::ToExtended(c));
}

namespace {

// 2^128 B's odd multiples, for NAF-8 as BasepointOddMultiples.
const std::vector<AffineNiels>& BasepointHiOddMultiples() {
  static const std::vector<AffineNiels> table =
      AffineOddMultiples64(internal::Times2k(internal::kBasepoint, 128));
  return table;
}

// s = lo + 2^128 hi with lo < 2^128 and hi < 2^125 (s < l < 2^253).
std::array<Scalar, 2> SplitAt128(const Scalar& s) {
  const Scalar::Bytes b = s.ToBytes();
  Scalar::Bytes lo{};
  Scalar::Bytes hi{};
  std::copy(b.begin(), b.begin() + 16, lo.begin());
  std::copy(b.begin() + 16, b.end(), hi.begin());
  return {Scalar::FromBytesModOrder(lo), Scalar::FromBytesModOrder(hi)};
}

}  // namespace

namespace internal {

HalvedBase PrepareHalvedBase(const Extended& p) {
  std::array<Extended, 2 * HalvedBase::kOdd> m;
  OddMultiplesExt(p, std::span(m).first(HalvedBase::kOdd));
  OddMultiplesExt(Times2k(p, 128), std::span(m).subspan(HalvedBase::kOdd));
  const std::vector<AffineNiels> n = ToAffineNielsBatch(m);
  HalvedBase t;
  std::copy(n.begin(), n.begin() + HalvedBase::kOdd, t.lo.begin());
  std::copy(n.begin() + HalvedBase::kOdd, n.end(), t.hi.begin());
  return t;
}

Extended DoubleBaseHalvedVartime(const Scalar& a, const HalvedBase& p, const Scalar& b) {
  const std::array<Scalar, 2> a_halves = SplitAt128(a);
  const std::array<Scalar, 2> b_halves = SplitAt128(b);
  const std::array<std::array<std::int8_t, 256>, 4> nafs = {
      a_halves[0].ToNafVartime(6), a_halves[1].ToNafVartime(6), b_halves[0].ToNafVartime(8),
      b_halves[1].ToNafVartime(8)};
  const std::vector<AffineNiels>& b_lo = BasepointOddMultiples();
  const std::vector<AffineNiels>& b_hi = BasepointHiOddMultiples();
  // A NAF of a value below 2^128 has no digit above position 128.
  int i = 128;
  while (i >= 0 &&
         (nafs[0][static_cast<std::size_t>(i)] | nafs[1][static_cast<std::size_t>(i)] |
          nafs[2][static_cast<std::size_t>(i)] | nafs[3][static_cast<std::size_t>(i)]) == 0) {
    --i;
  }
  if (i < 0) return kIdentity;
  Projective r{crypto::kFeZero, crypto::kFeOne, crypto::kFeOne};
  Completed c{};
  for (; i >= 0; --i) {
    const auto k = static_cast<std::size_t>(i);
    c = Double(r);
    if (nafs[0][k] != 0) c = AddDigit(c, nafs[0][k], p.lo.data());
    if (nafs[1][k] != 0) c = AddDigit(c, nafs[1][k], p.hi.data());
    if (nafs[2][k] != 0) c = AddDigit(c, nafs[2][k], b_lo.data());
    if (nafs[3][k] != 0) c = AddDigit(c, nafs[3][k], b_hi.data());
    r = ToProjective(c);
  }
  return ToExtended(c);
}

}  // namespace internal

bool HasAvx512Msm() { return internal::HaveAvx512Ifma(); }

RistrettoPoint MultiScalarMulVartime(std::span<const Scalar> scalars,
                                     std::span<const RistrettoPoint> points,
                                     MsmAlgorithm algorithm) {
  VEIL_CHECK_MSG(scalars.size() == points.size(), "MultiScalarMulVartime: spans differ in length");
  if (scalars.empty()) return RistrettoPoint();
  // Where Pippenger's cost drops below Straus's. The model of docs/notes/ec.md (per point: Straus
  // 416 + 1792/n multiplications, Pippenger with w = 6 about 44 (7 + 576/n)) says about 200; the
  // measured crossing is lower (about 150: Straus's per-point tables, 1.3 KiB each, outgrow the
  // caches first; docs/performance.md). Bos-Coster was measured too and is cheaper at no size
  // (docs/performance.md, bench-ec-msm-5-boscoster.json).
  constexpr std::size_t kPippengerFrom = 150;
  // Where the AVX-512 IFMA Pippenger drops below Straus (measured, docs/performance.md).
  constexpr std::size_t kAvx512From = 4;
  if (algorithm == MsmAlgorithm::kAuto) {
    if (scalars.size() >= kAvx512From && internal::HaveAvx512Ifma()) {
      algorithm = MsmAlgorithm::kPippengerAvx512;
    } else {
      algorithm =
          scalars.size() < kPippengerFrom ? MsmAlgorithm::kStraus : MsmAlgorithm::kPippenger;
    }
  }
  switch (algorithm) {
    case MsmAlgorithm::kStraus:
      return RistrettoPoint::FromEdwardsUnchecked(StrausVartime(scalars, points));
    case MsmAlgorithm::kPippengerAvx512:
      return RistrettoPoint::FromEdwardsUnchecked(internal::PippengerAvx512(scalars, points));
    default:
      return RistrettoPoint::FromEdwardsUnchecked(PippengerVartime(scalars, points));
  }
}

}  // namespace veil::ec
