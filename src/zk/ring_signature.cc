// Triptych linkable ring signatures (include/veil/zk/ring_signature.h,
// docs/notes/one_of_many.md); the digit argument is shared with one-of-many proofs
// (one_of_many_internal.h).
#include "veil/zk/ring_signature.h"

#include <string>
#include <utility>

#include "msm_batch.h"
#include "one_of_many_internal.h"
#include "veil/base/consttime.h"
#include "veil/crypto/secret.h"
#include "veil/zk/transcript.h"

namespace veil::zk {

ec::RistrettoPoint KeyImageGenerator() {
  return ec::RistrettoPoint::HashToGroup(AsBytes("U"), AsBytes(kKeyImageDst));
}

Result<OneOfManyParams> DefaultRingParams(std::size_t N) {
  return internal::ChooseParams(N, internal::DigitProtocol::kRingSignature);
}

struct RingInternal {
  // U with its fixed-base table (key images and the Y_j are secret multiples of U).
  struct UGenerator {
    ec::FixedBaseTable table;
    ec::CompressedRistretto encoding;
  };
  static const UGenerator& U() {
    static const UGenerator u = [] {
      const ec::RistrettoPoint p = KeyImageGenerator();
      return UGenerator{ec::FixedBaseTable(p), p.Encode()};
    }();
    return u;
  }

  static RingSigningKey FromScalar(const ec::Scalar& r) {
    const ec::RistrettoPoint p = ec::BasepointMul(r);
    ec::CompressedRistretto p_enc = p.Encode();
    // The public key is public.
    VEIL_DECLASSIFY(&p, sizeof p);
    VEIL_DECLASSIFY(&p_enc, sizeof p_enc);
    ec::Scalar r_inv = r.Invert();
    const ec::RistrettoPoint j = U().table.Mul(r_inv);
    r_inv.Wipe();
    ec::CompressedRistretto j_enc = j.Encode();
    // The key image is published with every signature.
    VEIL_DECLASSIFY(&j, sizeof j);
    VEIL_DECLASSIFY(&j_enc, sizeof j_enc);
    return RingSigningKey(r, p, p_enc, KeyImage(j_enc, j));
  }
  static const ec::Scalar& Secret(const RingSigningKey& k) { return k.r_; }

  static Ring MakeRing(const OneOfManyParams& params, std::vector<ec::RistrettoPoint> points,
                       std::vector<ec::CompressedRistretto> encodings);

