// A SQLite VFS that writes each transaction's WAL frames with one system call (internal to
// src/ledger; docs/notes/ledger.md, "WAL writes").
//
// SQLite appends a transaction to its write-ahead log frame by frame, each frame as two writes (a
// 24-byte header, then the page): a one-entity block of the ledger touches about 20 pages, so a
// commit costs about 40 pwrite calls before its fsync, and on a virtual machine a system call costs
// several microseconds. This VFS wraps the platform's default one. For WAL files only, it gathers
// contiguous appends in memory and hands them to the real file in one write when the commit frame
// has been written (its header carries the database size; every other frame's carries zero), so the
// log is complete on disk before SQLite syncs it or publishes the new frames in the WAL index,
// whatever the `synchronous` setting. Anything that needs the file as it is (a read, a sync, a
// size, a truncation, a file control, a close) writes the gathered bytes first. Database, journal
// and shared-memory files pass through untouched.
#pragma once

#include <cstdint>

namespace veil::ledger::internal {

// The name of the VFS to pass to sqlite3_open_v2, registered on first use (not as the default).
// Returns nullptr when registration failed (then SQLite's default VFS is the fallback).
const char* CoalescingWalVfsName();

// Process-wide counts since start, for tests and metrics: the WAL writes SQLite asked for, and
// the writes handed to the real file for them.
struct CoalescingWalStats {
  std::uint64_t wal_writes = 0;
  std::uint64_t real_writes = 0;
};
CoalescingWalStats GetCoalescingWalStats();

}  // namespace veil::ledger::internal
