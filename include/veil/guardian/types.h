// The small value types of the guardian protocol: share ids, request nonces, commitments and
// share kinds, with their fixed sizes and wire names (docs/notes/guardian.md).
//
// Thread safety: values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"

namespace veil::guardian {

inline constexpr std::size_t kShareIdSize = 32;
inline constexpr std::size_t kNonceSize = 16;
inline constexpr std::size_t kCommitmentSize = 32;
// A share is 1 to 1024 bytes (a crypto/shamir.h share encoding, or any bytes).
inline constexpr std::size_t kMaxShareSize = 1024;
// The largest time any field may hold (unix seconds): 9999-12-31T23:59:59Z.
inline constexpr std::int64_t kMaxTimestamp = 253402300799;

using ShareId = std::array<std::uint8_t, kShareIdSize>;
using Nonce = std::array<std::uint8_t, kNonceSize>;
using Commitment = std::array<std::uint8_t, kCommitmentSize>;

// A record share, or a collection share (two-level keys: one per schema and month). The guardian
// treats both alike; the kind is stored and returned so that operators can count them.
enum class ShareKind : std::uint8_t { kRecord = 1, kCollection = 2 };
std::string_view ShareKindName(ShareKind kind);  // "record", "collection"
Result<ShareKind> ShareKindFromName(std::string_view name);

// Commitment to a share: SHA-256("veil-guardian commitment v1" || id || share).
Commitment ShareCommitment(const ShareId& id, ByteView share);

}  // namespace veil::guardian
