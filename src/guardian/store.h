// The guardian's share store on SQLite (internal to guardian/).
//
// One connection (the caller serialises access), WAL, synchronous=FULL, secure_delete=ON and
// auto_vacuum=INCREMENTAL (set before the first table exists). Tables:
//   meta(name, value)                  the guardian fingerprint the database belongs to, and the
//                                      version of the usage counters
//   shares(id PK, owner, kind, expires_at, commitment, sealed, created_at)
//   nonces(owner_hash, nonce, expires_at; PK(owner_hash, nonce))
//   destroyed(id PK, owner, commitment, destroyed_at, keep_until)   tombstones, so that a
//       retried destroy gets its receipt again; they hold no share bytes
//   usage(owner PK, shares, bytes), usage_total(shares, bytes)   what the quotas count, kept by
//       triggers on `shares`, so every path that adds or removes a row (put, destroy, sweep, a put
//       over an expired row) moves them in the same transaction
// `sealed` is the at-rest AEAD ciphertext (guardian.cc seals and opens it); `owner` is
// OwnerKey::Encode(). A row counts RowBytes: its id, owner, commitment and sealed blob.
//
// Files: the database file is created (or tightened) to mode 0600 before SQLite opens it, and
// existing -wal, -shm and -journal files too; SQLite creates those with the database file's mode
// whatever the umask (its unix VFS copies the mode and fchmods), so none is ever readable by group
// or others, whatever the directory's mode.
//
// Writes happen between Begin and Commit, one transaction per request; a failed write leaves the
// caller to Rollback. Every transaction that deleted a share row, whatever deleted it, is
// followed by Scrub when it commits: an incremental vacuum, then wal_checkpoint(TRUNCATE), so
// that no page image of the deleted row stays in the -wal file or in the database file (with
// secure_delete the new page images have the row zeroed). A failed scrub is retried after the next
// commit.
//
// Errors: SQLite failures are kInternal (kUnavailable when the file cannot be opened or its mode
// cannot be set); a database created for another guardian identity is kFailedPrecondition; a row
// of the wrong shape kDataLoss.
//
// Thread safety: none; one thread at a time (Guardian holds a mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/guardian/identity.h"
#include "veil/guardian/types.h"

struct sqlite3;

namespace veil::guardian::internal {

struct StoredShare {
  ShareId id{};
  Bytes owner;  // OwnerKey::Encode()
  ShareKind kind = ShareKind::kRecord;
  std::int64_t expires_at = 0;
  Commitment commitment{};
  Bytes sealed;
  std::int64_t created_at = 0;
};

// What remains of a destroyed share for a while: enough to sign its receipt again.
// What the quotas count: shares held (expired ones too until they are swept) and their bytes.
struct Usage {
  std::uint64_t shares = 0;
  std::uint64_t bytes = 0;
};

struct Tombstone {
  Bytes owner;
  Commitment commitment{};
  std::int64_t destroyed_at = 0;
};

class Store {
 public:
  using FaultFn = std::function<Status(std::size_t write_index)>;

  static Result<std::unique_ptr<Store>> Open(const std::string& path, const Fingerprint& owner,
                                             FaultFn fault = nullptr);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // The bytes a row counts for the quotas (id, owner, commitment, sealed).
  static std::uint64_t RowBytes(const StoredShare& share);

  Status Begin();
  // Commits; then scrubs if this or an earlier transaction deleted a share row and was not
  // scrubbed yet (a scrub failure is not the commit's: the next commit retries it).
  Status Commit();
  void Rollback();

  Result<std::optional<StoredShare>> Find(const ShareId& id);
  Status Insert(const StoredShare& share);
  Status SetExpiry(const ShareId& id, std::int64_t expires_at);
  Status Delete(const ShareId& id);
  Status PutTombstone(const ShareId& id, const Tombstone& t, std::int64_t keep_until);
  Result<std::optional<Tombstone>> FindTombstone(const ShareId& id);
  Result<bool> NonceSeen(ByteView owner_hash, const Nonce& nonce);
  // false when (owner_hash, nonce) is already there.
  Result<bool> RememberNonce(ByteView owner_hash, const Nonce& nonce, std::int64_t expires_at);

  // Outside Begin/Commit: each runs its own transaction.
  Result<std::size_t> DeleteExpired(std::int64_t now);
  // Nonces past their window and tombstones past keep_until.
  Status ForgetNonces(std::int64_t now);
  Status Scrub();
  // A committed deletion whose scrub has not succeeded yet.
  bool scrub_pending() const;

  Result<Usage> OwnerUsage(ByteView owner);
  Result<Usage> TotalUsage();

  Result<std::uint64_t> CountShares();
  Result<std::uint64_t> CountNonces();
  // A cheap read, for health checks.
  Status Ping();

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace veil::guardian::internal
