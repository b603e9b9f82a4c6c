// The guardian's SQLite share store (store.h). Statements go through sqlite/connection.h:
// prepared once, cached by SQL text, reset on scope exit.
#include "store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "veil/base/file.h"
#include "veil/sqlite/connection.h"

namespace veil::guardian::internal {
namespace {

// auto_vacuum must be chosen before the first table is created; it is a no-op afterwards.
constexpr const char* kPragmas = R"sql(
PRAGMA auto_vacuum=INCREMENTAL;
PRAGMA journal_mode=WAL;
PRAGMA synchronous=FULL;
PRAGMA secure_delete=ON;
PRAGMA foreign_keys=OFF;
)sql";

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS shares(
  id BLOB PRIMARY KEY, owner BLOB NOT NULL, kind INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  commitment BLOB NOT NULL, sealed BLOB NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS shares_expires ON shares(expires_at);
CREATE TABLE IF NOT EXISTS nonces(
  owner_hash BLOB NOT NULL, nonce BLOB NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY(owner_hash, nonce)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS nonces_expires ON nonces(expires_at);
CREATE TABLE IF NOT EXISTS destroyed(
  id BLOB PRIMARY KEY, owner BLOB NOT NULL, commitment BLOB NOT NULL,
  destroyed_at INTEGER NOT NULL, keep_until INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS destroyed_keep ON destroyed(keep_until);
CREATE TABLE IF NOT EXISTS usage(
  owner BLOB PRIMARY KEY, share_count INTEGER NOT NULL, byte_count INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage_total(
  id INTEGER PRIMARY KEY CHECK (id = 0), share_count INTEGER NOT NULL, byte_count INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS shares_usage_insert AFTER INSERT ON shares BEGIN
  INSERT INTO usage(owner, share_count, byte_count) VALUES(new.owner, 1,
      length(new.id) + length(new.owner) + length(new.commitment) + length(new.sealed))
    ON CONFLICT(owner) DO UPDATE SET share_count = share_count + 1,
                                     byte_count = byte_count + excluded.byte_count;
  UPDATE usage_total SET share_count = share_count + 1, byte_count = byte_count +
      length(new.id) + length(new.owner) + length(new.commitment) + length(new.sealed);
END;
CREATE TRIGGER IF NOT EXISTS shares_usage_delete AFTER DELETE ON shares BEGIN
  UPDATE usage SET share_count = share_count - 1, byte_count = byte_count -
      (length(old.id) + length(old.owner) + length(old.commitment) + length(old.sealed))
    WHERE owner = old.owner;
  DELETE FROM usage WHERE owner = old.owner AND share_count <= 0;
  UPDATE usage_total SET share_count = share_count - 1, byte_count = byte_count -
      (length(old.id) + length(old.owner) + length(old.commitment) + length(old.sealed));
END;
CREATE TRIGGER IF NOT EXISTS shares_usage_update
    AFTER UPDATE OF id, owner, commitment, sealed ON shares BEGIN
  UPDATE usage SET share_count = share_count - 1, byte_count = byte_count -
      (length(old.id) + length(old.owner) + length(old.commitment) + length(old.sealed))
    WHERE owner = old.owner;
  DELETE FROM usage WHERE owner = old.owner AND share_count <= 0;
  INSERT INTO usage(owner, share_count, byte_count) VALUES(new.owner, 1,
      length(new.id) + length(new.owner) + length(new.commitment) + length(new.sealed))
    ON CONFLICT(owner) DO UPDATE SET share_count = share_count + 1,
                                     byte_count = byte_count + excluded.byte_count;
  UPDATE usage_total SET byte_count = byte_count -
      (length(old.id) + length(old.owner) + length(old.commitment) + length(old.sealed)) +
      (length(new.id) + length(new.owner) + length(new.commitment) + length(new.sealed));
END;
)sql";

// The usage counters, counted once from the rows held: for a new database, and for one made
// before the counters existed. From then on the triggers keep them.
constexpr const char* kCountUsage = R"sql(
BEGIN IMMEDIATE;
DELETE FROM usage;
DELETE FROM usage_total;
INSERT INTO usage(owner, share_count, byte_count)
  SELECT owner, COUNT(*),
         SUM(length(id) + length(owner) + length(commitment) + length(sealed))
  FROM shares GROUP BY owner;
INSERT INTO usage_total(id, share_count, byte_count)
  SELECT 0, COUNT(*),
         COALESCE(SUM(length(id) + length(owner) + length(commitment) + length(sealed)), 0)
  FROM shares;
INSERT INTO meta(name, value) VALUES('usage', X'01');
COMMIT;
)sql";

constexpr const char* kDatabaseCompanions[] = {"-wal", "-shm", "-journal"};

Status ModeError(const std::string& path, const char* step) {
  return Unavailable("cannot " + std::string(step) + " " + path + ": " + std::strerror(errno));
}

// Before SQLite opens `path`: creates it 0600 when absent and sets an existing database and its
// companions to 0600. SQLite would create the file 0644 minus the umask, and then the -wal and
// -shm files with that same mode, so a 0755 directory would expose them all.
Status RestrictFileModes(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.rfind("file:", 0) == 0) return Status::Ok();
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (fd.get() < 0) return ModeError(path, "create");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ModeError(path, "stat");
  // Also when the umask took bits from 0600 (then SQLite could not write it).
  if ((st.st_mode & 07777) != 0600 && ::fchmod(fd.get(), 0600) != 0) {
    return ModeError(path, "set the mode of");
  }
  for (const char* suffix : kDatabaseCompanions) {
    const std::string companion = path + suffix;
    if (::stat(companion.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;
      return ModeError(companion, "stat");
    }
    if ((st.st_mode & 07777) != 0600 && ::chmod(companion.c_str(), 0600) != 0) {
      return ModeError(companion, "set the mode of");
    }
  }
  return Status::Ok();
}

}  // namespace

struct Store::Impl {
  sqlite::Connection db;
  FaultFn fault;
  std::size_t writes = 0;      // row writes in the current transaction
  bool deleted_in_tx = false;  // the current transaction deleted a share row
  bool scrub_pending = false;  // a committed deletion not scrubbed yet

  Status BeforeWrite() {
    const std::size_t i = writes++;
    if (fault) return fault(i);
    return Status::Ok();
  }
};

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, const Fingerprint& owner,
                                           FaultFn fault) {
  auto impl = std::make_unique<Impl>();
  impl->fault = std::move(fault);
  VEIL_RETURN_IF_ERROR(RestrictFileModes(path));
  VEIL_RETURN_IF_ERROR(
      impl->db.Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX));
  sqlite3_busy_timeout(impl->db.get(), 5000);
  VEIL_RETURN_IF_ERROR(impl->db.Exec(kPragmas));
  VEIL_RETURN_IF_ERROR(impl->db.Exec(kSchema));
  {
    VEIL_ASSIGN_OR_RETURN(auto s,
                          impl->db.Prepare("SELECT value FROM meta WHERE name = 'guardian'"));
    if (s.Step()) {
      const ByteView stored = s.ColBlob(0);
      if (!std::equal(stored.begin(), stored.end(), owner.begin(), owner.end())) {
        return FailedPrecondition(path + " belongs to another guardian identity");
      }
    } else {
      VEIL_RETURN_IF_ERROR(s.status());
      VEIL_ASSIGN_OR_RETURN(
          auto ins, impl->db.Prepare("INSERT INTO meta(name, value) VALUES('guardian', ?)"));
      VEIL_RETURN_IF_ERROR(ins.Blob(1, owner).Run());
    }
  }
  {
    VEIL_ASSIGN_OR_RETURN(auto s, impl->db.Prepare("SELECT 1 FROM meta WHERE name = 'usage'"));
    const bool counted = s.Step();
    VEIL_RETURN_IF_ERROR(s.status());
    if (!counted) {
      if (Status c = impl->db.Exec(kCountUsage); !c.ok()) {
        impl->db.Exec("ROLLBACK").IgnoreError();
        return c;
      }
    }
  }
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

std::uint64_t Store::RowBytes(const StoredShare& share) {
  return share.id.size() + share.owner.size() + share.commitment.size() + share.sealed.size();
}

Status Store::Begin() {
  impl_->writes = 0;
  impl_->deleted_in_tx = false;
  return impl_->db.Exec("BEGIN IMMEDIATE");
}

Status Store::Commit() {
  VEIL_RETURN_IF_ERROR(impl_->db.Exec("COMMIT"));
  if (impl_->deleted_in_tx) impl_->scrub_pending = true;
  impl_->deleted_in_tx = false;
  // The rows are gone; a failed scrub only delays the byte-level cleanup to the next commit.
  if (impl_->scrub_pending) Scrub().IgnoreError();
  return Status::Ok();
}

void Store::Rollback() {
  impl_->deleted_in_tx = false;
  impl_->db.Exec("ROLLBACK").IgnoreError();
}

Result<std::optional<StoredShare>> Store::Find(const ShareId& id) {
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("SELECT owner, kind, expires_at, commitment, "
                                                  "sealed, created_at FROM shares WHERE id = ?"));
  s.Blob(1, id);
  if (!s.Step()) {
    VEIL_RETURN_IF_ERROR(s.status());
    return std::optional<StoredShare>();
  }
  StoredShare out;
  out.id = id;
  const ByteView owner = s.ColBlob(0);
  out.owner.assign(owner.begin(), owner.end());
  const std::int64_t kind = s.ColInt(1);
  if (kind != static_cast<std::int64_t>(ShareKind::kRecord) &&
      kind != static_cast<std::int64_t>(ShareKind::kCollection)) {
    return DataLoss("stored share has an unknown kind");
  }
  out.kind = static_cast<ShareKind>(kind);
  out.expires_at = s.ColInt(2);
  out.commitment = s.ColArray<kCommitmentSize>(3);
  const ByteView sealed = s.ColBlob(4);
  out.sealed.assign(sealed.begin(), sealed.end());
  out.created_at = s.ColInt(5);
  VEIL_RETURN_IF_ERROR(s.status());  // a commitment of the wrong length
  return std::optional<StoredShare>(std::move(out));
}

Status Store::Insert(const StoredShare& sh) {
  VEIL_RETURN_IF_ERROR(impl_->BeforeWrite());
  VEIL_ASSIGN_OR_RETURN(
      auto s, impl_->db.Prepare("INSERT INTO shares(id, owner, kind, expires_at, commitment, "
                                "sealed, created_at) VALUES(?, ?, ?, ?, ?, ?, ?)"));
  return s.Blob(1, sh.id)
      .Blob(2, sh.owner)
      .Int(3, static_cast<std::int64_t>(sh.kind))
      .Int(4, sh.expires_at)
      .Blob(5, sh.commitment)
      .Blob(6, sh.sealed)
      .Int(7, sh.created_at)
      .Run();
}

Status Store::SetExpiry(const ShareId& id, std::int64_t expires_at) {
  VEIL_RETURN_IF_ERROR(impl_->BeforeWrite());
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("UPDATE shares SET expires_at = ? WHERE id = ?"));
  return s.Int(1, expires_at).Blob(2, id).Run();
}

