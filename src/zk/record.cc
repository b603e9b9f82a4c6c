// Record statements (include/veil/zk/record.h, docs/notes/record.md).
#include "veil/zk/record.h"

#include <algorithm>
#include <vector>

#include "veil/base/consttime.h"
#include "veil/crypto/keccak.h"
#include "veil/zk/bulletproofs.h"
#include "veil/zk/one_of_many.h"
#include "veil/zk/sigma.h"
#include "veil/zk/transcript.h"

namespace veil::zk {

struct RecordInternal {
  static RecordProof Make(RecordProof::Kind kind, Bytes body) {
    RecordProof p;
    p.kind_ = kind;
    p.bytes_.resize(2 + body.size());
    p.bytes_[0] = RecordProof::kVersion;
    p.bytes_[1] = static_cast<std::uint8_t>(kind);
    std::copy(body.begin(), body.end(), p.bytes_.begin() + 2);
    return p;
  }
  // The proof's body after the header, if the kind matches.
  static Result<ByteView> Body(const RecordProof& p, RecordProof::Kind kind) {
    if (p.kind_ != kind) return InvalidArgument("record proof: another kind of statement");
    return ByteView(p.bytes_).subspan(2);
  }
};

namespace {

using Kind = RecordProof::Kind;

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kSlotEquals:
      return "slot-equals";
    case Kind::kSlotInRange:
      return "slot-in-range";
    case Kind::kSlotInSet:
      return "slot-in-set";
    case Kind::kSlotLessEqual:
      return "slot-less-equal";
    case Kind::kSlotsEqual:
      return "slots-equal";
  }
  return "unknown";
}

// The transcript every part of a proof is drawn from: the context, the kind, the commitments and
// the statement's parameters, in this order on both sides.
Transcript StatementTranscript(const RecordContext& ctx, Kind kind,
                               std::initializer_list<const Commitment*> commitments) {
  Transcript t("veil.zk.record", 1);
  t.AppendMessage("record-key", ctx.record_key);
  t.AppendMessage("statement", AsBytes(ctx.statement));
  t.AppendMessage("verifier-nonce", ctx.verifier_nonce);
  t.AppendMessage("kind", AsBytes(std::string_view(KindName(kind))));
  for (const Commitment* c : commitments) t.AppendPoint("C", c->point());
  return t;
}

// The transcript of each statement up to its sub-proofs, one function for prover and verifier.
Transcript EqualsTranscript(const RecordContext& ctx, const Commitment& c, std::size_t slot,
                            const ec::Scalar& value) {
  Transcript t = StatementTranscript(ctx, Kind::kSlotEquals, {&c});
  t.AppendU64("slot", slot);
  t.AppendScalar("value", value);
  return t;
}

Transcript RangeTranscript(const RecordContext& ctx, const Commitment& c, std::size_t slot,
                           std::uint64_t lo, std::uint64_t hi, const ec::RistrettoPoint& v) {
  Transcript t = StatementTranscript(ctx, Kind::kSlotInRange, {&c});
  t.AppendU64("slot", slot);
  t.AppendU64("lo", lo);
  t.AppendU64("hi", hi);
  t.AppendPoint("V", v);
  return t;
}

Transcript SetTranscript(const RecordContext& ctx, const Commitment& c, std::size_t slot,
                         std::span<const ec::Scalar> set, const ec::RistrettoPoint& v) {
  Transcript t = StatementTranscript(ctx, Kind::kSlotInSet, {&c});
  t.AppendU64("slot", slot);
  t.AppendU64("set-size", set.size());
  for (const auto& a : set) t.AppendScalar("a", a);
  t.AppendPoint("V", v);
  return t;
}

Transcript LessEqualTranscript(const RecordContext& ctx, const Commitment& c, std::size_t slot_i,
                               std::size_t slot_j, const ec::RistrettoPoint& va,
                               const ec::RistrettoPoint& vd) {
  Transcript t = StatementTranscript(ctx, Kind::kSlotLessEqual, {&c});
  t.AppendU64("slot-i", slot_i);
  t.AppendU64("slot-j", slot_j);
  t.AppendPoint("V_a", va);
  t.AppendPoint("V_d", vd);
  return t;
}