  static RingSignature MakeSignature(const OneOfManyParams& params, const KeyImage& j,
                                     std::vector<ec::CompressedRistretto> encodings,
                                     std::vector<ec::RistrettoPoint> points,
                                     std::vector<ec::Scalar> f, const ec::Scalar& z_a,
                                     const ec::Scalar& z_c, const ec::Scalar& z) {
    RingSignature s(params, j);
    s.encodings_ = std::move(encodings);
    s.points_ = std::move(points);
    s.f_ = std::move(f);
    s.z_a_ = z_a;
    s.z_c_ = z_c;
    s.z_ = z;
    return s;
  }
  static const std::vector<ec::CompressedRistretto>& Encodings(const RingSignature& s) {
    return s.encodings_;
  }
  static const std::vector<ec::RistrettoPoint>& Points(const RingSignature& s) { return s.points_; }
  static internal::DigitProofView View(const RingSignature& s) {
    return {std::span<const ec::RistrettoPoint>(s.points_).first(4), s.f_, &s.z_a_, &s.z_c_};
  }
  static const ec::Scalar& Z(const RingSignature& s) { return s.z_; }
  static KeyImage MakeKeyImage(const ec::CompressedRistretto& e, const ec::RistrettoPoint& p) {
    return KeyImage(e, p);
  }
};

// ---- Key images and keys ----

Result<KeyImage> KeyImage::Decode(ByteView bytes) {
  VEIL_ASSIGN_OR_RETURN(ec::CompressedRistretto enc, ec::CompressedRistretto::FromBytes(bytes));
  VEIL_ASSIGN_OR_RETURN(ec::RistrettoPoint p, enc.Decode());
  if (p.IsIdentity()) return InvalidArgument("key image: the identity");
  return KeyImage(enc, p);
}

RingSigningKey RingSigningKey::Generate() {
  ec::Scalar r = ec::Scalar::Random();
  // Zero has probability 2^-252 and is never a key; the verdict is public.
  for (;;) {
    bool zero = r.IsZero();
    VEIL_DECLASSIFY(&zero, sizeof zero);
    if (!zero) break;
    r = ec::Scalar::Random();
  }
  RingSigningKey key = RingInternal::FromScalar(r);
  r.Wipe();
  return key;
}

Result<RingSigningKey> RingSigningKey::FromBytes(ByteView secret) {
  VEIL_ASSIGN_OR_RETURN(ec::Scalar r, ec::Scalar::FromCanonical(secret));
  bool zero = r.IsZero();
  // Rejecting the zero key tells only that it was zero.
  VEIL_DECLASSIFY(&zero, sizeof zero);
  if (zero) return InvalidArgument("ring signing key: zero");
  RingSigningKey key = RingInternal::FromScalar(r);
  r.Wipe();
  return key;
}

RingSigningKey::RingSigningKey(RingSigningKey&& o) noexcept
    : r_(o.r_),
      public_key_(o.public_key_),
      public_key_encoding_(o.public_key_encoding_),
      key_image_(o.key_image_) {
  o.r_.Wipe();
}

RingSigningKey& RingSigningKey::operator=(RingSigningKey&& o) noexcept {
  if (this != &o) {
    r_ = o.r_;
    public_key_ = o.public_key_;
    public_key_encoding_ = o.public_key_encoding_;
    key_image_ = o.key_image_;
    o.r_.Wipe();
  }
  return *this;
}

crypto::Secret<32> RingSigningKey::ToBytes() const {
  ec::Scalar::Bytes b = r_.ToBytes();
  auto out = crypto::Secret<32>::CopyFrom(b);
  crypto::SecureWipe(b.data(), b.size());
  return out;
}

// ---- Rings ----

namespace {

constexpr std::string_view kRingDigestProtocol = "veil.zk.ring-signature.ring";

Result<OneOfManyParams> RingParams(std::size_t N, std::size_t base) {
  return base == 0 ? DefaultRingParams(N) : OneOfManyParams::Create(N, base);
}

Status CheckMembers(std::span<const ec::RistrettoPoint> points) {
  for (const auto& p : points) {
    if (p.IsIdentity()) return InvalidArgument("ring: a member is the identity");
  }
  return Status::Ok();
}

}  // namespace

Ring RingInternal::MakeRing(const OneOfManyParams& params, std::vector<ec::RistrettoPoint> points,
                            std::vector<ec::CompressedRistretto> encodings) {
  Ring ring;
  ring.params_ = params;
  ring.points_ = std::move(points);
  ring.encodings_ = std::move(encodings);
  ring.digest_ = internal::MemberDigest(kRingDigestProtocol, "P", ring.encodings_);
  return ring;
}

Result<Ring> Ring::FromPoints(std::span<const ec::RistrettoPoint> members, std::size_t base) {
  VEIL_ASSIGN_OR_RETURN(OneOfManyParams params, RingParams(members.size(), base));
  VEIL_RETURN_IF_ERROR(CheckMembers(members));
  return RingInternal::MakeRing(params, {members.begin(), members.end()},
                                ec::RistrettoPoint::EncodeBatch(members));
}

Result<Ring> Ring::Decode(std::span<const ec::CompressedRistretto> members, std::size_t base) {
  VEIL_ASSIGN_OR_RETURN(OneOfManyParams params, RingParams(members.size(), base));
  VEIL_ASSIGN_OR_RETURN(std::vector<ec::RistrettoPoint> points,
                        ec::RistrettoPoint::DecodeBatch(members));
  VEIL_RETURN_IF_ERROR(CheckMembers(points));
  return RingInternal::MakeRing(params, std::move(points), {members.begin(), members.end()});
}

// ---- Signatures ----

Result<RingSignature> RingSignature::Decode(ByteView bytes, const OneOfManyParams& params) {
  VEIL_RETURN_IF_ERROR(internal::CheckParams(params));
  if (bytes.size() != RingSignatureSize(params)) {
    return InvalidArgument("ring signature: wrong length");
  }
  std::size_t pos = 0;
  std::vector<ec::CompressedRistretto> encodings;
  std::vector<ec::RistrettoPoint> points;
  VEIL_RETURN_IF_ERROR(internal::ReadPoints(bytes, pos, 2 * params.m + 5, encodings, points));
  if (points[0].IsIdentity()) return InvalidArgument("ring signature: key image is the identity");
  const KeyImage j = RingInternal::MakeKeyImage(encodings[0], points[0]);
  encodings.erase(encodings.begin());
  points.erase(points.begin());
  std::vector<ec::Scalar> scalars;
  VEIL_RETURN_IF_ERROR(internal::ReadScalars(bytes, pos, params.m * (params.n - 1) + 3, scalars));
  const ec::Scalar z = scalars.back(), z_c = scalars[scalars.size() - 2],
                   z_a = scalars[scalars.size() - 3];
  scalars.resize(scalars.size() - 3);
  return RingInternal::MakeSignature(params, j, std::move(encodings), std::move(points),
                                     std::move(scalars), z_a, z_c, z);
}

Bytes RingSignature::Encode() const {
  Bytes out;
  out.reserve(RingSignatureSize(params_));
  internal::AppendEncoding(out, key_image_.encoding());
  for (const auto& e : encodings_) internal::AppendEncoding(out, e);
  for (const auto& s : f_) internal::AppendScalar(out, s);
  internal::AppendScalar(out, z_a_);
  internal::AppendScalar(out, z_c_);
  internal::AppendScalar(out, z_);
  return out;
}

// ---- The protocol ----

namespace {

// The transcript up to the proof's first message: parameters, ring, key image, message.
Transcript StatementTranscript(const Ring& ring, const KeyImage& j, ByteView message) {
  // The constant prefix (format and protocol frames) is absorbed once.
  static const Transcript kBase(kRingSignatureProtocol, kRingSignatureVersion);
  Transcript t = kBase;
  t.AppendU64("N", ring.params().N);
  t.AppendU64("n", ring.params().n);
  t.AppendU64("m", ring.params().m);
  t.AppendMessage("ring", ring.digest());
  t.AppendPoint("J", j.encoding());
  t.AppendMessage("message", message);
  return t;
}

// Appends A, B, C, D, X_0..X_{m-1}, Y_0..Y_{m-1} and draws x.
ec::Scalar Challenge(Transcript& t, std::span<const ec::CompressedRistretto> encodings,
                     std::size_t m) {
  static constexpr std::string_view kLabels[4] = {"A", "B", "C", "D"};
  for (std::size_t i = 0; i < 4; ++i) t.AppendPoint(kLabels[i], encodings[i]);
  for (std::size_t j = 0; j < m; ++j) t.AppendPoint("X", encodings[4 + j]);
  for (std::size_t j = 0; j < m; ++j) t.AppendPoint("Y", encodings[4 + m + j]);
  return t.ChallengeScalar("x");
}

// Adds the signature's four equations, each with its own random weight:
//   w1 (A + x B - Com(f; z_A)) + w2 (x C + D - Com(f (x - f); z_C))
//   + w3 (sum_k p_k(x) P_k - sum_j x^j X_j - z G) + w4 (x^m U - sum_j x^j Y_j - z J) = 0.
Status AddSignature(internal::MsmBatch& msm, const Ring& ring, ByteView message,
                    const RingSignature& sig) {
  const OneOfManyParams& p = ring.params();
  if (!(sig.params() == p)) {
    return InvalidArgument("ring signature: parameters differ from the ring's");
  }
  Transcript t = StatementTranscript(ring, sig.key_image(), message);
  const ec::Scalar x = Challenge(t, RingInternal::Encodings(sig), p.m);
  const internal::DigitProofView view = RingInternal::View(sig);
  const std::vector<ec::Scalar> f_full = internal::FullResponses(p, view.f, x);
  const std::vector<ec::Scalar> xp = internal::Powers(x, p.m);
  const internal::DigitGenerators& gens = internal::Generators();
  msm.AddShared(gens.h_encoding, gens.h, internal::AddBitEquations(msm, p, view, f_full, x));

  const ec::Scalar w3 = internal::RandomWeight128(), w4 = internal::RandomWeight128();
  const std::vector<ec::Scalar> pk = internal::EvaluateCoefficients(p, f_full, xp[p.m]);
  for (std::size_t k = 0; k < p.N; ++k) {
    msm.AddShared(ring.encodings()[k], ring.points()[k], w3 * pk[k]);
  }
  const auto& points = RingInternal::Points(sig);
  for (std::size_t j = 0; j < p.m; ++j) {
    msm.Add(points[4 + j], -(w3 * xp[j]));
    msm.Add(points[4 + p.m + j], -(w4 * xp[j]));
  }
  const ec::Scalar& z = RingInternal::Z(sig);
  msm.AddShared(internal::BasepointEncoding(), ec::RistrettoPoint::Generator(), -(w3 * z));
  const RingInternal::UGenerator& u = RingInternal::U();
  msm.AddShared(u.encoding, u.table.point(), w4 * xp[p.m]);
  msm.Add(sig.key_image().point(), -(w4 * z));
  return Status::Ok();
}

}  // namespace

Result<RingSignature> RingSign(const RingSigningKey& key, const Ring& ring, ByteView message) {
  const OneOfManyParams& p = ring.params();
  // The signer's position: every member compared, the last match kept, without a branch.
  std::uint64_t l = 0, found = 0;
  for (std::size_t k = 0; k < p.N; ++k) {
    const std::uint64_t eq =
        internal::CtEqBytes32(ring.encodings()[k].bytes(), key.public_key_encoding().bytes());
    l = CtSelect64(l, k, eq);
    found |= eq;
  }
  // Whether the key is in the ring at all is the only thing about l that is revealed.
  VEIL_DECLASSIFY(&found, sizeof found);
  if (found == 0) return InvalidArgument("ring signature: the signing key is not in the ring");

  const ec::Scalar& r = RingInternal::Secret(key);
  Transcript t = StatementTranscript(ring, key.key_image(), message);
  // Nonces: hedged, from the statement, the witness (r, l) and fresh randomness.
  TranscriptRng rng = t.BuildRng();
  std::array<std::uint8_t, 8> l_bytes{};
  StoreLe64(l_bytes.data(), l);
  rng.AppendWitness("r", r).AppendWitnessBytes("l", l_bytes);
  crypto::SecureWipe(l_bytes.data(), l_bytes.size());
  rng.Finalize();

  const internal::DigitProver prover(p, l, rng);
  crypto::SecureWipe(&l, sizeof l);
  std::vector<ec::Scalar> rho(p.m);
  for (auto& s : rho) s = rng.NextScalar();

  // X_j = sum_k p_{k,j} P_k + rho_j G (one table over the ring, reused for the m sums) and
  // Y_j = rho_j J = (rho_j r^{-1}) U (U's fixed-base table).
  const ec::MultiScalarMulTable table(ring.points());
  std::vector<ec::RistrettoPoint> points(prover.commitments().begin(), prover.commitments().end());
  std::vector<ec::RistrettoPoint> sums = prover.CoefficientSums(table);
  for (std::size_t j = 0; j < p.m; ++j) points.push_back(sums[j] + ec::BasepointMul(rho[j]));
  // Without their blinding the sums are functions of the secret digits and nonces.
  crypto::SecureWipe(sums.data(), sums.size() * sizeof(sums[0]));
  ec::Scalar r_inv = r.Invert();
  for (std::size_t j = 0; j < p.m; ++j) {
    ec::Scalar e = rho[j] * r_inv;
    points.push_back(RingInternal::U().table.Mul(e));
    e.Wipe();
  }
  r_inv.Wipe();
  std::vector<ec::CompressedRistretto> encodings = ec::RistrettoPoint::EncodeBatch(points);
  // A, B, C, D, X_j, Y_j are the signature's first message: public from here on.
  VEIL_DECLASSIFY(points.data(), points.size() * sizeof(ec::RistrettoPoint));
  VEIL_DECLASSIFY(encodings.data(), encodings.size() * sizeof(ec::CompressedRistretto));

  const ec::Scalar x = Challenge(t, encodings, p.m);
  std::vector<ec::Scalar> f;
  ec::Scalar z_a, z_c;
  prover.Respond(x, f, z_a, z_c);
  const std::vector<ec::Scalar> xp = internal::Powers(x, p.m);
  ec::Scalar z = internal::FinalResponse(r, rho, xp);
  for (auto& s : rho) s.Wipe();
  // The responses are the signature's last message: public.
  VEIL_DECLASSIFY(f.data(), f.size() * sizeof(ec::Scalar));
  VEIL_DECLASSIFY(&z_a, sizeof z_a);
  VEIL_DECLASSIFY(&z_c, sizeof z_c);
  VEIL_DECLASSIFY(&z, sizeof z);
  return RingInternal::MakeSignature(p, key.key_image(), std::move(encodings), std::move(points),
                                     std::move(f), z_a, z_c, z);
}

Status RingVerify(const Ring& ring, ByteView message, const RingSignature& signature) {
  internal::MsmBatch msm;
  VEIL_RETURN_IF_ERROR(AddSignature(msm, ring, message, signature));
  return msm.IsIdentityVartime() ? Status::Ok() : VerificationFailed();
}

Status RingBatchVerify(std::span<const RingBatchItem> items) {
  internal::MsmBatch msm;
  for (const RingBatchItem& item : items) {
    if (item.ring == nullptr || item.signature == nullptr) {
      return InvalidArgument("ring signature batch: null ring or signature");
    }
    VEIL_RETURN_IF_ERROR(AddSignature(msm, *item.ring, item.message, *item.signature));
  }
  return msm.IsIdentityVartime() ? Status::Ok() : VerificationFailed();
}

}  // namespace veil::zk
