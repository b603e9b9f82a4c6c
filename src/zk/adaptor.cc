// Schnorr adaptor signatures (include/veil/zk/adaptor.h, docs/notes/sigma.md).
#include "veil/zk/adaptor.h"

#include <algorithm>

#include "schnorr_internal.h"
#include "veil/base/consttime.h"
#include "veil/zk/transcript.h"

namespace veil::zk {

struct AdaptorInternal {
  static AdaptorPreSignature Make(const ec::CompressedRistretto& r,
                                  const ec::RistrettoPoint& r_point, const ec::Scalar& s) {
    return AdaptorPreSignature(r, r_point, s);
  }
};

static_assert(kAdaptorPreSignatureSize == 64, "R' || s'");

Result<AdaptorPreSignature> AdaptorPreSignature::Decode(ByteView bytes) {
  VEIL_ASSIGN_OR_RETURN(SchnorrInternal::RsParts p,
                        SchnorrInternal::DecodeRs(bytes, "adaptor pre-signature"));
  return AdaptorPreSignature(p.r, p.r_point, p.s);
}

AdaptorPreSignature::Bytes AdaptorPreSignature::Encode() const {
  return SchnorrInternal::EncodeRs(r_encoding_, s_);
}

namespace {

AdaptorPreSignature PreSignImpl(const SchnorrSigningKey& key, ByteView message,
                                const ec::RistrettoPoint& T,
                                const std::span<const std::uint8_t, 32>* randomness) {
  const ec::Scalar& x = key.ExposeSecretScalar();
  Transcript t = SchnorrInternal::MessageTranscript(key.public_key().encoding(), message);
  const ec::CompressedRistretto t_enc = T.Encode();
  // The nonce also depends on T: one message pre-signed under two adaptor points must not share
  // a nonce, and must not share one with an ordinary signature (different frames).
  TranscriptRng rng = t.BuildRng();
  rng.AppendWitnessBytes("adaptor.T", t_enc.bytes());
  rng.AppendWitness("x", x);
  if (randomness != nullptr) {
    rng.FinalizeWithRandomness(*randomness);
  } else {
    rng.Finalize();
  }
  ec::Scalar k = rng.NextScalar();
  ec::RistrettoPoint r_prime = ec::BasepointMul(k);
  const ec::RistrettoPoint r = r_prime + T;
  const std::array<ec::RistrettoPoint, 2> both = {r_prime, r};
  std::vector<ec::CompressedRistretto> enc = ec::RistrettoPoint::EncodeBatch(both);
  // R' is part of the pre-signature and R = R' + T follows from public values: both public.
  VEIL_DECLASSIFY(enc.data(), enc.size() * sizeof(ec::CompressedRistretto));
  VEIL_DECLASSIFY(&r_prime, sizeof r_prime);
  const ec::Scalar c = SchnorrInternal::Challenge(t, enc[1]);
  ec::Scalar s = k + c * x;
  k.Wipe();
  // s' is the other half of the pre-signature: public.
  VEIL_DECLASSIFY(&s, sizeof s);
  return AdaptorInternal::Make(enc[0], r_prime, s);
}

}  // namespace

AdaptorPreSignature AdaptorPreSign(const SchnorrSigningKey& key, ByteView message,
                                   const ec::RistrettoPoint& T) {
  return PreSignImpl(key, message, T, nullptr);
}

AdaptorPreSignature AdaptorPreSignWithRandomness(const SchnorrSigningKey& key, ByteView message,
                                                 const ec::RistrettoPoint& T,
                                                 std::span<const std::uint8_t, 32> randomness) {
  return PreSignImpl(key, message, T, &randomness);
}

Status AdaptorPreVerify(const SchnorrPublicKey& public_key, ByteView message,
                        const ec::RistrettoPoint& T, const AdaptorPreSignature& pre_signature) {
  Transcript t = SchnorrInternal::MessageTranscript(public_key.encoding(), message);
  const ec::RistrettoPoint r = pre_signature.RPrimePoint() + T;
  const ec::Scalar c = SchnorrInternal::Challenge(t, r.Encode());
  // R' =? s' B - c A
  const ec::RistrettoPoint expected =
      ec::DoubleScalarMulBasepointVartime(-c, public_key.point(), pre_signature.s_prime());
  return expected == pre_signature.RPrimePoint() ? Status::Ok() : VerificationFailed();
}

SchnorrSignature AdaptorAdapt(const AdaptorPreSignature& pre_signature, const ec::Scalar& t) {
  const ec::RistrettoPoint r = pre_signature.RPrimePoint() + ec::BasepointMul(t);
  ec::CompressedRistretto r_enc = r.Encode();
  ec::Scalar s = pre_signature.s_prime() + t;
  // The adapted signature is what gets published.
  VEIL_DECLASSIFY(&r_enc, sizeof r_enc);
  VEIL_DECLASSIFY(&s, sizeof s);
  return SchnorrInternal::Make(r_enc, r, s);
}

Result<ec::Scalar> AdaptorExtract(const SchnorrSignature& signature,
                                  const AdaptorPreSignature& pre_signature,
                                  const ec::RistrettoPoint& T) {
  const ec::Scalar t = signature.s() - pre_signature.s_prime();
  if (!(signature.RPoint() == pre_signature.RPrimePoint() + T)) return VerificationFailed();
  if (!(ec::BasepointMul(t) == T)) return VerificationFailed();
  return t;
}

}  // namespace veil::zk