Transcript SlotsEqualTranscript(const RecordContext& ctx, const Commitment& c1, std::size_t slot_a,
                                const Commitment& c2, std::size_t slot_b) {
  Transcript t = StatementTranscript(ctx, Kind::kSlotsEqual, {&c1, &c2});
  t.AppendU64("slot-a", slot_a);
  t.AppendU64("slot-b", slot_b);
  return t;
}

// A cursor over a proof body that takes fixed-size parts and insists on using every byte.
class Reader {
 public:
  explicit Reader(ByteView b) : b_(b) {}
  Result<ByteView> Take(std::size_t n) {
    if (b_.size() - pos_ < n) return InvalidArgument("record proof: truncated");
    ByteView r = b_.subspan(pos_, n);
    pos_ += n;
    return r;
  }
  Result<ec::RistrettoPoint> Point() {
    VEIL_ASSIGN_OR_RETURN(ByteView b, Take(32));
    return ec::RistrettoPoint::Decode(b);
  }
  Status Done() const {
    return pos_ == b_.size() ? Status::Ok() : InvalidArgument("record proof: trailing bytes");
  }

 private:
  ByteView b_;
  std::size_t pos_ = 0;
};

void Append(Bytes& out, ByteView b) { out.insert(out.end(), b.begin(), b.end()); }

// A value commitment computed from secrets becomes part of the proof: its encoding is appended
// and made public, and the point is decoded again so that everything after works on the same
// public representation a verifier has.
ec::RistrettoPoint Publish(const ec::RistrettoPoint& secret_point, Bytes& out) {
  ec::CompressedRistretto enc = secret_point.Encode();
  VEIL_DECLASSIFY(&enc, sizeof enc);  // a commitment in the proof
  Append(out, enc.bytes());
  return enc.Decode().value();
}

// The standard generator's negation with a table: V_d's relation uses -m_i G.
const ec::FixedBaseTable& NegGeneratorTable() {
  static const ec::FixedBaseTable t(-ec::RistrettoPoint::Generator());
  return t;
}

// No slot left out of an opening's terms.
constexpr std::size_t kNoSkip = kRecordSlots;

std::vector<Term> OpeningTerms(const std::vector<PointVar>& g, PointVar h,
                               const std::vector<ScalarVar>& m, ScalarVar salt, std::size_t skip) {
  std::vector<Term> terms;
  for (std::size_t i = 0; i < kRecordSlots; ++i) {
    if (i == skip) continue;
    terms.push_back({m[i], g[i]});
  }
  terms.push_back({salt, h});
  return terms;
}

struct RecordRelation {
  LinearRelation relation;
  std::vector<PointVar> g;
  PointVar h{};
  PointVar b{};
};

RecordRelation NewRelation(std::string_view label) {
  RecordRelation r{LinearRelation(label), {}, {}, {}};
  const VectorPedersenGens& gens = RecordGens();
  for (std::size_t i = 0; i < kRecordSlots; ++i) r.g.push_back(r.relation.AddPoint(gens.table(i)));
  r.h = r.relation.AddPoint(PedersenGens::Default().h_table());
  r.b = r.relation.AddBasepoint();
  return r;
}

std::vector<ScalarVar> AddScalars(LinearRelation& rel, std::size_t n) {
  std::vector<ScalarVar> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(rel.AddScalar());
  return v;
}

// SlotEquals: C - value G_k = sum_{i != k} m_i G_i + salt H. Scalars: the other slots, salt.
LinearRelation EqualsRelation(const Commitment& c, std::size_t slot, const ec::Scalar& value) {
  RecordRelation r = NewRelation("veil.zk.record.slot-equals");
  std::vector<ScalarVar> m(kRecordSlots);
  for (std::size_t i = 0; i < kRecordSlots; ++i) {
    if (i != slot) m[i] = r.relation.AddScalar();
  }
  const ScalarVar salt = r.relation.AddScalar();
  const PointVar lhs = r.relation.AddPoint(c.point() - RecordGens().G(slot).MulVartime(value));
  r.relation.AddEquation(lhs, OpeningTerms(r.g, r.h, m, salt, slot));
  return std::move(r.relation);
}

