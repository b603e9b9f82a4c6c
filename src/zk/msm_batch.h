// Internal: the accumulator behind batch verification (sigma proofs, Schnorr signatures).
//
// Collects terms c_i P_i of one big linear combination that must be the identity. Points that
// recur across the batch (generators, public keys) are merged by their canonical encoding so each
// appears once in the final MultiScalarMulVartime. The merge table hashes the whole encoding with
// SipHash-2-4 (libsodium's crypto_shorthash) under a key drawn afresh for every batch: the
// encodings come from the proofs and keys being verified, so with an unkeyed hash (or one of a
// few bytes) their author could put every point in one bucket and make the merge quadratic.
// Variable time: public data only (the hash key is never revealed and changes with every batch).
//
// Thread safety: single-threaded value.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
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
  MsmBatch();

  // Adds s P for a point that may recur: merged with earlier terms of the same encoding.
  void AddShared(const ec::CompressedRistretto& encoding, const ec::RistrettoPoint& point,
                 const ec::Scalar& s);
  // Adds s P for a point that is not expected to recur (a commitment, a nonce point).
  void Add(const ec::RistrettoPoint& point, const ec::Scalar& s);
  // Whether the sum of every term is the identity (one multi-scalar multiplication).
  bool IsIdentityVartime() const;
  std::size_t size() const { return points_.size(); }

  // For the tests: the merge table's hash of an encoding, and its longest bucket.
  std::size_t SharedHash(const ec::CompressedRistretto& encoding) const;
  std::size_t LongestSharedBucket() const;

 private:
  struct KeyedHash {
    std::array<std::uint8_t, 16> key;  // crypto_shorthash_KEYBYTES
    std::size_t operator()(const ec::CompressedRistretto::Bytes& b) const;
  };
  std::vector<ec::Scalar> scalars_;
  std::vector<ec::RistrettoPoint> points_;
  std::unordered_map<ec::CompressedRistretto::Bytes, std::size_t, KeyedHash> shared_;
};

}  // namespace veil::zk::internal
