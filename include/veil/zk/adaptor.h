// Schnorr adaptor signatures over ristretto255 (docs/notes/sigma.md, "Adaptor signatures").
//
// For an adaptor point T = t B (t unknown to the signer), a pre-signature on a message is
// (R', s') with nonce k, R' = k B, R = R' + T, c = the ordinary Schnorr challenge over
// (A, message, R) (schnorr.h), and s' = k + c x. Whoever knows t turns it into the ordinary
// signature (R, s = s' + t), which SchnorrVerify accepts; and from a pre-signature and the
// published signature anyone extracts t = s - s'. PreVerify checks s' B = R' + c A.
//
// No extra proof is needed: for Schnorr the pre-signature equation itself shows the nonce is well
// formed (unlike ECDSA adaptors, which need a DLEQ proof between R' and R). The nonce is
// deterministic-hedged as in schnorr.h and also absorbs T, so pre-signing one message under two
// adaptor points never reuses a nonce even with a broken RNG (two s' = k + c x with the same k and
// different c would reveal x).
//
// Encoding of a pre-signature: R' canonical (32 bytes) || s' canonical (32 bytes); Decode is
// strict (R' must decode, s' < l, exactly 64 bytes).
//
// Constant time: PreSign in the secret key and nonce, Adapt in t; PreVerify and Extract handle
// public data and are variable time (Extract's result is a secret once extracted: treat it so).
//
// Thread safety: values; functions are safe from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/schnorr.h"

namespace veil::zk {

inline constexpr std::size_t kAdaptorPreSignatureSize = 64;

class AdaptorPreSignature {
 public:
  using Bytes = std::array<std::uint8_t, kAdaptorPreSignatureSize>;

  static Result<AdaptorPreSignature> Decode(ByteView bytes);
  Bytes Encode() const;

  const ec::CompressedRistretto& R_prime() const { return r_encoding_; }
  const ec::RistrettoPoint& RPrimePoint() const { return r_point_; }
  const ec::Scalar& s_prime() const { return s_; }

 private:
  friend struct AdaptorInternal;
  AdaptorPreSignature(const ec::CompressedRistretto& r, const ec::RistrettoPoint& r_point,
                      const ec::Scalar& s)
      : r_encoding_(r), r_point_(r_point), s_(s) {}
  ec::CompressedRistretto r_encoding_;
  ec::RistrettoPoint r_point_;
  ec::Scalar s_;
};

AdaptorPreSignature AdaptorPreSign(const SchnorrSigningKey& key, ByteView message,
                                   const ec::RistrettoPoint& T);
// With the nonce randomness given (known-answer tests; see SchnorrSigningKey::SignWithRandomness).
AdaptorPreSignature AdaptorPreSignWithRandomness(const SchnorrSigningKey& key, ByteView message,
                                                 const ec::RistrettoPoint& T,
                                                 std::span<const std::uint8_t, 32> randomness);

// Ok if s' B = R' + c A with c over (A, message, R' + T); VerificationFailed() otherwise.
Status AdaptorPreVerify(const SchnorrPublicKey& public_key, ByteView message,
                        const ec::RistrettoPoint& T, const AdaptorPreSignature& pre_signature);

// The full signature (R' + t B, s' + t). Constant time in t. With the wrong t the result does not
// verify.
SchnorrSignature AdaptorAdapt(const AdaptorPreSignature& pre_signature, const ec::Scalar& t);

// t = s - s', checked: VerificationFailed() unless t B = T and R = R' + T.
Result<ec::Scalar> AdaptorExtract(const SchnorrSignature& signature,
                                  const AdaptorPreSignature& pre_signature,
                                  const ec::RistrettoPoint& T);

}  // namespace veil::zk