// The link of a value commitment V = m_k G + r H to C. Scalars: m_0..m_7, salt, r.
LinearRelation LinkRelation(const Commitment& c, std::size_t slot, const ec::RistrettoPoint& v) {
  RecordRelation r = NewRelation("veil.zk.record.slot-link");
  const std::vector<ScalarVar> m = AddScalars(r.relation, kRecordSlots);
  const ScalarVar salt = r.relation.AddScalar();
  const ScalarVar blind = r.relation.AddScalar();
  r.relation.AddEquation(r.relation.AddPoint(c.point()), OpeningTerms(r.g, r.h, m, salt, kNoSkip));
  r.relation.AddEquation(r.relation.AddPoint(v), {{m[slot], r.b}, {blind, r.h}});
  return std::move(r.relation);
}

// SlotLessEqual: V_a = m_i G + r_a H, V_d = m_j G - m_i G + r_d H, linked to C. Scalars: m_0..m_7,
// salt, r_a, r_d.
LinearRelation LessEqualRelation(const Commitment& c, std::size_t i, std::size_t j,
                                 const ec::RistrettoPoint& va, const ec::RistrettoPoint& vd) {
  RecordRelation r = NewRelation("veil.zk.record.slot-less-equal");
  const std::vector<ScalarVar> m = AddScalars(r.relation, kRecordSlots);
  const ScalarVar salt = r.relation.AddScalar();
  const ScalarVar ra = r.relation.AddScalar();
  const ScalarVar rd = r.relation.AddScalar();
  const PointVar neg_b = r.relation.AddPoint(NegGeneratorTable());
  r.relation.AddEquation(r.relation.AddPoint(c.point()), OpeningTerms(r.g, r.h, m, salt, kNoSkip));
  r.relation.AddEquation(r.relation.AddPoint(va), {{m[i], r.b}, {ra, r.h}});
  r.relation.AddEquation(r.relation.AddPoint(vd), {{m[j], r.b}, {m[i], neg_b}, {rd, r.h}});
  return std::move(r.relation);
}

// SlotsEqual: C1 = sum m_i G_i + s1 H, C2 = sum_{i != b} m'_i G_i + m_a G_b + s2 H. Scalars:
// m_0..m_7, s1, m'_i (i != b), s2.
LinearRelation SlotsEqualRelation(const Commitment& c1, std::size_t a, const Commitment& c2,
                                  std::size_t b) {
  RecordRelation r = NewRelation("veil.zk.record.slots-equal");
  const std::vector<ScalarVar> m = AddScalars(r.relation, kRecordSlots);
  const ScalarVar s1 = r.relation.AddScalar();
  std::vector<ScalarVar> m2(kRecordSlots);
  for (std::size_t i = 0; i < kRecordSlots; ++i) m2[i] = i == b ? m[a] : r.relation.AddScalar();
  const ScalarVar s2 = r.relation.AddScalar();
  r.relation.AddEquation(r.relation.AddPoint(c1.point()), OpeningTerms(r.g, r.h, m, s1, kNoSkip));
  r.relation.AddEquation(r.relation.AddPoint(c2.point()), OpeningTerms(r.g, r.h, m2, s2, kNoSkip));
  return std::move(r.relation);
}

std::vector<ec::Scalar> OpeningWitness(const RecordOpening& o, std::size_t skip) {
  std::vector<ec::Scalar> w;
  for (std::size_t i = 0; i < kRecordSlots; ++i) {
    if (i != skip) w.push_back(o.slot(i));
  }
  w.push_back(o.salt());
  return w;
}

void Wipe(std::vector<ec::Scalar>& w) {
  for (auto& s : w) s.Wipe();
}

Status CheckSlot(std::size_t slot) {
  return slot < kRecordSlots ? Status::Ok() : InvalidArgument("record: slot index out of range");
}

// The smallest supported Bulletproofs width that holds hi - lo.
std::size_t RangeBits(std::uint64_t span) {
  for (const std::size_t n : {8u, 16u, 32u}) {
    if (span < (std::uint64_t{1} << n)) return n;
  }
  return 64;
}

// A constant-time verdict made public: the statement holds or the prover refuses.
Status Holds(bool holds) {
  VEIL_DECLASSIFY(&holds, sizeof holds);
  return holds ? Status::Ok()
               : InvalidArgument("record: the opening does not satisfy the statement");
}

// The record's commitment as the prover computes it from the opening: public (it is what the
// verifier holds), so its encoding is declassified and the point decoded from it.
Commitment PublicCommitment(const RecordOpening& opening) {
  ec::CompressedRistretto enc = opening.Commit().Encode();
  VEIL_DECLASSIFY(&enc, sizeof enc);  // the statement's commitment
  return Commitment(enc.Decode().value());
}

