// The guardian's request core (guardian.h; docs/notes/guardian.md).
#include "veil/guardian/guardian.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "store.h"
#include "veil/crypto/aead.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/hpke.h"
#include "veil/crypto/random.h"
#include "veil/net/http_server.h"

namespace veil::guardian {
namespace {

constexpr std::string_view kAtRestDomain = "veil-guardian at-rest v1";
constexpr crypto::AeadAlg kAtRestAlg = crypto::AeadAlg::kXChaCha20Poly1305;

Status NoShare() { return NotFound("no share"); }

Bytes AtRestAad(const ShareId& id, ByteView owner_encoding) {
  return Concat({AsBytes(kAtRestDomain), id, owner_encoding});
}

// What a put item becomes before the transaction: an error, or the row to store.
struct PreparedPut {
  Status status;
  internal::StoredShare row;
};

// What a put item does, decided inside the transaction from reads alone, before any write.
struct PutPlan {
  enum class Action : std::uint8_t { kRefused, kKeep, kConflict, kInsert, kReplaceExpired };
  Action action = Action::kRefused;
  std::int64_t kept_expires_at = 0;  // kKeep
};

// The change a request makes to what a quota counts.
struct UsageDelta {
  std::int64_t shares = 0;
  std::int64_t bytes = 0;
  void Add(std::uint64_t row_bytes, std::int64_t sign) {
    shares += sign;
    bytes += sign * static_cast<std::int64_t>(row_bytes);
  }
};

// Whether `used` plus a growing `delta` passes `max` (0: no limit). A request that does not grow
// the count passes even over a lowered quota, so replacing rows never gets stuck.
bool Exceeds(std::uint64_t used, std::int64_t delta, std::uint64_t max) {
  return max != 0 && delta > 0 && used + static_cast<std::uint64_t>(delta) > max;
}

// The two buckets of a client address.
constexpr std::size_t kAddressRequests = 0;
constexpr std::size_t kAddressItems = 1;

}  // namespace

std::int64_t SystemUnixSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Guardian::Impl {
  Impl(GuardianIdentity id, GuardianOptions o)
      : identity(std::move(id)),
        options(std::move(o)),
        owner_limiter(options.limits.rate_per_second, options.limits.rate_burst, options.rate_clock,
                      std::max<std::size_t>(options.limits.rate_table_max_keys, 1)),
        address_limiter(
            {{options.limits.address_rate_per_second, options.limits.address_rate_burst},
             {options.limits.address_items_per_second,
              std::max(options.limits.address_items_burst,
                       static_cast<double>(options.limits.max_items))}},
            options.rate_clock, std::max<std::size_t>(options.limits.rate_table_max_keys, 1)) {
    for (const OwnerKey& k : options.allowed_owners) allowed_owners.insert(k.Encode());
  }

  GuardianIdentity identity;
  GuardianOptions options;
  RateLimiter owner_limiter;       // keyed by SHA-256 of the owner encoding
  RateLimiter address_limiter;     // keyed by ClientAddressKey; requests and items
  std::set<Bytes> allowed_owners;  // encodings; empty: any owner
  std::mutex mu;                   // guards store
  std::unique_ptr<internal::Store> store;

  std::int64_t Now() const { return options.clock ? options.clock() : SystemUnixSeconds(); }

  Result<Bytes> SealAtRest(const ShareId& id, ByteView owner, const crypto::SecretBytes& share) {
    VEIL_ASSIGN_OR_RETURN(auto aead,
                          crypto::Aead::Create(kAtRestAlg, identity.storage_key().Expose()));
    Bytes nonce = crypto::RandomBytes(crypto::AeadNonceSize(kAtRestAlg));
    VEIL_ASSIGN_OR_RETURN(Bytes ct, aead.Seal(nonce, AtRestAad(id, owner), share.Expose()));
    nonce.insert(nonce.end(), ct.begin(), ct.end());
    return nonce;
  }

  Result<crypto::SecretBytes> OpenAtRest(const internal::StoredShare& row) {
    const std::size_t nn = crypto::AeadNonceSize(kAtRestAlg);
    if (row.sealed.size() < nn + crypto::kAeadTagSize) return DataLoss("stored share is truncated");
    VEIL_ASSIGN_OR_RETURN(auto aead,
                          crypto::Aead::Create(kAtRestAlg, identity.storage_key().Expose()));
    const ByteView sealed(row.sealed);
    auto share = aead.Open(sealed.first(nn), AtRestAad(row.id, row.owner), sealed.subspan(nn));
    if (!share.ok()) return DataLoss("stored share does not open");
    return std::move(*share);
  }

  PreparedPut PreparePut(const Request& req, const PutItem& item, std::int64_t now) {
    PreparedPut p;
    const GuardianLimits& l = options.limits;
    if (item.expires_at <= now || item.expires_at - now > l.max_lease_seconds) {
      p.status = InvalidArgument("\"expires_at\" must be in the future and within the lease limit");
      return p;
    }
    const ByteView sealed(item.sealed);
    crypto::hpke::SetupOptions o;
    o.info = AsBytes(kShareInfo);
    auto share = crypto::hpke::Open(kShareSuite, sealed.first(crypto::kXWingCiphertextSize),
                                    identity.kem_private_key(), o, ShareAad(item.id, req.owner),
                                    sealed.subspan(crypto::kXWingCiphertextSize));
    if (!share.ok()) {
      p.status = VerificationFailed();
      return p;
    }
    if (share->empty() || share->size() > kMaxShareSize) {
      p.status = InvalidArgument("share must be 1 to 1024 bytes");
      return p;
    }
    const Commitment c = ShareCommitment(item.id, share->Expose());
    if (!crypto::ConstantTimeEquals(c, item.commitment)) {
      p.status = VerificationFailed();
      return p;
    }
    p.row.id = item.id;
    p.row.owner = req.owner.Encode();
    p.row.kind = item.kind;
    p.row.expires_at = item.expires_at;
    p.row.commitment = item.commitment;
    p.row.created_at = now;
    auto at_rest = SealAtRest(item.id, p.row.owner, *share);
    if (!at_rest.ok()) {
      p.status = at_rest.status();
      return p;
    }
    p.row.sealed = std::move(*at_rest);
    return p;
  }

  // A share the owner may act on, or nullopt (missing, foreign, or expired unless allowed).
  Result<std::optional<internal::StoredShare>> FindOwned(const ShareId& id, ByteView owner,
                                                         std::int64_t now, bool allow_expired) {
    VEIL_ASSIGN_OR_RETURN(auto row, store->Find(id));
    if (!row || !std::equal(row->owner.begin(), row->owner.end(), owner.begin(), owner.end()) ||
        (!allow_expired && row->expires_at <= now)) {
      return std::optional<internal::StoredShare>();
    }
    return row;
  }

  // Runs `check` (reads only: limits counted before any write), then the nonce row and `body`,
  // in one transaction; nothing is applied unless all of it commits.
  template <class Check, class Body>
  Status InTransaction(const Request& req, Check&& check, Body&& body) {
    VEIL_RETURN_IF_ERROR(store->Begin());
    Status s = [&]() -> Status {
      VEIL_RETURN_IF_ERROR(check());
      const crypto::Sha256Digest owner_hash = crypto::Sha256(req.owner.Encode());
      VEIL_ASSIGN_OR_RETURN(
          bool fresh, store->RememberNonce(owner_hash, req.nonce,
                                           req.timestamp + options.limits.replay_window_seconds));
      if (!fresh) return Unauthenticated("replayed request (nonce already used)");
      return body();
    }();
    if (s.ok()) s = store->Commit();
    if (!s.ok()) store->Rollback();
    return s;
  }

  template <class Body>
  Status InTransaction(const Request& req, Body&& body) {
    return InTransaction(
        req, [] { return Status::Ok(); }, std::forward<Body>(body));
  }

  // The storage quotas for a put that changes the counts by `owner_delta` (the requesting owner)
  // and `total_delta`. The owner's quota is told first: waiting does not lift it.
  Status CheckQuotas(ByteView owner, const UsageDelta& owner_delta, const UsageDelta& total_delta) {
    const GuardianLimits& l = options.limits;
    VEIL_ASSIGN_OR_RETURN(internal::Usage mine, store->OwnerUsage(owner));
    if (Exceeds(mine.shares, owner_delta.shares, l.max_shares_per_owner) ||
        Exceeds(mine.bytes, owner_delta.bytes, l.max_bytes_per_owner)) {
      return ResourceExhausted(
          "storage quota of this owner exceeded: destroy shares or let leases end before putting "
          "more");
    }
    VEIL_ASSIGN_OR_RETURN(internal::Usage all, store->TotalUsage());
    if (Exceeds(all.shares, total_delta.shares, l.max_shares_total) ||
        Exceeds(all.bytes, total_delta.bytes, l.max_bytes_total)) {
      return ResourceExhausted("guardian storage is full: retry later");
    }
    return Status::Ok();
  }

  Result<Response> Put(const Request& req, std::int64_t now) {
    std::vector<PreparedPut> prepared;
    prepared.reserve(req.puts.size());
    for (const auto& item : req.puts) prepared.push_back(PreparePut(req, item, now));
    const Bytes owner = req.owner.Encode();
    std::vector<PutPlan> plans;
    Response resp;
    std::lock_guard<std::mutex> lock(mu);
    const auto plan = [&]() -> Status {
      plans.assign(prepared.size(), PutPlan{});
      UsageDelta owner_delta, total_delta;
      for (std::size_t i = 0; i < prepared.size(); ++i) {
        const PreparedPut& p = prepared[i];
        if (!p.status.ok()) continue;
        VEIL_ASSIGN_OR_RETURN(auto existing, store->Find(p.row.id));
        if (existing && existing->expires_at > now) {
          if (existing->owner == p.row.owner && existing->commitment == p.row.commitment) {
            plans[i].action = PutPlan::Action::kKeep;
            plans[i].kept_expires_at = existing->expires_at;
          } else {
            plans[i].action = PutPlan::Action::kConflict;
          }
          continue;
        }
        if (existing) {
          // Expired, not swept yet: its row goes (and is scrubbed) in this transaction.
          plans[i].action = PutPlan::Action::kReplaceExpired;
          const std::uint64_t old_bytes = internal::Store::RowBytes(*existing);
          total_delta.Add(old_bytes, -1);
          if (existing->owner == owner) owner_delta.Add(old_bytes, -1);
        } else {
          plans[i].action = PutPlan::Action::kInsert;
        }
        const std::uint64_t new_bytes = internal::Store::RowBytes(p.row);
        total_delta.Add(new_bytes, +1);
        owner_delta.Add(new_bytes, +1);
      }
      return CheckQuotas(owner, owner_delta, total_delta);
    };
    const auto apply = [&]() -> Status {
      resp.items.clear();
      for (std::size_t i = 0; i < prepared.size(); ++i) {
        ItemResult r;
        r.id = req.puts[i].id;
        const PreparedPut& p = prepared[i];
        switch (plans[i].action) {
          case PutPlan::Action::kRefused:
            r.status = p.status;
            break;
          case PutPlan::Action::kKeep:
            r.changed = false;
            r.expires_at = plans[i].kept_expires_at;
            break;
          case PutPlan::Action::kConflict:
            r.status = FailedPrecondition("share id already in use");
            break;
          case PutPlan::Action::kReplaceExpired:
            VEIL_RETURN_IF_ERROR(store->Delete(p.row.id));
            [[fallthrough]];
          case PutPlan::Action::kInsert:
            VEIL_RETURN_IF_ERROR(store->Insert(p.row));
            r.changed = true;
            r.expires_at = p.row.expires_at;
            break;
        }
        resp.items.push_back(std::move(r));
      }
      return Status::Ok();
    };
    const Status tx = InTransaction(req, plan, apply);
    if (!tx.ok()) return tx;
    return resp;
  }

  Result<Response> Get(const Request& req, std::int64_t now) {
    const Bytes owner = req.owner.Encode();
    std::vector<std::optional<internal::StoredShare>> rows;
    {
      std::lock_guard<std::mutex> lock(mu);
      const Status tx = InTransaction(req, [&]() -> Status {
        rows.clear();
        for (const auto& id : req.ids) {
          VEIL_ASSIGN_OR_RETURN(auto row, FindOwned(id, owner, now, /*allow_expired=*/false));
          rows.push_back(std::move(row));
        }
        return Status::Ok();
      });
      if (!tx.ok()) return tx;
    }
    // Opening and re-sealing need no lock.
    Response resp;
    crypto::hpke::SetupOptions o;
    o.info = AsBytes(kReplyInfo);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      ItemResult r;
      r.id = req.ids[i];
      if (!rows[i]) {
        r.status = NoShare();
        resp.items.push_back(std::move(r));
        continue;
      }
      auto share = OpenAtRest(*rows[i]);
      if (!share.ok()) {
        r.status = share.status();
        resp.items.push_back(std::move(r));
        continue;
      }
      auto sealed = crypto::hpke::Seal(kShareSuite, req.reply_key, o, ReplyAad(r.id, req.nonce),
                                       share->Expose());
      if (!sealed.ok()) {
        r.status = InvalidArgument("\"reply_key\" is not a valid X-Wing public key");
        resp.items.push_back(std::move(r));
        continue;
      }
      r.sealed = Concat({sealed->enc, sealed->ciphertext});
      r.kind = rows[i]->kind;
      r.expires_at = rows[i]->expires_at;
      resp.items.push_back(std::move(r));
    }
    return resp;
  }

