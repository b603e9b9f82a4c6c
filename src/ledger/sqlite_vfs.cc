// The coalescing WAL VFS (sqlite_vfs.h).
#include "sqlite_vfs.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

namespace veil::ledger::internal {
namespace {

constexpr const char* kVfsName = "veil-coalescing-wal";
// Gathered bytes are written out once they reach this much (a large block's frames go out in
// pieces of this size rather than all at the commit).
constexpr std::size_t kFlushAt = std::size_t{4} << 20;
constexpr int kFrameHeaderBytes = 24;
// The most handed to the real xWrite at once: SQLite's unix VFS writes at most 2^17 - 1 bytes a
// call (its seekAndWriteFd masks the length to 17 bits), so larger pieces would come back short.
constexpr std::size_t kMaxWrite = 0x1f000;

std::atomic<std::uint64_t> g_wal_writes{0};
std::atomic<std::uint64_t> g_real_writes{0};

sqlite3_vfs* RealVfs(sqlite3_vfs* vfs) { return static_cast<sqlite3_vfs*>(vfs->pAppData); }

// A WAL file: this header, then the real file's own structure.
struct WalFile {
  sqlite3_file base;  // base.pMethods = &kWalMethods
  sqlite3_file* real;
  std::vector<unsigned char>* pending;  // contiguous bytes not yet written, from pending_offset
  sqlite3_int64 pending_offset;
  bool commit_page_next;  // the last write was a commit frame's header
};

WalFile* AsWal(sqlite3_file* f) { return reinterpret_cast<WalFile*>(f); }

// Writes the gathered bytes to the real file. On failure the bytes are dropped: SQLite treats a
// failed write of its log as a failed transaction and rewrites what it needs.
int Flush(WalFile* w) {
  const auto& pending = *w->pending;
  int rc = SQLITE_OK;
  for (std::size_t done = 0; done < pending.size() && rc == SQLITE_OK;) {
    const std::size_t n = std::min(kMaxWrite, pending.size() - done);
    rc = w->real->pMethods->xWrite(w->real, pending.data() + done, static_cast<int>(n),
                                   w->pending_offset + static_cast<sqlite3_int64>(done));
    done += n;
    g_real_writes.fetch_add(1, std::memory_order_relaxed);
  }
  w->pending->clear();
  return rc;
}

int WalClose(sqlite3_file* f) {
  WalFile* w = AsWal(f);
  const int flush_rc = Flush(w);
  const int rc = w->real->pMethods->xClose(w->real);
  delete w->pending;
  w->pending = nullptr;
  return flush_rc != SQLITE_OK ? flush_rc : rc;
}

int WalRead(sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
  WalFile* w = AsWal(f);
  if (const int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xRead(w->real, out, amount, offset);
}

int WalWrite(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  WalFile* w = AsWal(f);
  g_wal_writes.fetch_add(1, std::memory_order_relaxed);
  auto& pending = *w->pending;
  if (!pending.empty() &&
      offset != w->pending_offset + static_cast<sqlite3_int64>(pending.size())) {
    if (const int rc = Flush(w); rc != SQLITE_OK) return rc;
  }
  if (pending.empty()) w->pending_offset = offset;
  const auto* bytes = static_cast<const unsigned char*>(data);
  pending.insert(pending.end(), bytes, bytes + amount);
  // A frame header's bytes 4..7 hold the database size in pages for a commit frame, zero for any
  // other frame; the commit frame's page is the transaction's last write before its sync.
  bool commit_done = false;
  if (w->commit_page_next) {
    commit_done = true;
    w->commit_page_next = false;
  } else if (amount == kFrameHeaderBytes) {
    w->commit_page_next = (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
  }
  if (commit_done || pending.size() >= kFlushAt) return Flush(w);
  return SQLITE_OK;
}

int WalTruncate(sqlite3_file* f, sqlite3_int64 size) {
  WalFile* w = AsWal(f);
  if (const int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xTruncate(w->real, size);
}

int WalSync(sqlite3_file* f, int flags) {
  WalFile* w = AsWal(f);
  if (const int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xSync(w->real, flags);
}

int WalFileSize(sqlite3_file* f, sqlite3_int64* size) {
  WalFile* w = AsWal(f);
  if (const int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xFileSize(w->real, size);
}

int WalLock(sqlite3_file* f, int level) {
  WalFile* w = AsWal(f);
  return w->real->pMethods->xLock(w->real, level);
}

int WalUnlock(sqlite3_file* f, int level) {
  WalFile* w = AsWal(f);
  return w->real->pMethods->xUnlock(w->real, level);
}

int WalCheckReservedLock(sqlite3_file* f, int* out) {
  WalFile* w = AsWal(f);
  return w->real->pMethods->xCheckReservedLock(w->real, out);
}

int WalFileControl(sqlite3_file* f, int op, void* arg) {
  WalFile* w = AsWal(f);
  if (const int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xFileControl(w->real, op, arg);
}

int WalSectorSize(sqlite3_file* f) {
  WalFile* w = AsWal(f);
  return w->real->pMethods->xSectorSize(w->real);
}

int WalDeviceCharacteristics(sqlite3_file* f) {
  WalFile* w = AsWal(f);
  return w->real->pMethods->xDeviceCharacteristics(w->real);
}

int WalShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  WalFile* w = AsWal(f);
  return w->real->pMethods->xShmMap(w->real, region, size, extend, out);
}

int WalShmLock(sqlite3_file* f, int offset, int n, int flags) {
  WalFile* w = AsWal(f);
  return w->real->pMethods->xShmLock(w->real, offset, n, flags);
}

void WalShmBarrier(sqlite3_file* f) {
  WalFile* w = AsWal(f);
  w->real->pMethods->xShmBarrier(w->real);
}

int WalShmUnmap(sqlite3_file* f, int delete_flag) {
  WalFile* w = AsWal(f);
  return w->real->pMethods->xShmUnmap(w->real, delete_flag);
}

int WalFetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  WalFile* w = AsWal(f);
  if (const int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xFetch(w->real, offset, amount, out);
}

int WalUnfetch(sqlite3_file* f, sqlite3_int64 offset, void* p) {
  WalFile* w = AsWal(f);
  return w->real->pMethods->xUnfetch(w->real, offset, p);
}

const sqlite3_io_methods kWalMethods = {
    3,
    WalClose,
    WalRead,
    WalWrite,
    WalTruncate,
    WalSync,
    WalFileSize,
    WalLock,
    WalUnlock,
    WalCheckReservedLock,
    WalFileControl,
    WalSectorSize,
    WalDeviceCharacteristics,
    WalShmMap,
    WalShmLock,
    WalShmBarrier,
    WalShmUnmap,
    WalFetch,
    WalUnfetch,
};

// The real file sits after the WalFile header, aligned for any structure.
constexpr std::size_t kHeaderBytes = (sizeof(WalFile) + alignof(std::max_align_t) - 1) /
                                     alignof(std::max_align_t) * alignof(std::max_align_t);

int Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  sqlite3_vfs* real = RealVfs(vfs);
  if ((flags & SQLITE_OPEN_WAL) == 0) {
    // Not a WAL file: the real VFS's own structure, in place, with its own methods.
    return real->xOpen(real, name, file, flags, out_flags);
  }
  WalFile* w = AsWal(file);
  w->base.pMethods = nullptr;
  w->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<unsigned char*>(file) + kHeaderBytes);
  const int rc = real->xOpen(real, name, w->real, flags, out_flags);
  if (rc != SQLITE_OK) return rc;
  // The real file's methods outlive it only as far as its own xClose; a version below 3 would
  // lack xFetch, which kWalMethods forwards.
  if (w->real->pMethods == nullptr || w->real->pMethods->iVersion < 3) {
    if (w->real->pMethods != nullptr) w->real->pMethods->xClose(w->real);
    return SQLITE_CANTOPEN;
  }
  w->pending = new (std::nothrow) std::vector<unsigned char>();
  if (w->pending == nullptr) {
    w->real->pMethods->xClose(w->real);
    return SQLITE_NOMEM;
  }
  w->pending_offset = 0;
  w->commit_page_next = false;
  w->base.pMethods = &kWalMethods;
  return SQLITE_OK;
}

int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  return RealVfs(vfs)->xDelete(RealVfs(vfs), name, sync_dir);
}
int Access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
  return RealVfs(vfs)->xAccess(RealVfs(vfs), name, flags, out);
}
int FullPathname(sqlite3_vfs* vfs, const char* name, int n, char* out) {
  return RealVfs(vfs)->xFullPathname(RealVfs(vfs), name, n, out);
}
void* DlOpen(sqlite3_vfs* vfs, const char* path) {
  return RealVfs(vfs)->xDlOpen(RealVfs(vfs), path);
}
void DlError(sqlite3_vfs* vfs, int n, char* out) { RealVfs(vfs)->xDlError(RealVfs(vfs), n, out); }
void (*DlSym(sqlite3_vfs* vfs, void* handle, const char* symbol))(void) {
  return RealVfs(vfs)->xDlSym(RealVfs(vfs), handle, symbol);
}
void DlClose(sqlite3_vfs* vfs, void* handle) { RealVfs(vfs)->xDlClose(RealVfs(vfs), handle); }
int Randomness(sqlite3_vfs* vfs, int n, char* out) {
  return RealVfs(vfs)->xRandomness(RealVfs(vfs), n, out);
}
int Sleep(sqlite3_vfs* vfs, int micros) { return RealVfs(vfs)->xSleep(RealVfs(vfs), micros); }
int CurrentTime(sqlite3_vfs* vfs, double* out) {
  return RealVfs(vfs)->xCurrentTime(RealVfs(vfs), out);
}
int GetLastError(sqlite3_vfs* vfs, int n, char* out) {
  return RealVfs(vfs)->xGetLastError(RealVfs(vfs), n, out);
}
int CurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  return RealVfs(vfs)->xCurrentTimeInt64(RealVfs(vfs), out);
}
int SetSystemCall(sqlite3_vfs* vfs, const char* name, sqlite3_syscall_ptr p) {
  return RealVfs(vfs)->xSetSystemCall(RealVfs(vfs), name, p);
}
sqlite3_syscall_ptr GetSystemCall(sqlite3_vfs* vfs, const char* name) {
  return RealVfs(vfs)->xGetSystemCall(RealVfs(vfs), name);
}
const char* NextSystemCall(sqlite3_vfs* vfs, const char* name) {
  return RealVfs(vfs)->xNextSystemCall(RealVfs(vfs), name);
}

}  // namespace

CoalescingWalStats GetCoalescingWalStats() {
  return {g_wal_writes.load(std::memory_order_relaxed),
          g_real_writes.load(std::memory_order_relaxed)};
}

const char* CoalescingWalVfsName() {
  static sqlite3_vfs vfs;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    if (sqlite3_initialize() != SQLITE_OK) return;
    sqlite3_vfs* real = sqlite3_vfs_find(nullptr);
    // Version 3 of the VFS interface (SQLite 3.7.6 and later) is what the forwarders assume.
    if (real == nullptr || real->iVersion < 3) return;
    vfs = sqlite3_vfs{};
    vfs.iVersion = 3;
    vfs.szOsFile = static_cast<int>(kHeaderBytes) + real->szOsFile;
    vfs.mxPathname = real->mxPathname;
    vfs.zName = kVfsName;
    vfs.pAppData = real;
    vfs.xOpen = Open;
    vfs.xDelete = Delete;
    vfs.xAccess = Access;
    vfs.xFullPathname = FullPathname;
    vfs.xDlOpen = DlOpen;
    vfs.xDlError = DlError;
    vfs.xDlSym = DlSym;
    vfs.xDlClose = DlClose;
    vfs.xRandomness = Randomness;
    vfs.xSleep = Sleep;
    vfs.xCurrentTime = CurrentTime;
    vfs.xGetLastError = GetLastError;
    vfs.xCurrentTimeInt64 = CurrentTimeInt64;
    vfs.xSetSystemCall = SetSystemCall;
    vfs.xGetSystemCall = GetSystemCall;
    vfs.xNextSystemCall = NextSystemCall;
    ok = sqlite3_vfs_register(&vfs, /*makeDflt=*/0) == SQLITE_OK;
  });
  return ok ? kVfsName : nullptr;
}

}  // namespace veil::ledger::internal
