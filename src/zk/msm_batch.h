// Internal: the accumulator behind batch verification (sigma proofs, Schnorr signatures).
//
// Collects terms c_i P_i of one big linear combination that must be the identity. Points that
// recur across the batch (generators, public keys) are merged by their canonical encoding so each
// appears once in the final MultiScalarMulVartime. Variable time: public data only.
//
// Thread safety: single-threaded value.
#pragma once

#include <cstddef>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"

namespace veil::zk::internal {

// A uniformly random scalar below 2^128 (the batch weights; docs/notes/sigma.md).
ec::Scalar RandomWeight128();

// The canonical encoding of the standard generator, computed once.
const ec::CompressedRistretto& BasepointEncoding();

class MsmBatch {
 public:
  // Adds s P for a point that may recur: merged with earlier terms of the same encoding.
  void AddShared(const ec::CompressedRistretto& encoding, const ec::RistrettoPoint& point,
                 const ec::Scalar& s);
  // Adds s P for a point that is not expected to recur (a commitment, a nonce point).
  void Add(const ec::RistrettoPoint& point, const ec::Scalar& s);
  // Whether the sum of every term is the identity (one multi-scalar multiplication).
  bool IsIdentityVartime() const;
  std::size_t size() const { return points_.size(); }

 private:
  struct KeyHash {
    std::size_t operator()(const ec::CompressedRistretto::Bytes& b) const {
      std::size_t h;
      std::memcpy(&h, b.data(), sizeof h);
      return h;
    }
  };
  std::vector<ec::Scalar> scalars_;
  std::vector<ec::RistrettoPoint> points_;
  std::unordered_map<ec::CompressedRistretto::Bytes, std::size_t, KeyHash> shared_;
};

}  // namespace veil::zk::internal