  Result<Response> Extend(const Request& req, std::int64_t now) {
    const Bytes owner = req.owner.Encode();
    Response resp;
    std::lock_guard<std::mutex> lock(mu);
    const Status tx = InTransaction(req, [&]() -> Status {
      resp.items.clear();
      for (const auto& item : req.extends) {
        ItemResult r;
        r.id = item.id;
        VEIL_ASSIGN_OR_RETURN(auto row, FindOwned(item.id, owner, now, /*allow_expired=*/false));
        if (!row) {
          r.status = NoShare();
        } else if (item.expires_at <= row->expires_at) {
          r.changed = false;  // never shortens
          r.expires_at = row->expires_at;
        } else if (item.expires_at - now > options.limits.max_lease_seconds) {
          r.status = InvalidArgument("\"expires_at\" is beyond the lease limit");
        } else {
          VEIL_RETURN_IF_ERROR(store->SetExpiry(item.id, item.expires_at));
          r.changed = true;
          r.expires_at = item.expires_at;
        }
        resp.items.push_back(std::move(r));
      }
      return Status::Ok();
    });
    if (!tx.ok()) return tx;
    return resp;
  }

  Result<Response> Destroy(const Request& req, std::int64_t now) {
    const Bytes owner = req.owner.Encode();
    Response resp;
    std::vector<internal::Tombstone> destroyed;  // per item; empty owner: no receipt
    {
      std::lock_guard<std::mutex> lock(mu);
      const Status tx = InTransaction(req, [&]() -> Status {
        resp.items.clear();
        destroyed.clear();
        for (const auto& id : req.ids) {
          ItemResult r;
          r.id = id;
          internal::Tombstone t;
          // An expired share not swept yet still has bytes on disk: destroy it too.
          // Held by reference, not moved out of the Result: moving the optional here trips a
          // false -Wmaybe-uninitialized in GCC 12 at -O2.
          auto found = FindOwned(id, owner, now, /*allow_expired=*/true);
          if (!found.ok()) return found.status();
          const auto& row = *found;
          if (row) {
            VEIL_RETURN_IF_ERROR(store->Delete(id));
            t = internal::Tombstone{owner, row->commitment, now};
            VEIL_RETURN_IF_ERROR(
                store->PutTombstone(id, t, now + options.limits.receipt_retention_seconds));
          } else {
            // A retried destroy whose first answer was lost: the same receipt again.
            VEIL_ASSIGN_OR_RETURN(auto tomb, store->FindTombstone(id));
            if (tomb && tomb->owner == owner) {
              t = std::move(*tomb);
            } else {
              r.status = NoShare();
            }
          }
          destroyed.push_back(std::move(t));
          resp.items.push_back(std::move(r));
        }
        return Status::Ok();
      });
      // Store::Commit scrubbed the deleted rows.
      if (!tx.ok()) return tx;
    }
    // Signing needs no lock; the receipt's content is fixed by the tombstone.
    for (std::size_t i = 0; i < resp.items.size(); ++i) {
      ItemResult& r = resp.items[i];
      if (!r.status.ok()) continue;
      VEIL_ASSIGN_OR_RETURN(r.receipt, SignDestroyReceipt(identity, r.id, destroyed[i].destroyed_at,
                                                          destroyed[i].commitment));
    }
    return resp;
  }
};

