// Internal: the pieces of Schnorr signing shared with adaptor signatures (adaptor.cc).
//
// Thread safety: stateless functions.
#pragma once

#include "veil/base/bytes.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/schnorr.h"
#include "veil/zk/transcript.h"

namespace veil::zk {

struct SchnorrInternal {
  // The transcript "veil.zk.schnorr" v1 with the public key A and the message appended.
  static Transcript MessageTranscript(const ec::CompressedRistretto& public_key, ByteView message);
  // Appends R to `t` and draws c.
  static ec::Scalar Challenge(Transcript& t, const ec::CompressedRistretto& R);
  static SchnorrSignature Make(const ec::CompressedRistretto& r, const ec::RistrettoPoint& r_point,
                               const ec::Scalar& s) {
    return SchnorrSignature(r, r_point, s);
  }
};

}  // namespace veil::zk