Result<SigmaProof> ReadSigma(Reader& in, const LinearRelation& rel) {
  VEIL_ASSIGN_OR_RETURN(ByteView b, in.Take(rel.ProofSize()));
  return SigmaProof::Decode(b, rel);
}

}  // namespace

ec::Scalar RecordSlotFromInteger(std::uint64_t v) { return ec::Scalar::FromUint64(v); }

ec::Scalar RecordSlotFromString(std::string_view s) {
  crypto::Shake256 h;
  h.Absorb(AsBytes(std::string_view("veil.zk.record.string.v1")));
  h.Absorb(AsBytes(s));
  std::array<std::uint8_t, 32> b{};
  h.Squeeze(MutableByteView(b.data(), 31));
  return ec::Scalar::FromBytesModOrder(b);
}

const VectorPedersenGens& RecordGens() {
  static const VectorPedersenGens gens(kRecordSlots);
  return gens;
}

RecordOpening::RecordOpening(std::span<const ec::Scalar> slots)
    : RecordOpening(slots, ec::Scalar::Random()) {}

RecordOpening::RecordOpening(std::span<const ec::Scalar> slots, const ec::Scalar& salt)
    : salt_(salt) {
  VEIL_CHECK_MSG(slots.size() <= kRecordSlots, "RecordOpening: more than 8 slots");
  std::copy(slots.begin(), slots.end(), slots_.begin());
}

RecordOpening::RecordOpening(RecordOpening&& o) noexcept : slots_(o.slots_), salt_(o.salt_) {
  o.WipeSecrets();
}

RecordOpening& RecordOpening::operator=(RecordOpening&& o) noexcept {
  if (this != &o) {
    slots_ = o.slots_;
    salt_ = o.salt_;
    o.WipeSecrets();
  }
  return *this;
}

RecordOpening::~RecordOpening() { WipeSecrets(); }

void RecordOpening::WipeSecrets() {
  for (auto& s : slots_) s.Wipe();
  salt_.Wipe();
}

Commitment RecordOpening::Commit() const {
  std::vector<ec::Scalar> m(slots_.begin(), slots_.end());
  Commitment c = RecordGens().Commit(m, salt_).value();
  Wipe(m);
  return c;
}

Result<RecordProof> RecordProof::Decode(ByteView bytes) {
  if (bytes.size() < 2) return InvalidArgument("record proof: truncated");
  if (bytes[0] != kVersion) return InvalidArgument("record proof: unknown version");
  if (bytes[1] < 1 || bytes[1] > 5) return InvalidArgument("record proof: unknown kind");
  RecordProof p;
  p.kind_ = static_cast<Kind>(bytes[1]);
  p.bytes_.assign(bytes.begin(), bytes.end());
  return p;
}

// ---- slot = value ----

Result<RecordProof> ProveSlotEquals(const RecordContext& ctx, const RecordOpening& opening,
                                    std::size_t slot, const ec::Scalar& value) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot));
  VEIL_RETURN_IF_ERROR(Holds(opening.slot(slot) == value));
  const Commitment c = PublicCommitment(opening);
  Transcript t = EqualsTranscript(ctx, c, slot, value);
  std::vector<ec::Scalar> w = OpeningWitness(opening, slot);
  Result<SigmaProof> sigma = Prove(t, EqualsRelation(c, slot, value), w);
  Wipe(w);
  VEIL_RETURN_IF_ERROR(sigma.status());
  return RecordInternal::Make(Kind::kSlotEquals, sigma->Encode());
}

Status VerifySlotEquals(const RecordContext& ctx, const Commitment& c, std::size_t slot,
                        const ec::Scalar& value, const RecordProof& proof) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot));
  VEIL_ASSIGN_OR_RETURN(ByteView body, RecordInternal::Body(proof, Kind::kSlotEquals));
  const LinearRelation rel = EqualsRelation(c, slot, value);
  Reader in(body);
  VEIL_ASSIGN_OR_RETURN(SigmaProof sigma, ReadSigma(in, rel));
  VEIL_RETURN_IF_ERROR(in.Done());
  Transcript t = EqualsTranscript(ctx, c, slot, value);
  return Verify(t, rel, sigma);
}

// ---- lo <= slot <= hi ----

