// Guardian: the transport-independent core of the key-share custody service.
//
// HandleRequest takes what arrived on a route (the body bytes, the Veil-Signature header and the
// client's address) and either refuses the whole request, changing nothing, or applies it and
// answers per item. Checks, in order: the client address's request bucket (before any decoding,
// so that any request, valid or not, costs its sender), size, strict decoding (protocol.h), that
// the request names this guardian's fingerprint, the timestamp window (|timestamp - now| <=
// replay_window_seconds), the owner's signature over the exact body, the owner allow list, that
// the nonce is not already known (so replays cannot drain the owner's bucket), the owner's
// request bucket and the address's item bucket, and then, inside ONE SQLite transaction together
// with all effects: for a put, the storage quotas (per owner and in total, counted from the rows
// the batch would add or replace, before any write; a batch over a quota is refused whole), then
// that (owner, nonce) was never seen: the nonce row is written in the same transaction, so a
// replay is refused even after a restart, and a request whose transaction fails leaves neither
// effects nor a spent nonce.
//
// Per-item outcomes (the request as a whole succeeded): put: a share that does not open, is
// empty or over kMaxShareSize, or whose commitment does not match is refused (VerificationFailed
// / kInvalidArgument); the same id already held with another owner or commitment is
// kFailedPrecondition ("share id already in use"); the same id, owner and commitment is an
// idempotent ok (changed = false, the stored expiry is kept). destroy deletes the share and keeps
// a tombstone (id, owner, commitment, time; no share bytes) for receipt_retention_seconds, so a
// retried destroy answers ok with the same receipt content. get, extend, destroy: a share that
// is missing, expired or held for another owner is kNotFound "no share", the same answer for all
// three, so a non-owner learns nothing. extend never shortens: an expiry at or before the stored
// one leaves it and answers ok with changed = false. Expiries must lie in (now, now +
// max_lease_seconds].
//
// At rest a share is sealed with XChaCha20-Poly1305 under the identity's storage key (random
// 24-byte nonce; aad = "veil-guardian at-rest v1" || id || owner encoding), so the database file
// alone opens nothing. Every deletion of a share row (destroy, sweep, a put over an expired row)
// is zeroed by PRAGMA secure_delete=ON and followed, once committed, by an incremental vacuum and
// PRAGMA wal_checkpoint(TRUNCATE) (docs/notes/guardian.md, "Secure deletion", says what this does
// and does not guarantee). The database and its -wal and -shm files are mode 0600.
//
// Errors of HandleRequest (request level): kInvalidArgument (malformed, wrong guardian),
// kResourceExhausted (too large, too many items: not retryable as is; a rate limit: retry later;
// the guardian's total storage quota: retry later; the owner's storage quota: not until the owner
// destroys shares or their leases end; the message says which), kPermissionDenied (owner not on
// the allow list), kUnauthenticated (bad signature, stale or future timestamp, replayed nonce),
// kInternal/kUnavailable (storage failed; nothing applied).
//
// Thread safety: every public member is safe from any thread. Decoding, signature checks and HPKE
// run concurrently; the store is one SQLite connection behind a mutex.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "veil/base/result.h"
#include "veil/guardian/identity.h"
#include "veil/guardian/owner.h"
#include "veil/guardian/protocol.h"
#include "veil/guardian/rate_limiter.h"

namespace veil::guardian {

inline constexpr char kDatabaseFileName[] = "guardian.db";

// Unix seconds.
using UnixClock = std::function<std::int64_t()>;
std::int64_t SystemUnixSeconds();

struct GuardianOptions {
  GuardianLimits limits;
  UnixClock clock;                // null: the system clock
  RateLimiter::Clock rate_clock;  // null: steady_clock (seconds)
  // The owners that may use this guardian at all; empty: any owner. A request signed by another
  // owner is kPermissionDenied on every route.
  std::vector<OwnerKey> allowed_owners;
  // Tests only: called before each row write of a transaction with a running index; a non-ok
  // Status aborts the transaction as a storage failure would.
  std::function<Status(std::size_t write_index)> fault_injection_for_testing;
};

struct GuardianStats {
  std::uint64_t shares = 0;  // rows held (including expired ones not swept yet)
  std::uint64_t nonces = 0;  // remembered (owner, nonce) pairs
  std::uint64_t bytes = 0;   // what max_bytes_total counts (GuardianLimits)
};

class Guardian {
 public:
  // Opens (or creates) the SQLite database at db_path ("file" or ":memory:").
  static Result<std::unique_ptr<Guardian>> Open(GuardianIdentity identity,
                                                const std::filesystem::path& db_path,
                                                GuardianOptions options = {});
  // DIR/identity.key (created when absent) and DIR/guardian.db.
  static Result<std::unique_ptr<Guardian>> OpenDir(const std::filesystem::path& dir,
                                                   GuardianOptions options = {});
  ~Guardian();
  Guardian(const Guardian&) = delete;
  Guardian& operator=(const Guardian&) = delete;

  const PublicIdentity& public_identity() const;
  const GuardianLimits& limits() const;
  std::int64_t Now() const;

  // See above. `signature` is the decoded Veil-Signature (protocol.h); a length that does not
  // fit the owner's algorithm is kUnauthenticated. `client_address` is the peer's IP address as
  // the transport saw it (net::HttpRequest::remote_addr); it keys the per-address limits.
  Result<Response> HandleRequest(Route route, std::string_view body, ByteView signature,
                                 std::string_view client_address);

  // Deletes every share with expires_at <= now and forgets nonces whose window has passed;
  // returns how many shares it deleted (tombstones past their retention go too). Checkpoints and
  // vacuums when it deleted any.
  Result<std::size_t> Sweep(std::int64_t now);
  Result<std::size_t> Sweep() { return Sweep(Now()); }

  Result<GuardianStats> Stats();
  // A cheap read of the store, for /health.
  Status Check();

 private:
  struct Impl;
  explicit Guardian(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace veil::guardian