Status Store::Delete(const ShareId& id) {
  VEIL_RETURN_IF_ERROR(impl_->BeforeWrite());
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("DELETE FROM shares WHERE id = ?"));
  VEIL_RETURN_IF_ERROR(s.Blob(1, id).Run());
  if (impl_->db.changes() > 0) impl_->deleted_in_tx = true;
  return Status::Ok();
}

Status Store::PutTombstone(const ShareId& id, const Tombstone& t, std::int64_t keep_until) {
  VEIL_RETURN_IF_ERROR(impl_->BeforeWrite());
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("INSERT OR REPLACE INTO destroyed(id, owner, "
                                                  "commitment, destroyed_at, keep_until) "
                                                  "VALUES(?, ?, ?, ?, ?)"));
  return s.Blob(1, id)
      .Blob(2, t.owner)
      .Blob(3, t.commitment)
      .Int(4, t.destroyed_at)
      .Int(5, keep_until)
      .Run();
}

Result<std::optional<Tombstone>> Store::FindTombstone(const ShareId& id) {
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("SELECT owner, commitment, destroyed_at FROM "
                                                  "destroyed WHERE id = ?"));
  s.Blob(1, id);
  if (!s.Step()) {
    VEIL_RETURN_IF_ERROR(s.status());
    return std::optional<Tombstone>();
  }
  Tombstone t;
  const ByteView owner = s.ColBlob(0);
  t.owner.assign(owner.begin(), owner.end());
  t.commitment = s.ColArray<kCommitmentSize>(1);
  t.destroyed_at = s.ColInt(2);
  VEIL_RETURN_IF_ERROR(s.status());  // a commitment of the wrong length
  return std::optional<Tombstone>(std::move(t));
}