Result<RecordProof> ProveSlotInRange(const RecordContext& ctx, const RecordOpening& opening,
                                     std::size_t slot, std::uint64_t lo, std::uint64_t hi) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot));
  if (lo > hi) return InvalidArgument("record: empty range");
  const std::size_t n = RangeBits(hi - lo);
  const Commitment c = PublicCommitment(opening);
  ec::Scalar r = ec::Scalar::Random();
  const ec::Scalar& m = opening.slot(slot);
  const ec::RistrettoPoint v = PedersenGens::Default().Commit(m, r).point();
  Bytes body;
  const ec::RistrettoPoint v_public = Publish(v, body);

  Transcript t = RangeTranscript(ctx, c, slot, lo, hi, v_public);
  std::vector<ec::Scalar> w = OpeningWitness(opening, kNoSkip);
  w.push_back(r);
  Result<SigmaProof> sigma = Prove(t, LinkRelation(c, slot, v_public), w);
  Wipe(w);
  VEIL_RETURN_IF_ERROR(sigma.status());
  Append(body, sigma->Encode());
  // m - lo and hi - m in [0, 2^n), with blindings r and -r.
  std::array<ec::Scalar, 2> values = {m - ec::Scalar::FromUint64(lo),
                                      ec::Scalar::FromUint64(hi) - m};
  std::array<ec::Scalar, 2> blindings = {r, -r};
  Result<RangeProofWithCommitments> range = ProveRange(t, n, values, blindings);
  for (auto& x : values) x.Wipe();
  for (auto& x : blindings) x.Wipe();
  r.Wipe();
  if (!range.ok()) return InvalidArgument("record: the opening does not satisfy the statement");
  Append(body, range->proof.Encode());
  return RecordInternal::Make(Kind::kSlotInRange, std::move(body));
}

Status VerifySlotInRange(const RecordContext& ctx, const Commitment& c, std::size_t slot,
                         std::uint64_t lo, std::uint64_t hi, const RecordProof& proof) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot));
  if (lo > hi) return InvalidArgument("record: empty range");
  const std::size_t n = RangeBits(hi - lo);
  VEIL_ASSIGN_OR_RETURN(ByteView body, RecordInternal::Body(proof, Kind::kSlotInRange));
  Reader in(body);
  VEIL_ASSIGN_OR_RETURN(ec::RistrettoPoint v, in.Point());
  const LinearRelation rel = LinkRelation(c, slot, v);
  VEIL_ASSIGN_OR_RETURN(SigmaProof sigma, ReadSigma(in, rel));
  VEIL_ASSIGN_OR_RETURN(ByteView range_bytes, in.Take(RangeProofSize(n, 2)));
  VEIL_RETURN_IF_ERROR(in.Done());
  VEIL_ASSIGN_OR_RETURN(RangeProof range, RangeProof::Decode(range_bytes, n, 2));
  Transcript t = RangeTranscript(ctx, c, slot, lo, hi, v);
  VEIL_RETURN_IF_ERROR(Verify(t, rel, sigma));
  const ec::RistrettoPoint& g = ec::RistrettoPoint::Generator();
  const std::array<Commitment, 2> shifted = {
      Commitment(v - g.MulVartime(ec::Scalar::FromUint64(lo))),
      Commitment(g.MulVartime(ec::Scalar::FromUint64(hi)) - v)};
  return VerifyRange(t, n, shifted, range);
}

// ---- slot in a public set ----

