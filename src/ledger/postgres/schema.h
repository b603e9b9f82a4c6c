// The ledger's tables on PostgreSQL (docs/notes/ledger.md, "The PostgreSQL backend"): the schema
// of format 4, its set-up on every (re)connect of a writing store, and the migration of a format-3
// schema. Free functions over a PgConnection: the schema holds no state of its own.
//
// Internal to the ledger's PostgreSQL store.
#pragma once

#include "postgres/connection.h"

namespace veil::ledger::pg {

// The chain's write lock for this transaction: an advisory lock keyed by the schema. Every block
// write takes it (block_statement.cc, kWriteLock or the one-statement form's CTE `l`), and so does
// a migration, before any table's lock.
#define VEIL_PG_XACT_LOCK \
  "pg_advisory_xact_lock(hashtext('veil.ledger.write.' || current_schema()))"

// The stored entity rows as the counters give them: the head block's entities_net minus the
// sweeper's count, as one SQL expression (NULL before genesis; LiveCount, CountStoredRows).
inline constexpr const char* kStoredEntitiesSql =
    "(SELECT entities_net FROM blocks ORDER BY number DESC LIMIT 1) - (SELECT n FROM swept WHERE "
    "id = 1)";

// In a transaction of its own under the schema's advisory lock (two nodes creating the schema at
// once would race in the catalog; the second waits for the first, and the schema changes as a
// whole or not at all): refuses a schema of a later format than this build's (a newer node keeps
// state this build would not maintain, as flags were for the builds before them), makes this
// format's tables, turns a format-3 schema into format 4 (MigrateFormat3) and raises the recorded
// format. A failure rolls the transaction back.
Status SetUpSchema(PgConnection& pg);

}  // namespace veil::ledger::pg
