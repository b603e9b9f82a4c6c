// Internal: the Borromean range prover without its range check, for the soundness tests (a
// cheating prover with a value that does not fit must still produce a proof that fails).
#pragma once

#include <cstdint>

#include "veil/zk/borromean_range.h"

namespace veil::zk {

struct BorromeanRangeInternal {
  // Prove's digit rings for value mod 2^bits against the commitment to the whole value.
  static BorromeanRangeProof ProveUnchecked(Transcript& transcript, std::uint64_t value,
                                            const ec::Scalar& blinding, unsigned bits);
};

}  // namespace veil::zk