Result<RecordProof> ProveSlotInSet(const RecordContext& ctx, const RecordOpening& opening,
                                   std::size_t slot, std::span<const ec::Scalar> set) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot));
  if (set.empty() || set.size() > OneOfManyParams::kMaxSize) {
    return InvalidArgument("record: the set must have 1..4096 values");
  }
  const ec::Scalar& m = opening.slot(slot);
  // The member's index, found without a branch on the secret slot.
  std::uint64_t index = 0, found = 0;
  for (std::size_t i = 0; i < set.size(); ++i) {
    const std::uint64_t eq = static_cast<std::uint64_t>(set[i] == m);
    index = CtSelect64(index, i, eq & (found ^ 1));
    found |= eq;
  }
  VEIL_RETURN_IF_ERROR(Holds(found == 1));
  const Commitment c = PublicCommitment(opening);
  ec::Scalar r = ec::Scalar::Random();
  const ec::RistrettoPoint v_secret = PedersenGens::Default().Commit(m, r).point();
  Bytes body;
  const ec::RistrettoPoint v = Publish(v_secret, body);

  Transcript t = SetTranscript(ctx, c, slot, set, v);
  std::vector<ec::Scalar> w = OpeningWitness(opening, kNoSkip);
  w.push_back(r);
  Result<SigmaProof> sigma = Prove(t, LinkRelation(c, slot, v), w);
  Wipe(w);
  VEIL_RETURN_IF_ERROR(sigma.status());
  Append(body, sigma->Encode());
  // The members V - a_i G; the one at the index is r H.
  std::vector<ec::RistrettoPoint> members;
  members.reserve(set.size());
  for (const auto& a : set) members.push_back(v - ec::BasepointMul(a));
  VEIL_ASSIGN_OR_RETURN(OneOfManySet oom_set, OneOfManySet::FromPoints(members));
  Result<OneOfManyProof> oom = OneOfManyProve(t, oom_set, index, r);
  r.Wipe();
  VEIL_RETURN_IF_ERROR(oom.status());
  Append(body, oom->Encode());
  return RecordInternal::Make(Kind::kSlotInSet, std::move(body));
}

Status VerifySlotInSet(const RecordContext& ctx, const Commitment& c, std::size_t slot,
                       std::span<const ec::Scalar> set, const RecordProof& proof) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot));
  if (set.empty() || set.size() > OneOfManyParams::kMaxSize) {
    return InvalidArgument("record: the set must have 1..4096 values");
  }
  VEIL_ASSIGN_OR_RETURN(ByteView body, RecordInternal::Body(proof, Kind::kSlotInSet));
  Reader in(body);
  VEIL_ASSIGN_OR_RETURN(ec::RistrettoPoint v, in.Point());
  const LinearRelation rel = LinkRelation(c, slot, v);
  VEIL_ASSIGN_OR_RETURN(SigmaProof sigma, ReadSigma(in, rel));
  std::vector<ec::RistrettoPoint> members;
  members.reserve(set.size());
  const ec::RistrettoPoint& g = ec::RistrettoPoint::Generator();
  for (const auto& a : set) members.push_back(v - g.MulVartime(a));
  VEIL_ASSIGN_OR_RETURN(OneOfManySet oom_set, OneOfManySet::FromPoints(members));
  VEIL_ASSIGN_OR_RETURN(ByteView oom_bytes, in.Take(oom_set.params().ProofSize()));
  VEIL_RETURN_IF_ERROR(in.Done());
  VEIL_ASSIGN_OR_RETURN(OneOfManyProof oom, OneOfManyProof::Decode(oom_bytes, oom_set.params()));
  Transcript t = SetTranscript(ctx, c, slot, set, v);
  VEIL_RETURN_IF_ERROR(Verify(t, rel, sigma));
  return OneOfManyVerify(t, oom_set, oom);
}

// ---- slot_i <= slot_j ----

Result<RecordProof> ProveSlotLessEqual(const RecordContext& ctx, const RecordOpening& opening,
                                       std::size_t slot_i, std::size_t slot_j) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot_i));
  VEIL_RETURN_IF_ERROR(CheckSlot(slot_j));
  const Commitment c = PublicCommitment(opening);
  const PedersenGens& gens = PedersenGens::Default();
  ec::Scalar ra = ec::Scalar::Random(), rd = ec::Scalar::Random();
  std::array<ec::Scalar, 2> values = {opening.slot(slot_i),
                                      opening.slot(slot_j) - opening.slot(slot_i)};
  const ec::RistrettoPoint va_secret = gens.Commit(values[0], ra).point();
  const ec::RistrettoPoint vd_secret = gens.Commit(values[1], rd).point();
  Bytes body;
  const ec::RistrettoPoint va = Publish(va_secret, body);
  const ec::RistrettoPoint vd = Publish(vd_secret, body);

  Transcript t = LessEqualTranscript(ctx, c, slot_i, slot_j, va, vd);
  std::vector<ec::Scalar> w = OpeningWitness(opening, kNoSkip);
  w.push_back(ra);
  w.push_back(rd);
  Result<SigmaProof> sigma = Prove(t, LessEqualRelation(c, slot_i, slot_j, va, vd), w);
  Wipe(w);
  VEIL_RETURN_IF_ERROR(sigma.status());
  Append(body, sigma->Encode());
  // slot_i in [0, 2^64) and slot_j - slot_i in [0, 2^64): slot_i <= slot_j < 2^65 as integers.
  std::array<ec::Scalar, 2> blindings = {ra, rd};
  Result<RangeProofWithCommitments> range = ProveRange(t, 64, values, blindings);
  for (auto& x : values) x.Wipe();
  for (auto& x : blindings) x.Wipe();
  ra.Wipe();
  rd.Wipe();
  if (!range.ok()) return InvalidArgument("record: the opening does not satisfy the statement");
  Append(body, range->proof.Encode());
  return RecordInternal::Make(Kind::kSlotLessEqual, std::move(body));
}

