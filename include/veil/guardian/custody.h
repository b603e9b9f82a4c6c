// TwoGuardianCustody: Kalypso's 2-of-3 custody of a 32-byte key between the device and two
// guardians.
//
// Protect splits the key with crypto/shamir.h (threshold 2, three shares: index 1 stays on the
// device, index 2 goes to guardian A, index 3 to guardian B) and puts the guardian shares to both
// guardians in parallel under one share id. Recover with the device share contacts guardian A
// only, and guardian B only if A fails: at most one guardian when all is well. Recover without
// the device share asks both in parallel. Destroy destroys at both in parallel and returns both
// verified receipts. Collection keys (two-level keys) use the same calls with ShareKind
// kCollection.
//
// Errors: Protect fails unless both guardians stored their share (a share stored at one guardian
// only is left to expire, or to the caller's Destroy); Recover returns the first guardian's error
// when neither path gives two shares, VerificationFailed() when shares do not combine; Destroy
// returns the first failure but destroys at both regardless.
//
// Thread safety: calls may run concurrently if the two clients allow it (they do).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "veil/base/result.h"
#include "veil/crypto/secret.h"
#include "veil/guardian/client.h"
#include "veil/guardian/owner.h"
#include "veil/guardian/receipt.h"

namespace veil::guardian {

inline constexpr std::size_t kRecordKeySize = 32;
using RecordKey = crypto::Secret<kRecordKeySize>;

struct ProtectedKey {
  ShareId id{};
  crypto::SecretBytes device_share;  // the encoded Shamir share (index 1) kept on the device
};

class TwoGuardianCustody {
 public:
  // Both clients must outlive this object.
  TwoGuardianCustody(GuardianClient& a, GuardianClient& b) : a_(a), b_(b) {}

  Result<ProtectedKey> Protect(const OwnerSigner& owner, const RecordKey& key,
                               std::int64_t expires_at, ShareKind kind = ShareKind::kRecord);
  // Protect under a caller-chosen id.
  Result<ProtectedKey> Protect(const OwnerSigner& owner, const ShareId& id, const RecordKey& key,
                               std::int64_t expires_at, ShareKind kind = ShareKind::kRecord);

  // device_share: the ProtectedKey's device share, or null when the device lost it.
  Result<RecordKey> Recover(const OwnerSigner& owner, const ShareId& id,
                            const crypto::SecretBytes* device_share);

  Result<std::array<DestroyReceipt, 2>> Destroy(const OwnerSigner& owner, const ShareId& id);

  // Extends at both guardians in parallel.
  Status Extend(const OwnerSigner& owner, const ShareId& id, std::int64_t expires_at);

 private:
  GuardianClient& a_;
  GuardianClient& b_;
};

}  // namespace veil::guardian