Result<bool> Store::NonceSeen(ByteView owner_hash, const Nonce& nonce) {
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("SELECT 1 FROM nonces WHERE owner_hash = ? AND "
                                                  "nonce = ?"));
  const bool found = s.Blob(1, owner_hash).Blob(2, nonce).Step();
  VEIL_RETURN_IF_ERROR(s.status());
  return found;
}

Result<bool> Store::RememberNonce(ByteView owner_hash, const Nonce& nonce,
                                  std::int64_t expires_at) {
  VEIL_RETURN_IF_ERROR(impl_->BeforeWrite());
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("INSERT OR IGNORE INTO nonces(owner_hash, nonce, "
                                                  "expires_at) VALUES(?, ?, ?)"));
  VEIL_RETURN_IF_ERROR(s.Blob(1, owner_hash).Blob(2, nonce).Int(3, expires_at).Run());
  return impl_->db.changes() == 1;
}

Result<std::size_t> Store::DeleteExpired(std::int64_t now) {
  VEIL_RETURN_IF_ERROR(Begin());
  std::size_t n = 0;
  Status s = [&]() -> Status {
    VEIL_RETURN_IF_ERROR(impl_->BeforeWrite());
    VEIL_ASSIGN_OR_RETURN(auto st, impl_->db.Prepare("DELETE FROM shares WHERE expires_at <= ?"));
    VEIL_RETURN_IF_ERROR(st.Int(1, now).Run());
    n = static_cast<std::size_t>(impl_->db.changes());
    if (n > 0) impl_->deleted_in_tx = true;
    return Status::Ok();
  }();
  if (s.ok()) s = Commit();
  if (!s.ok()) {
    Rollback();
    return s;
  }
  return n;
}