Status VerifySlotLessEqual(const RecordContext& ctx, const Commitment& c, std::size_t slot_i,
                           std::size_t slot_j, const RecordProof& proof) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot_i));
  VEIL_RETURN_IF_ERROR(CheckSlot(slot_j));
  VEIL_ASSIGN_OR_RETURN(ByteView body, RecordInternal::Body(proof, Kind::kSlotLessEqual));
  Reader in(body);
  VEIL_ASSIGN_OR_RETURN(ec::RistrettoPoint va, in.Point());
  VEIL_ASSIGN_OR_RETURN(ec::RistrettoPoint vd, in.Point());
  const LinearRelation rel = LessEqualRelation(c, slot_i, slot_j, va, vd);
  VEIL_ASSIGN_OR_RETURN(SigmaProof sigma, ReadSigma(in, rel));
  VEIL_ASSIGN_OR_RETURN(ByteView range_bytes, in.Take(RangeProofSize(64, 2)));
  VEIL_RETURN_IF_ERROR(in.Done());
  VEIL_ASSIGN_OR_RETURN(RangeProof range, RangeProof::Decode(range_bytes, 64, 2));
  Transcript t = LessEqualTranscript(ctx, c, slot_i, slot_j, va, vd);
  VEIL_RETURN_IF_ERROR(Verify(t, rel, sigma));
  const std::array<Commitment, 2> committed = {Commitment(va), Commitment(vd)};
  return VerifyRange(t, 64, committed, range);
}

// ---- slot of one record = slot of another ----

Result<RecordProof> ProveSlotsEqual(const RecordContext& ctx, const RecordOpening& record1,
                                    std::size_t slot_a, const RecordOpening& record2,
                                    std::size_t slot_b) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot_a));
  VEIL_RETURN_IF_ERROR(CheckSlot(slot_b));
  VEIL_RETURN_IF_ERROR(Holds(record1.slot(slot_a) == record2.slot(slot_b)));
  const Commitment c1 = PublicCommitment(record1), c2 = PublicCommitment(record2);
  Transcript t = SlotsEqualTranscript(ctx, c1, slot_a, c2, slot_b);
  std::vector<ec::Scalar> w = OpeningWitness(record1, kNoSkip);
  std::vector<ec::Scalar> w2 = OpeningWitness(record2, slot_b);
  w.insert(w.end(), w2.begin(), w2.end());
  Wipe(w2);
  Result<SigmaProof> sigma = Prove(t, SlotsEqualRelation(c1, slot_a, c2, slot_b), w);
  Wipe(w);
  VEIL_RETURN_IF_ERROR(sigma.status());
  return RecordInternal::Make(Kind::kSlotsEqual, sigma->Encode());
}

Status VerifySlotsEqual(const RecordContext& ctx, const Commitment& c1, std::size_t slot_a,
                        const Commitment& c2, std::size_t slot_b, const RecordProof& proof) {
  VEIL_RETURN_IF_ERROR(CheckSlot(slot_a));
  VEIL_RETURN_IF_ERROR(CheckSlot(slot_b));
  VEIL_ASSIGN_OR_RETURN(ByteView body, RecordInternal::Body(proof, Kind::kSlotsEqual));
  const LinearRelation rel = SlotsEqualRelation(c1, slot_a, c2, slot_b);
  Reader in(body);
  VEIL_ASSIGN_OR_RETURN(SigmaProof sigma, ReadSigma(in, rel));
  VEIL_RETURN_IF_ERROR(in.Done());
  Transcript t = SlotsEqualTranscript(ctx, c1, slot_a, c2, slot_b);
  return Verify(t, rel, sigma);
}

}  // namespace veil::zk
