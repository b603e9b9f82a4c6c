// 2-of-3 custody between the device and two guardians (custody.h).
#include "veil/guardian/custody.h"

#include <future>
#include <utility>
#include <vector>

#include "veil/crypto/random.h"
#include "veil/crypto/shamir.h"

namespace veil::guardian {
namespace {

constexpr std::size_t kThreshold = 2;
constexpr std::size_t kShares = 3;

Status PutOne(GuardianClient& c, const OwnerSigner& owner, const ShareId& id, ShareKind kind,
              std::int64_t expires_at, const crypto::SecretBytes& share) {
  ShareToPut item{id, kind, expires_at, &share};
  VEIL_ASSIGN_OR_RETURN(auto results, c.Put(owner, std::span<const ShareToPut>(&item, 1)));
  return results.at(0).status;
}

Result<crypto::ShamirShare> GetOne(GuardianClient& c, const OwnerSigner& owner, const ShareId& id) {
  VEIL_ASSIGN_OR_RETURN(auto results, c.Get(owner, std::span<const ShareId>(&id, 1)));
  FetchedShare& f = results.at(0);
  VEIL_RETURN_IF_ERROR(f.status);
  return crypto::ShamirShare::Decode(f.share.Expose());
}

Result<RecordKey> Combine(std::vector<crypto::ShamirShare> shares) {
  VEIL_ASSIGN_OR_RETURN(crypto::SecretBytes secret, crypto::ShamirCombine(shares));
  if (secret.size() != kRecordKeySize) return VerificationFailed();
  return RecordKey::CopyFrom(
      std::span<const std::uint8_t, kRecordKeySize>(secret.Expose().data(), kRecordKeySize));
}

}  // namespace

Result<ProtectedKey> TwoGuardianCustody::Protect(const OwnerSigner& owner, const RecordKey& key,
                                                 std::int64_t expires_at, ShareKind kind) {
  ShareId id{};
  crypto::RandomBytes(id);
  return Protect(owner, id, key, expires_at, kind);
}

Result<ProtectedKey> TwoGuardianCustody::Protect(const OwnerSigner& owner, const ShareId& id,
                                                 const RecordKey& key, std::int64_t expires_at,
                                                 ShareKind kind) {
  const crypto::SecretBytes secret = crypto::SecretBytes::CopyFrom(key.Expose());
  VEIL_ASSIGN_OR_RETURN(auto shares, crypto::ShamirSplit(secret, kThreshold, kShares));
  const crypto::SecretBytes share_a = shares[1].Encode();
  const crypto::SecretBytes share_b = shares[2].Encode();
  auto fa = std::async(std::launch::async,
                       [&] { return PutOne(a_, owner, id, kind, expires_at, share_a); });
  const Status sb = PutOne(b_, owner, id, kind, expires_at, share_b);
  const Status sa = fa.get();
  VEIL_RETURN_IF_ERROR(sa);
  VEIL_RETURN_IF_ERROR(sb);
  return ProtectedKey{id, shares[0].Encode()};
}

Result<RecordKey> TwoGuardianCustody::Recover(const OwnerSigner& owner, const ShareId& id,
                                              const crypto::SecretBytes* device_share) {
  if (device_share != nullptr) {
    VEIL_ASSIGN_OR_RETURN(auto device, crypto::ShamirShare::Decode(device_share->Expose()));
    // Device share first: one guardian suffices; the second only if the first fails.
    auto first = GetOne(a_, owner, id);
    if (!first.ok()) {
      auto second = GetOne(b_, owner, id);
      if (!second.ok()) return first.status();
      first = std::move(second);
    }
    std::vector<crypto::ShamirShare> v;
    v.push_back(std::move(device));
    v.push_back(std::move(*first));
    return Combine(std::move(v));
  }
  auto fa = std::async(std::launch::async, [&] { return GetOne(a_, owner, id); });
  auto rb = GetOne(b_, owner, id);
  auto ra = fa.get();
  VEIL_RETURN_IF_ERROR(ra);
  VEIL_RETURN_IF_ERROR(rb);
  std::vector<crypto::ShamirShare> v;
  v.push_back(std::move(*ra));
  v.push_back(std::move(*rb));
  return Combine(std::move(v));
}

Result<std::array<DestroyReceipt, 2>> TwoGuardianCustody::Destroy(const OwnerSigner& owner,
                                                                  const ShareId& id) {
  auto destroy = [&](GuardianClient& c) -> Result<DestroyReceipt> {
    VEIL_ASSIGN_OR_RETURN(auto results, c.Destroy(owner, std::span<const ShareId>(&id, 1)));
    VEIL_RETURN_IF_ERROR(results.at(0).status);
    return *results.at(0).receipt;
  };
  auto fa = std::async(std::launch::async, [&] { return destroy(a_); });
  auto rb = destroy(b_);
  auto ra = fa.get();
  VEIL_RETURN_IF_ERROR(ra);
  VEIL_RETURN_IF_ERROR(rb);
  return std::array<DestroyReceipt, 2>{*ra, *rb};
}

Status TwoGuardianCustody::Extend(const OwnerSigner& owner, const ShareId& id,
                                  std::int64_t expires_at) {
  auto extend = [&](GuardianClient& c) -> Status {
    ExtendRequest e{id, expires_at};
    VEIL_ASSIGN_OR_RETURN(auto results, c.Extend(owner, std::span<const ExtendRequest>(&e, 1)));
    return results.at(0).status;
  };
  auto fa = std::async(std::launch::async, [&] { return extend(a_); });
  const Status sb = extend(b_);
  const Status sa = fa.get();
  VEIL_RETURN_IF_ERROR(sa);
  return sb;
}

}  // namespace veil::guardian