Status Store::ForgetNonces(std::int64_t now) {
  VEIL_ASSIGN_OR_RETURN(auto st, impl_->db.Prepare("DELETE FROM nonces WHERE expires_at < ?"));
  VEIL_RETURN_IF_ERROR(st.Int(1, now).Run());
  VEIL_ASSIGN_OR_RETURN(auto tomb,
                        impl_->db.Prepare("DELETE FROM destroyed WHERE keep_until <= ?"));
  return tomb.Int(1, now).Run();
}

Status Store::Ping() {
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("SELECT 1 FROM meta LIMIT 1"));
  return s.Run();
}

Status Store::Scrub() {
  VEIL_RETURN_IF_ERROR(impl_->db.Exec("PRAGMA incremental_vacuum"));
  int log_frames = 0;
  int checkpointed = 0;
  const int rc = sqlite3_wal_checkpoint_v2(impl_->db.get(), nullptr, SQLITE_CHECKPOINT_TRUNCATE,
                                           &log_frames, &checkpointed);
  if (rc != SQLITE_OK) {
    return Unavailable(std::string("sqlite checkpoint: ") + sqlite3_errmsg(impl_->db.get()));
  }
  impl_->scrub_pending = false;
  return Status::Ok();
}

bool Store::scrub_pending() const { return impl_->scrub_pending; }

Result<Usage> Store::OwnerUsage(ByteView owner) {
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("SELECT share_count, byte_count FROM usage WHERE "
                                                  "owner = ?"));
  Usage u;
  if (s.Blob(1, owner).Step()) {
    u.shares = static_cast<std::uint64_t>(s.ColInt(0));
    u.bytes = static_cast<std::uint64_t>(s.ColInt(1));
  }
  VEIL_RETURN_IF_ERROR(s.status());
  return u;
}

Result<Usage> Store::TotalUsage() {
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("SELECT share_count, byte_count FROM usage_total "
                                                  "WHERE id = 0"));
  if (!s.Step()) {
    VEIL_RETURN_IF_ERROR(s.status());
    return DataLoss("usage totals are missing");
  }
  Usage u;
  u.shares = static_cast<std::uint64_t>(s.ColInt(0));
  u.bytes = static_cast<std::uint64_t>(s.ColInt(1));
  return u;
}

Result<std::uint64_t> Store::CountShares() {
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("SELECT COUNT(*) FROM shares"));
  if (!s.Step()) return Internal("count failed");
  return static_cast<std::uint64_t>(s.ColInt(0));
}

Result<std::uint64_t> Store::CountNonces() {
  VEIL_ASSIGN_OR_RETURN(auto s, impl_->db.Prepare("SELECT COUNT(*) FROM nonces"));
  if (!s.Step()) return Internal("count failed");
  return static_cast<std::uint64_t>(s.ColInt(0));
}

}  // namespace veil::guardian::internal
