// Internal: the pieces of Schnorr signing shared with adaptor signatures (adaptor.cc), including
// the one 64-byte (R || s) layout both use.
//
// Thread safety: stateless functions.
#pragma once

#include <algorithm>
#include <array>
#include <string>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
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
  // R || s, as signatures and pre-signatures encode them.
  struct RsParts {
    ec::CompressedRistretto r;
    ec::RistrettoPoint r_point;
    ec::Scalar s;
  };
  // Strict decoding of R || s: exactly 64 bytes, R a valid canonical encoding, s < l; errors name
  // `what`.
  static Result<RsParts> DecodeRs(ByteView bytes, const char* what) {
    if (bytes.size() != 64) return InvalidArgument(std::string(what) + ": must be 64 bytes");
    VEIL_ASSIGN_OR_RETURN(ec::CompressedRistretto r,
                          ec::CompressedRistretto::FromBytes(bytes.first(32)));
    VEIL_ASSIGN_OR_RETURN(ec::RistrettoPoint r_point, r.Decode());
    VEIL_ASSIGN_OR_RETURN(ec::Scalar s, ec::Scalar::FromCanonical(bytes.subspan(32)));
    return RsParts{r, r_point, s};
  }
  static std::array<std::uint8_t, 64> EncodeRs(const ec::CompressedRistretto& r,
                                               const ec::Scalar& s) {
    std::array<std::uint8_t, 64> out{};
    const ec::Scalar::Bytes s_bytes = s.ToBytes();
    std::copy(r.bytes().begin(), r.bytes().end(), out.begin());
    std::copy(s_bytes.begin(), s_bytes.end(), out.begin() + 32);
    return out;
  }
  static SchnorrSignature Make(const ec::CompressedRistretto& r, const ec::RistrettoPoint& r_point,
                               const ec::Scalar& s) {
    return SchnorrSignature(r, r_point, s);
  }
};

}  // namespace veil::zk
