// Internal: the Borromean range prover without its range check, for the soundness tests (a
// cheating prover with a value that does not fit must still produce a proof that fails), and with
// fixed nonce randomness, for the hedging tests.
#pragma once

#include <cstdint>
#include <span>

#include "veil/zk/borromean_range.h"

namespace veil::zk {

struct BorromeanRangeInternal {
  // Prove's digit rings for value mod 2^bits against the commitment to the whole value; with
  // `randomness`, the nonce generator's 32 bytes are those instead of fresh ones (the tests'
  // broken RNG).
  static BorromeanRangeProof ProveUnchecked(
      Transcript& transcript, std::uint64_t value, const ec::Scalar& blinding, unsigned bits,
      const std::span<const std::uint8_t, 32>* randomness = nullptr);
};

}  // namespace veil::zk