Guardian::Guardian(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Guardian::~Guardian() = default;

Result<std::unique_ptr<Guardian>> Guardian::Open(GuardianIdentity identity,
                                                 const std::filesystem::path& db_path,
                                                 GuardianOptions options) {
  crypto::EnsureInitialized();
  auto impl = std::make_unique<Impl>(std::move(identity), std::move(options));
  VEIL_ASSIGN_OR_RETURN(
      impl->store,
      internal::Store::Open(db_path.string(), impl->identity.public_identity().fingerprint(),
                            impl->options.fault_injection_for_testing));
  return std::unique_ptr<Guardian>(new Guardian(std::move(impl)));
}

Result<std::unique_ptr<Guardian>> Guardian::OpenDir(const std::filesystem::path& dir,
                                                    GuardianOptions options) {
  VEIL_ASSIGN_OR_RETURN(GuardianIdentity identity, GuardianIdentity::LoadOrCreate(dir));
  return Open(std::move(identity), dir / kDatabaseFileName, std::move(options));
}

const PublicIdentity& Guardian::public_identity() const {
  return impl_->identity.public_identity();
}

const GuardianLimits& Guardian::limits() const { return impl_->options.limits; }

std::int64_t Guardian::Now() const { return impl_->Now(); }

Result<Response> Guardian::HandleRequest(Route route, std::string_view body, ByteView signature,
                                         std::string_view client_address) {
  const GuardianLimits& limits = impl_->options.limits;
  // First, before any work: every request that reaches the guardian costs its sender's address,
  // whatever owner key it names (fresh keys cost nothing to make).
  const std::string address_key =
      net::ClientAddressKey(client_address, limits.address_ipv6_prefix_bits);
  if (!impl_->address_limiter.Allow(address_key, kAddressRequests)) {
    return ResourceExhausted("too many requests from this client address: retry later");
  }
  VEIL_ASSIGN_OR_RETURN(Request req, DecodeRequest(route, body, limits));
  if (req.guardian != public_identity().fingerprint()) {
    return InvalidArgument("request names another guardian");
  }
  const std::int64_t now = impl_->Now();
  const std::int64_t skew = req.timestamp > now ? req.timestamp - now : now - req.timestamp;
  if (skew > limits.replay_window_seconds) {
    return Unauthenticated("timestamp outside the accepted window");
  }
  if (signature.size() != OwnerSignatureSize(req.owner.alg())) {
    return Unauthenticated("signature length does not fit the owner key");
  }
  if (!req.owner.Verify(SignedMessage(route, body), signature).ok()) {
    return Unauthenticated("request signature does not verify");
  }
  // After the signature: only the key's holder learns whether it is on the list.
  if (!impl_->allowed_owners.empty() && impl_->allowed_owners.count(req.owner.Encode()) == 0) {
    return PermissionDenied("this owner is not allowed on this guardian");
  }
  const crypto::Sha256Digest owner_hash = crypto::Sha256(req.owner.Encode());
  {
    // Refuse a known replay before it can take a token: otherwise anyone who captured a signed
    // request could drain its owner's bucket by replaying it. The transaction checks again.
    std::lock_guard<std::mutex> lock(impl_->mu);
    VEIL_ASSIGN_OR_RETURN(bool seen, impl_->store->NonceSeen(owner_hash, req.nonce));
    if (seen) return Unauthenticated("replayed request (nonce already used)");
  }
  if (!impl_->owner_limiter.Allow(std::string(owner_hash.begin(), owner_hash.end()))) {
    return ResourceExhausted("rate limit exceeded for this owner: retry later");
  }
  // Each item costs an HPKE open, a seal or a receipt signature: the address pays per item too.
  if (!impl_->address_limiter.Allow(address_key, kAddressItems,
                                    static_cast<double>(req.item_count()))) {
    return ResourceExhausted("too many items from this client address: retry later");
  }
  switch (route) {
    case Route::kPut:
      return impl_->Put(req, now);
    case Route::kGet:
      return impl_->Get(req, now);
    case Route::kExtend:
      return impl_->Extend(req, now);
    case Route::kDestroy:
      return impl_->Destroy(req, now);
  }
  return InvalidArgument("unknown route");
}

Result<std::size_t> Guardian::Sweep(std::int64_t now) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  // DeleteExpired's commit scrubs what it deleted; a scrub that failed after any commit is
  // retried here, and its failure reported.
  VEIL_ASSIGN_OR_RETURN(std::size_t n, impl_->store->DeleteExpired(now));
  VEIL_RETURN_IF_ERROR(impl_->store->ForgetNonces(now));
  if (impl_->store->scrub_pending()) VEIL_RETURN_IF_ERROR(impl_->store->Scrub());
  return n;
}

Status Guardian::Check() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->store->Ping();
}

Result<GuardianStats> Guardian::Stats() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  GuardianStats s;
  VEIL_ASSIGN_OR_RETURN(s.shares, impl_->store->CountShares());
  VEIL_ASSIGN_OR_RETURN(s.nonces, impl_->store->CountNonces());
  VEIL_ASSIGN_OR_RETURN(internal::Usage total, impl_->store->TotalUsage());
  s.bytes = total.bytes;
  return s;
}

}  // namespace veil::guardian
