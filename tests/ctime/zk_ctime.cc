// Constant-time checks for the proofs floor (zk/): Pedersen commitments (scalar and vector),
// sigma proving (discrete log, DLEQ, opening, and the nonce derivation through TranscriptRng),
// Schnorr key loading and signing, and adaptor pre-signing and adapting, each with the secret
// scalars marked undefined. The library marks its public outputs (commitments A_j, responses,
// R, s) with VEIL_DECLASSIFY where the protocol publishes them; anything else derived from a
// secret that reaches a branch or an index is reported by memcheck.
#include <array>

#include "ctime.h"
#include "veil/zk/adaptor.h"
#include "veil/zk/borromean_range.h"
#include "veil/zk/pedersen.h"
#include "veil/zk/schnorr.h"
#include "veil/zk/sigma.h"
#include "veil/zk/transcript.h"

namespace veil::zk {
namespace {

using ctime::Classify;
using ctime::Declassify;

void Secret(ec::Scalar& s) { Classify(&s, sizeof s); }

template <class T>
void Public(const T& v) {
  Declassify(&v, sizeof v);
}

VEIL_CTIME_CHECK(PedersenCommit) {
  const PedersenGens& gens = PedersenGens::Default();
  ec::Scalar v = ec::Scalar::Random(), r = ec::Scalar::Random();
  Secret(v);
  Secret(r);
  const Commitment c = gens.Commit(v, r);
  ec::CompressedRistretto enc = c.Encode();
  Public(enc);                             // a commitment is published
  Status s = gens.VerifyOpening(c, v, r);  // declassifies only its verdict
  Public(s);

  static const VectorPedersenGens vgens(4);
  std::array<ec::Scalar, 4> a = {ec::Scalar::Random(), ec::Scalar::Random(), ec::Scalar::Random(),
                                 ec::Scalar::Random()};
  for (auto& x : a) Secret(x);
  auto vc = vgens.Commit(a, r);
  Public(vc);
  ec::CompressedRistretto venc = vc->Encode();
  Public(venc);
}

VEIL_CTIME_CHECK(TranscriptRngWithSecretWitness) {
  Transcript t("veil.ctime", 1);
  t.AppendMessage("public", AsBytes("statement"));
  ec::Scalar w = ec::Scalar::Random();
  Secret(w);
  TranscriptRng rng = t.BuildRng();
  rng.AppendWitness("w", w);
  rng.Finalize();
  ec::Scalar k = rng.NextScalar();
  const ec::RistrettoPoint kb = ec::BasepointMul(k);
  ec::CompressedRistretto enc = kb.Encode();
  Public(enc);
}

VEIL_CTIME_CHECK(SigmaProving) {
  ec::Scalar x = ec::Scalar::Random();
  const ec::RistrettoPoint P = ec::BasepointMul(x);
  const ec::RistrettoPoint G = ec::BasepointMul(ec::Scalar::Random());
  const ec::RistrettoPoint Hp = ec::BasepointMul(ec::Scalar::Random());
  const ec::RistrettoPoint P2 = x * G, Q = x * Hp;
  const PedersenGens& gens = PedersenGens::Default();
  ec::Scalar v = ec::Scalar::Random(), r = ec::Scalar::Random();
  const Commitment C = gens.Commit(v, r);
  Secret(x);
  Secret(v);
  Secret(r);

  Transcript t1("veil.ctime", 1);
  Bytes dl = ProveDlog(t1, x, P).Encode();
  Declassify(dl.data(), dl.size());
  Transcript t2("veil.ctime", 1);
  Bytes dleq = ProveDleq(t2, x, G, P2, Hp, Q).Encode();
  Declassify(dleq.data(), dleq.size());
  Transcript t3("veil.ctime", 1);
  Bytes opening = ProveOpening(t3, gens, v, r, C).Encode();
  Declassify(opening.data(), opening.size());
}

VEIL_CTIME_CHECK(SchnorrSigning) {
  ec::Scalar::Bytes sk = ec::Scalar::Random().ToBytes();
  Classify(sk.data(), sk.size());
  // FromBytes declassifies the public key and the verdict "not zero"; the scalar stays secret.
  auto key = SchnorrSigningKey::FromBytes(sk);
  const auto sig = key->Sign(AsBytes("message")).Encode();
  Declassify(sig.data(), sig.size());
  const auto sig2 =
      key->SignWithRandomness(AsBytes("message"), std::array<std::uint8_t, 32>{}).Encode();
  Declassify(sig2.data(), sig2.size());

  SchnorrSigningKey fresh = SchnorrSigningKey::Generate();
  const auto sig3 = fresh.Sign(AsBytes("message")).Encode();
  Declassify(sig3.data(), sig3.size());
}

VEIL_CTIME_CHECK(AdaptorPreSignAndAdapt) {
  auto key = SchnorrSigningKey::FromBytes(ec::Scalar::Random().ToBytes());
  const ec::Scalar& x = key->ExposeSecretScalar();
  ec::Scalar t = ec::Scalar::Random();
  const ec::RistrettoPoint T = ec::BasepointMul(t);
  Classify(&x, sizeof x);
  Secret(t);
  const AdaptorPreSignature pre = AdaptorPreSign(*key, AsBytes("swap"), T);
  const auto pre_enc = pre.Encode();
  Declassify(pre_enc.data(), pre_enc.size());
  const SchnorrSignature sig = AdaptorAdapt(pre, t);
  const auto sig_enc = sig.Encode();
  Declassify(sig_enc.data(), sig_enc.size());
}

VEIL_CTIME_CHECK(BorromeanRangeProving) {
  // The value's digits pick which ring positions are real and which slots are dummies: none of it
  // may reach a branch or an index.
  for (const std::uint64_t v : {std::uint64_t{0}, std::uint64_t{0x2d}, std::uint64_t{0x3f}}) {
    std::uint64_t value = v;
    ec::Scalar r = ec::Scalar::Random();
    Classify(&value, sizeof value);
    Secret(r);
    Transcript t("veil.ctime.borromean", 1);
    auto proof = BorromeanRangeProof::Prove(t, value, r, 7);
    Public(proof.ok());
  }
}

}  // namespace
}  // namespace veil::zk
