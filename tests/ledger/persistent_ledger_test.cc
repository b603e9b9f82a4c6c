// PersistentLedgerTest: the ledger on the backends that keep their data (a SQLite file,
// PostgreSQL; ledger_test_util.h): reopening, tampering through a second connection and
// VerifyChain, reader connections, older store formats and their migration.
#include "ledger/ledger_test_util.h"

namespace veil::ledger {
namespace {

// Opens the database file through a second connection and runs `sql`.
void Tamper(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  EXPECT_EQ(sqlite3_changes(db), 1) << sql;
  sqlite3_free(err);
  sqlite3_close(db);
}

// The expiry clock is the chain's, fixed at genesis: reopened with other options, a chain keeps
// it; a chain without one recorded (made before the clock existed) counts expiry in blocks.
TEST_P(PersistentLedgerTest, TheExpiryClockIsFixedAtGenesis) {
  expiry_clock_ = ExpiryClock::kSlots;
  nominal_block_time_ms_ = 1000;
  Open();
  EXPECT_EQ(ledger_->expiry_clock_ms(), 1000u);
  expiry_clock_ = ExpiryClock::kBlocks;
  nominal_block_time_ms_ = 2000;
  Open();
  EXPECT_EQ(ledger_->expiry_clock_ms(), 1000u);
  Open(BlockMode::kTimed);
  EXPECT_EQ(ledger_->expiry_clock_ms(), 1000u);
  Close();
  if (GetParam().kind == BackendKind::kPostgres) {
    PgPeek(schema_).Exec("DROP TABLE chain_params");
  } else {
    Tamper(path_, "DELETE FROM meta WHERE name = 'expiry_clock_ms'");
  }
  expiry_clock_ = ExpiryClock::kSlots;
  Open();
  EXPECT_EQ(ledger_->expiry_clock_ms(), 0u);
  Wallet a;
  const EntityKey k = MustCreate(a, Create(Head() + 2));
  Advance(1);
  EXPECT_FALSE(Get(k).has_value());  // block numbers: expired at block 2
}

TEST_P(PersistentLedgerTest, VerifyChainDetectsTampering) {
  struct Case {
    const char* sqlite;    // nullptr: a PostgreSQL-only case
    const char* postgres;  // nullptr: a SQLite-only case
    const char* expect;
    const char* expect_postgres = nullptr;  // when PostgreSQL says it differently
  };
  const Case cases[] = {
      {"UPDATE entities SET payload = x'ff' WHERE id = 1",
       "UPDATE entities SET payload = '\\xff'::bytea WHERE id = 1", "block 1: entity"},
      // Both stores keep a copy of the attributes in the entity row (what reads return) beside
      // the attr_* index rows: tampering with either makes the two differ.
      {"UPDATE attr_num SET value = value + 1 WHERE entity_id = 2",
       "UPDATE attr_num SET value = value + 1 WHERE entity_id = 2",
       "its attributes differ from its attribute index rows"},
      {"UPDATE entities SET attrs = x'00' WHERE id = 2",
       "UPDATE entities SET attrs = '\\x00'::bytea WHERE id = 2",
       "its attributes differ from its attribute index rows"},
      {"UPDATE entities SET attrs = x'01' WHERE id = 2",
       "UPDATE entities SET attrs = '\\x01'::bytea WHERE id = 2", "stored attributes"},
      // Both stores keep a block's changes and transactions in its row (store.h,
      // EncodeBlockChanges: a 4-byte count, then kind, key, entity hash; EncodeBlockTxs: a
      // count, then hash, 8-byte gas, body): the same fields tampered with there.
      {"UPDATE blocks SET changes = substr(changes, 1, 37) || zeroblob(32) WHERE number = 2",
       "UPDATE blocks SET changes = substring(changes from 1 for 37) || decode(repeat('00', 32), "
       "'hex') WHERE number = 2",
       "block 2: change-set"},
      {"UPDATE blocks SET txs = substr(txs, 1, 36) || x'7edcba9876543210' || substr(txs, 45) "
       "WHERE number = 3",
       "UPDATE blocks SET txs = substring(txs from 1 for 36) || '\\x7edcba9876543210'::bytea || "
       "substring(txs from 45) WHERE number = 3",
       "block 3: transaction root"},
      {"UPDATE blocks SET txs = substr(txs, 1, length(txs) - 1) || CASE WHEN substr(txs, -1) = "
       "x'00' THEN x'01' ELSE x'00' END WHERE number = 2",
       "UPDATE blocks SET txs = set_byte(txs, length(txs) - 1, get_byte(txs, length(txs) - 1) # 1) "
       "WHERE number = 2",
       "block 2: transaction 0"},
      {"UPDATE blocks SET changes = x'00' WHERE number = 2",
       "UPDATE blocks SET changes = '\\x00'::bytea WHERE number = 2", "block 2: stored changes"},
      {"UPDATE blocks SET txs = txs || x'00' WHERE number = 3",
       "UPDATE blocks SET txs = txs || '\\x00'::bytea WHERE number = 3",
       "block 3: stored transactions"},
      // The lookup receipts use (the block row's tx_hash) and the stored-entity counter.
      {"UPDATE blocks SET tx_hash = zeroblob(32) WHERE number = 2",
       "UPDATE blocks SET tx_hash = decode(repeat('00', 32), 'hex') WHERE number = 2",
       "block 2: transaction 0 is not found by its hash"},
      {"UPDATE blocks SET entities_net = entities_net + 1 WHERE number = 3",
       "UPDATE blocks SET entities_net = entities_net + 1 WHERE number = 3",
       "counters hold 4 stored entities, the entity table 3"},
      {"UPDATE blocks SET timestamp_ms = 5 WHERE number = 2",
       "UPDATE blocks SET timestamp_ms = 5 WHERE number = 2", "block 2: header hash"},
      // An entity row that names a block the chain does not have (the head is block 3).
      {"UPDATE entities SET updated_block = 9 WHERE id = 1",
       "UPDATE entities SET updated_block = 9 WHERE id = 1", "updated in block 9, beyond the head"},
      // A row whose owner is no account is refused by every read, VerifyChain's scan included
      // (PostgreSQL's inner join used to drop the row from the scan: the check passed).
      {"UPDATE entities SET owner_id = 999 WHERE id = 1",
       "UPDATE entities SET owner_id = 999 WHERE id = 1", "names account id 999",
       "names an account id that does not exist"},
      {"UPDATE entities SET creator_id = 999 WHERE id = 2",
       "UPDATE entities SET creator_id = 999 WHERE id = 2", "names account id 999",
       "names an account id that does not exist"},
      // An account's address changed under its entities, after a query has read them (SQLite
      // caches the addresses of ids it has read; VerifyChain's scan reads the table).
      {"UPDATE accounts SET address = zeroblob(20) WHERE id = 1",
       "UPDATE accounts SET address = decode(repeat('00', 20), 'hex') WHERE id = 1",
       "block 1: entity"},
  };
  for (const auto& c : cases) {
    if ((c.sqlite == nullptr && !IsPostgres()) || (c.postgres == nullptr && IsPostgres())) continue;
    ResetStorage();
    Open();
    Wallet a;
    for (int i = 0; i < 3; ++i) MustCreate(a, Create(100, {Attribute::Num("n", 1)}));
    ASSERT_TRUE(ledger_->VerifyChain().ok());
    auto page = ledger_->Query("n = 1");
    ASSERT_TRUE(page.ok() && page->entities.size() == 3) << page.status().ToString();
    if (IsPostgres()) {
      PgPeek pg(schema_);
      EXPECT_EQ(pg.Exec(c.postgres), 1) << c.postgres;
    } else {
      Tamper(path_, c.sqlite);
    }
    const Status s = ledger_->VerifyChain();
    const char* expect =
        IsPostgres() && c.expect_postgres != nullptr ? c.expect_postgres : c.expect;
    const char* sql = IsPostgres() ? c.postgres : c.sqlite;
    EXPECT_EQ(s.code(), Code::kDataLoss) << sql;
    EXPECT_NE(s.message().find(expect), std::string::npos) << sql << ": " << s.ToString();
    Close();
  }
}

// A reader connection reads what the writer wrote and cannot write (SQLite: query_only refuses
// the sweep's statements; PostgreSQL: a reader has no write statements prepared, in a read-only
// session); an in-memory SQLite database has none.
TEST_P(PersistentLedgerTest, ReaderConnectionsReadAndRefuseWrites) {
  Open();
  Wallet a;
  const EntityKey k = MustCreate(a, Create(100, {Attribute::Num("n", 1)}));
  auto store = OpenStore();
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto reader = (*store)->OpenReader();
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto found = (*reader)->GetEntities({k});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->at(0).key, k);
  EXPECT_EQ(*(*reader)->LiveCount(Head()), 1u);
  const auto swept = (*reader)->Sweep(1'000'000, 10);
  EXPECT_FALSE(swept.ok());
  EXPECT_EQ(CountOf("*"), 1u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());

  auto memory = OpenSqliteStore(SqliteOptions{});
  ASSERT_TRUE(memory.ok());
  EXPECT_EQ((*memory)->OpenReader().status().code(), Code::kFailedPrecondition);
}

// With reader connections, reads do not wait for a write in progress: here the write is held at
// the database (another connection holds SQLite's write lock, or PostgreSQL's chain write lock),
// with the ledger's writer mutex taken, and every kind of read still answers; the write lands
// once the database lets it go.
TEST_P(PersistentLedgerTest, ReadsDoNotWaitForAWriteInProgress) {
  Open();
  Wallet a;
  const EntityKey k = MustCreate(a, Create(100, {Attribute::Num("n", 1)}));
  const Hash32 first_tx = ledger_->GetBlock(1)->value().tx_hashes.at(0);

  sqlite3* blocker = nullptr;
  std::unique_ptr<PgPeek> pg;
  if (IsPostgres()) {
    pg = std::make_unique<PgPeek>(schema_);
    ASSERT_TRUE(pg->ok());
    pg->Exec("SELECT pg_advisory_lock(hashtext('veil.ledger.write.' || current_schema()))");
  } else {
    ASSERT_EQ(sqlite3_open(path_.c_str(), &blocker), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  const Bytes tx = Sign(a, {Create(100, {Attribute::Num("n", 2)})}, 1);
  auto write = std::async(std::launch::async, [&] { return ledger_->Submit(tx); });
  // The write is waiting at the database (SQLite's busy timeout is 5 s).
  ASSERT_EQ(write.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);

  auto get = ledger_->Get(k);
  ASSERT_TRUE(get.ok() && get->has_value()) << get.status().ToString();
  auto page = ledger_->Query("n >= 1");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->entities.size(), 1u);
  auto count = ledger_->Count("*");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count->count, 1u);
  EXPECT_TRUE(ledger_->Explain("n = 1").ok());
  EXPECT_EQ(ledger_->GetAccount(a.address())->tx_nonce, 1u);
  EXPECT_TRUE(ledger_->GetBlock(1)->has_value());
  EXPECT_TRUE(ledger_->GetReceipt(first_tx)->has_value());
  EXPECT_EQ(ledger_->Head().number, 1u);
  EXPECT_EQ(write.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout)
      << "the write was not held while the reads ran";

  if (IsPostgres()) {
    pg->Exec("SELECT pg_advisory_unlock(hashtext('veil.ledger.write.' || current_schema()))");
  } else {
    EXPECT_EQ(sqlite3_exec(blocker, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(blocker);
  }
  auto landed = write.get();
  ASSERT_TRUE(landed.ok()) << landed.status().ToString();
  EXPECT_TRUE(landed->status.ok()) << landed->status.ToString();
  EXPECT_EQ(CountOf("n = 2"), 1u);
  EXPECT_EQ(ledger_->Head().number, 2u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// Rows written before entities.attrs existed have it NULL (an old SQLite file gets the column when
// it is opened): reads and VerifyChain take the attributes from the attr_* rows instead, and new
// writes carry the copy.
TEST_P(PersistentLedgerTest, RowsWithoutAttributeCopyReadFromTheIndexRows) {
  Open();
  Wallet a;
  const EntityKey k = MustCreate(
      a, Create(100, {Attribute::Num("n", 7), Attribute::Str("s", "x"), Attribute::Num("z", 1)}));
  const auto before = ledger_->Get(k);
  ASSERT_TRUE(before.ok() && before->has_value());
  if (IsPostgres()) {
    PgPeek pg(schema_);
    EXPECT_EQ(pg.Exec("UPDATE entities SET attrs = NULL"), 1);
  } else {
    // A file from before the column: drop it while the ledger is closed, then reopen.
    Close();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, "ALTER TABLE entities DROP COLUMN attrs", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    Open();
  }
  const auto after = ledger_->Get(k);
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ(**after, **before);
  auto page = ledger_->Query("s = \"x\"");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->entities.size(), 1u);
  EXPECT_EQ(page->entities[0].attributes, (*before)->attributes);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // Rows affected by `sql` on the store, beside the open ledger.
  auto affected = [&](const std::string& sql) -> long {
    if (IsPostgres()) return PgPeek(schema_).Exec(sql);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    const long n = sqlite3_changes(db);
    sqlite3_close(db);
    return n;
  };
  const std::string without_copy = "UPDATE entities SET attrs = attrs WHERE attrs IS NULL";
  EXPECT_EQ(affected(without_copy), 1);
  // An old row and a new one side by side, each read right; the new one has its copy.
  const EntityKey k2 = MustCreate(a, Create(100, {Attribute::Str("s", "x")}));
  EXPECT_EQ(affected(without_copy), 1);
  page = ledger_->Query("s = \"x\"");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->entities.size(), 2u);
  EXPECT_EQ(page->entities[0].key, k2);
  EXPECT_EQ(page->entities[0].attributes, std::vector<Attribute>{Attribute::Str("s", "x")});
  EXPECT_EQ(page->entities[1].attributes, (*before)->attributes);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // An update that leaves the attributes alone (an extend) writes the old row's copy.
  EXPECT_TRUE(Submit(a, {ExtendOp{k, 200}}).status.ok());
  EXPECT_EQ(affected(without_copy), 0);
  EXPECT_EQ(Get(k)->attributes, (*before)->attributes);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // A node that has not cached the entity reads it from the store to validate an update (the
  // group's prefetch), and takes its attributes from the attr_* rows when the row has no copy.
  EXPECT_EQ(affected("UPDATE entities SET attrs = NULL WHERE id = (SELECT min(id) FROM entities)"),
            1);
  Close();
  Open();
  const auto extended = Submit(a, {ExtendOp{k, 300}});
  EXPECT_TRUE(extended.status.ok()) << extended.status.ToString();
  EXPECT_EQ(affected(without_copy), 0);
  EXPECT_EQ(Get(k)->attributes, (*before)->attributes);
  EXPECT_EQ(Get(k)->expires_block, 300u);
  // Reads take the row's copy: with the index row changed behind the ledger's back, a read
  // still returns the copy, and VerifyChain reports the difference.
  EXPECT_EQ(affected("UPDATE attr_str SET value = 'y' WHERE entity_id = (SELECT id FROM entities "
                     "WHERE attrs IS NOT NULL ORDER BY id DESC LIMIT 1)"),
            1);
  EXPECT_EQ(Get(k2)->attributes, std::vector<Attribute>{Attribute::Str("s", "x")});
  EXPECT_NE(ledger_->VerifyChain().message().find("differ"), std::string::npos);
}

// A chain written before creation flags existed: its transactions are in format 1 and its
// store has no flags column (an old SQLite file, format 2, gets it at open; PostgreSQL adds it
// with the schema). It keeps verifying, reads its entities with flags 0, accepts format-1
// transactions still, and takes flagged entities beside the old ones.
TEST_P(PersistentLedgerTest, ChainsFromBeforeCreationFlagsKeepWorking) {
  Open();
  Wallet a;
  auto sign_v1 = [&](std::vector<Operation> ops) {
    Transaction tx;
    tx.chain_id = 42;
    tx.nonce = NextNonce(a);
    tx.ops = std::move(ops);
    const Bytes body = EncodeBody(tx, SigScheme::kEd25519, a.key.public_key(), kTxFormatV1);
    const auto sig = a.key.Sign(Concat({AsBytes("veil.ledger.tx.v1"), body}));
    Writer w;
    w.Fixed(body).VarBytes(sig);
    return std::move(w).Take();
  };
  const Bytes v1 = sign_v1({Create(100, {Attribute::Num("n", 1)})});
  ASSERT_EQ(v1[2], kTxFormatV1);
  auto r = ledger_->Submit(v1);
  ASSERT_TRUE(r.ok() && r->status.ok()) << (r.ok() ? r->status : r.status()).ToString();
  ClientOf(a).ForgetNonce();  // the transaction went around the client: it reads the account
  const EntityKey old_key = r->created.at(0);
  if (IsPostgres()) {
    Close();
    // A schema from before the flags had no format table either (its builds did not record one).
    EXPECT_EQ(
        PgPeek(schema_).Exec("ALTER TABLE entities DROP COLUMN flags; DROP TABLE schema_format"),
        0);
  } else {
    Close();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db,
                           "ALTER TABLE entities DROP COLUMN flags; UPDATE meta SET value = 2 "
                           "WHERE name = 'format'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  Open();
  EXPECT_EQ(Get(old_key)->flags, 0u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  auto receipt = ledger_->GetReceipt(TxHash(v1));
  ASSERT_TRUE(receipt.ok() && receipt->has_value());
  EXPECT_EQ((*receipt)->created, std::vector<EntityKey>{old_key});
  // A format-1 update still lands; a flagged create lands beside it.
  UpdateOp u;
  u.key = old_key;
  u.set = {Attribute::Num("n", 2)};
  r = ledger_->Submit(sign_v1({u}));
  ASSERT_TRUE(r.ok() && r->status.ok());
  ClientOf(a).ForgetNonce();
  CreateOp ro = Create(100, {Attribute::Num("n", 3)});
  ro.flags = kFlagReadonly;
  const EntityKey new_key = MustCreate(a, ro);
  EXPECT_EQ(Get(new_key)->flags, kFlagReadonly);
  EXPECT_EQ(Get(old_key)->attributes, std::vector<Attribute>{Attribute::Num("n", 2)});
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // Reopened, both read back the same.
  Open();
  EXPECT_EQ(Get(new_key)->flags, kFlagReadonly);
  EXPECT_EQ(Get(old_key)->flags, 0u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// A store of a later format than this build's (a SQLite file's meta('format'), a PostgreSQL
// schema's schema_format) is refused at open, and left as it is; at this build's format it opens.
TEST_P(PersistentLedgerTest, NewerStoreFormatIsRefused) {
  Open();
  Wallet a;
  MustCreate(a, Create(100));
  Close();
  auto set_format = [&](int format) {
    if (IsPostgres()) {
      EXPECT_EQ(PgPeek(schema_).Exec("UPDATE schema_format SET format = " + std::to_string(format) +
                                     " WHERE id = 1"),
                1);
    } else {
      Tamper(path_, "UPDATE meta SET value = " + std::to_string(format) + " WHERE name = 'format'");
    }
  };
  const int current = 4;
  set_format(current + 1);
  auto store = OpenStore();
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("format " + std::to_string(current + 1)),
            std::string::npos)
      << store.status().ToString();
  set_format(current);
  Open();
  EXPECT_EQ(CountOf("*"), 1u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// A SQLite file of format 3 (tests/data/ledger/format3.db, written by the code before blocks kept
// their transactions and changes in their rows; tests/data/README.md) opens as format 4: every
// block's transactions and changes moved into its row, the head's counters with them, the old
// tables gone; the chain verifies, every transaction's receipt is found (the second and third of
// block 1 through tx_index), the counts are those the old ledger reported, and the chain goes on.
TEST_P(PersistentLedgerTest, SqliteFormat3FileMigrates) {
  if (IsPostgres()) GTEST_SKIP() << "a SQLite file's format";
  const std::filesystem::path data = std::filesystem::path(VEIL_TEST_DATA_DIR) / "ledger";
  std::ifstream in(data / "format3.json");
  ASSERT_TRUE(in.good());
  const auto expect = nlohmann::json::parse(in);
  std::filesystem::copy_file(data / "format3.db", path_,
                             std::filesystem::copy_options::overwrite_existing);
  const auto scalar = [&](const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
    const std::int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
  };
  ASSERT_EQ(scalar("SELECT value FROM meta WHERE name = 'format'"), 3);
  Open();
  EXPECT_EQ(scalar("SELECT value FROM meta WHERE name = 'format'"), 4);
  EXPECT_EQ(scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('txs', 'changes')"), 0);
  EXPECT_EQ(scalar("SELECT count(*) FROM meta"), 2);      // format, swept
  EXPECT_EQ(scalar("SELECT count(*) FROM tx_index"), 4);  // blocks 1, 2, 3: 3, 2, 2 txs
  ExpectFormat3ChainGoesOn(expect);
}

// A format-3 file whose rows do not add up is refused at open with kDataLoss, and left as it
// was (the migration is one transaction): a change missing from the sequence, a block's
// transaction missing (its header counts it), meta's counters other than the blocks'.
TEST_P(PersistentLedgerTest, SqliteFormat3FileThatDoesNotAddUpIsRefusedUnchanged) {
  if (IsPostgres()) GTEST_SKIP() << "a SQLite file's format";
  const std::filesystem::path data = std::filesystem::path(VEIL_TEST_DATA_DIR) / "ledger";
  const std::pair<const char*, const char*> cases[] = {
      {"DELETE FROM changes WHERE seq = 5", "out of sequence"},
      {"DELETE FROM changes WHERE seq = 9", "the header says"},
      {"DELETE FROM txs WHERE block = 1 AND idx = 2", "the header says"},
      {"UPDATE meta SET value = 99 WHERE name = 'next_change_seq'", "disagrees with the blocks"},
      {"UPDATE meta SET value = 10 WHERE name = 'head'", "disagrees with the blocks"},
  };
  for (const auto& [tamper, expect] : cases) {
    std::filesystem::copy_file(data / "format3.db", path_,
                               std::filesystem::copy_options::overwrite_existing);
    Tamper(path_, tamper);
    auto store = OpenStore();
    ASSERT_FALSE(store.ok()) << tamper;
    EXPECT_EQ(store.status().code(), Code::kDataLoss) << tamper;
    EXPECT_NE(store.status().message().find(expect), std::string::npos)
        << tamper << ": " << store.status().ToString();
    // Still format 3 with its txs table, no format-4 column or table (Tamper expects each
    // statement to match one row).
    Tamper(path_,
           "UPDATE meta SET value = 3 WHERE name = 'format' AND EXISTS (SELECT 1 FROM txs) AND "
           "NOT EXISTS (SELECT 1 FROM pragma_table_info('blocks') WHERE name = 'txs') AND NOT "
           "EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'tx_index')");
  }
}

// A PostgreSQL schema of format 3 (tests/data/ledger/pg-format3.sql: format3.db's chain in the
// PostgreSQL store's format-3 tables, chain_head and a row a transaction and a change; tests/data/
// README.md) opens as format 4, as SqliteFormat3FileMigrates checks for the file: every block's
// transactions and changes in its row, the head's counters with them, the old tables gone, the
// chain verified, every receipt found, the counts those the old ledger reported, and the chain
// goes on.
class PgFormat3 {
 public:
  // Loads the fixture into `schema` (made afresh), with `tamper` run after it (a statement that
  // changes one row, or drops a table).
  static void Load(const std::string& schema, const std::string& tamper = "") {
    std::ifstream in(std::filesystem::path(VEIL_TEST_DATA_DIR) / "ledger" / "pg-format3.sql");
    ASSERT_TRUE(in.good());
    const std::string script((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
    {
      PgPeek pg("");
      ASSERT_TRUE(pg.ok());
      pg.Exec("SET client_min_messages = warning");
      pg.Exec("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
      pg.Exec("CREATE SCHEMA \"" + schema + "\"");
    }
    PgPeek pg(schema);
    ASSERT_TRUE(pg.ok());
    pg.Exec(script);
    if (!tamper.empty()) {
      const long changed = pg.Exec(tamper);
      EXPECT_TRUE(changed == 1 || tamper.rfind("DROP", 0) == 0) << tamper << ": " << changed;
    }
  }
};

TEST_P(PersistentLedgerTest, PostgresFormat3SchemaMigrates) {
  if (!IsPostgres()) GTEST_SKIP() << "a PostgreSQL schema's format";
  std::ifstream in(std::filesystem::path(VEIL_TEST_DATA_DIR) / "ledger" / "format3.json");
  ASSERT_TRUE(in.good());
  const auto expect = nlohmann::json::parse(in);
  PgFormat3::Load(schema_);
  PgPeek pg(schema_);
  ASSERT_TRUE(pg.ok());
  ASSERT_EQ(pg.Value("SELECT format FROM schema_format"), "3");
  Open();
  EXPECT_EQ(pg.Value("SELECT format FROM schema_format"), "4");
  EXPECT_EQ(pg.Value("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND "
                     "tablename IN ('txs', 'changes', 'chain_head')"),
            "0");
  EXPECT_EQ(pg.Value("SELECT count(*) FROM tx_index"), "4");  // blocks 1, 2, 3: 3, 2, 2 txs
  EXPECT_EQ(pg.Value("SELECT n FROM swept"), "0");
  // Counters in the head's row only (the blocks before it never had theirs recorded); every
  // block's next change in its row.
  EXPECT_EQ(pg.Value("SELECT string_agg(number::text, ',') FROM blocks WHERE entities_net IS NOT "
                     "NULL AND next_entity_id IS NOT NULL"),
            "11");
  EXPECT_EQ(pg.Value("SELECT count(*) FROM blocks WHERE next_change_seq IS NULL OR txs IS NULL OR "
                     "changes IS NULL"),
            "0");
  EXPECT_EQ(pg.Value("SELECT string_agg(next_change_seq::text, ',' ORDER BY number) FROM blocks"),
            "1,5,8,10,10,10,10,10,10,10,10,10");
  EXPECT_EQ(pg.Value("SELECT count(*) FROM blocks WHERE tx_hash IS NULL"), "9");  // 0, 4..11
  ExpectFormat3ChainGoesOn(expect);
  // A node of format 3 opening the schema now would make its tables again, empty, before it
  // refused the format: a node of format 4 drops them, and refuses the schema when they hold rows.
  Close();
  const std::string old_tables =
      "CREATE TABLE chain_head(id smallint PRIMARY KEY); CREATE TABLE txs(block bigint); CREATE "
      "TABLE changes(seq bigint)";
  pg.Exec(old_tables);
  Open();
  EXPECT_EQ(pg.Value("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND "
                     "tablename IN ('txs', 'changes', 'chain_head')"),
            "0");
  EXPECT_EQ(Head(), expect["head"].get<std::uint64_t>() + 1);
  Close();
  pg.Exec(old_tables);
  EXPECT_EQ(pg.Exec("INSERT INTO txs VALUES (1)"), 1);
  auto store = OpenStore();
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Code::kDataLoss);
  EXPECT_NE(store.status().message().find("table txs of format 3 holds rows"), std::string::npos)
      << store.status().ToString();
}

// A format-3 schema whose rows do not add up is refused at open with kDataLoss and left as it
// was (the migration is one transaction), as for a SQLite file; and so is one that lacks one of
// the format's tables.
TEST_P(PersistentLedgerTest, PostgresFormat3SchemaThatDoesNotAddUpIsRefusedUnchanged) {
  if (!IsPostgres()) GTEST_SKIP() << "a PostgreSQL schema's format";
  const std::pair<const char*, const char*> cases[] = {
      {"DELETE FROM changes WHERE seq = 5", "out of sequence"},
      {"DELETE FROM changes WHERE seq = 9", "the header says"},
      {"DELETE FROM txs WHERE block = 1 AND idx = 2", "the header says"},
      {"UPDATE txs SET idx = 7 WHERE block = 1 AND idx = 2", "out of order"},
      {"UPDATE changes SET block = 40 WHERE seq = 9", "the header says"},
      {"DELETE FROM blocks WHERE number = 5", "block 5 is missing"},
      {"UPDATE changes SET kind = 9 WHERE seq = 2", "unknown change kind"},
      {"UPDATE chain_head SET next_change_seq = 99", "disagrees with the blocks"},
      {"UPDATE chain_head SET number = 10", "disagrees with the blocks"},
      {"UPDATE chain_head SET hash = decode(repeat('00', 32), 'hex')", "disagrees with the blocks"},
      {"DELETE FROM chain_head", "disagree about the head"},
      {"INSERT INTO txs(block, idx, hash, body, gas) VALUES (40, 0, '\\x00', '\\x00', 0)",
       "a block the chain does not have"},
      {"DROP TABLE changes", "not all"},
  };
  // The format, the tables, the blocks' columns and rows.
  const std::string state_sql =
      "SELECT concat_ws(',', (SELECT format FROM schema_format), (SELECT count(*) FROM pg_tables "
      "WHERE schemaname = current_schema()), (SELECT count(*) FROM information_schema.columns "
      "WHERE table_schema = current_schema() AND table_name = 'blocks'), (SELECT "
      "md5(string_agg(b::text, ';' ORDER BY number)) FROM blocks b))";
  for (const auto& [tamper, expect] : cases) {
    SCOPED_TRACE(tamper);
    PgFormat3::Load(schema_, tamper);
    PgPeek pg(schema_);
    ASSERT_TRUE(pg.ok());
    const std::string before = pg.Value(state_sql);
    auto store = OpenStore();
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().code(), Code::kDataLoss);
    EXPECT_NE(store.status().message().find(expect), std::string::npos)
        << store.status().ToString();
    EXPECT_EQ(pg.Value(state_sql), before);
  }
}

// SqliteOptions::page_size: a new file takes it; a file made with another page size keeps its
// own and its chain continues under the default; a size SQLite cannot take is refused before a
// file is made.
TEST_P(PersistentLedgerTest, SqlitePageSizeAppliesToNewFilesOnly) {
  if (IsPostgres()) GTEST_SKIP() << "SQLite's page size";
  const auto page_size = [&] {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, nullptr), SQLITE_OK);
    const int size = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return size;
  };
  EXPECT_EQ(SqliteOptions{}.page_size, 4096);
  sqlite_page_size_ = 2048;
  Open();
  Wallet a;
  MustCreate(a, Create(100, {Attribute::Str("s", "x")}));
  Close();
  EXPECT_EQ(page_size(), 2048);
  sqlite_page_size_ = 4096;
  Open();
  MustCreate(a, Create(100, {Attribute::Str("s", "y")}));
  EXPECT_EQ(CountOf("s = \"x\" || s = \"y\""), 2u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  Close();
  EXPECT_EQ(page_size(), 2048);
  ResetStorage();
  Open();
  Wallet b;  // a new chain: nonces start again
  MustCreate(b, Create(100));
  Close();
  EXPECT_EQ(page_size(), 4096);
  for (const int bad : {0, 256, 1000, 131072}) {
    ResetStorage();
    sqlite_page_size_ = bad;
    EXPECT_EQ(OpenStore().status().code(), Code::kInvalidArgument) << bad;
    EXPECT_FALSE(std::filesystem::exists(path_)) << bad;
  }
}

TEST_P(PersistentLedgerTest, ReopenContinuesTheChain) {
  Open();
  Wallet a;
  const EntityKey k = MustCreate(a, Create(100, {Attribute::Str("s", "x")}));
  MustCreate(a, Create(100));
  const auto head = ledger_->Head();
  Open();  // closes and reopens the store
  EXPECT_EQ(ledger_->Head(), head);
  EXPECT_TRUE(Get(k).has_value());
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  auto r = Submit(a, {Create(100)});
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.created[0], ledger_->PredictKey(a.address(), 2));
  EXPECT_EQ(ledger_->Head().number, head.number + 1);
  EXPECT_EQ(ledger_->Head().parent, head.hash);
  EXPECT_EQ(CountOf("*"), 3u);
  EXPECT_TRUE(ledger_->VerifyChain().ok());
  // Another chain id may not open it.
  Close();
  auto store = OpenStore();
  ASSERT_TRUE(store.ok());
  LedgerOptions o;
  o.chain_id = 7;
  EXPECT_EQ(Ledger::Open(std::move(store).value(), o).status().code(), Code::kFailedPrecondition);
}

// VerifyChain in one process while another writes the same chain (`veil-ledger verify-chain
// --store` beside a node): an entity the other writer updates after the verify read its head
// names a block past it, and the verify reads the head again from the database and goes on,
// where it used to take the head of its own ledger, which had written nothing, and report the
// entity as beyond the chain (SQLite; PostgreSQL reloaded its head already).
TEST_P(PersistentLedgerTest, VerifyChainBesideAnotherWriter) {
  Open();
  Wallet w;
  const EntityKey first = MustCreate(w, Create(1000, {Attribute::Num("n", 1)}));
  for (std::uint64_t i = 0; i < 10; ++i) MustCreate(w, Create(1000, {Attribute::Num("i", i)}));
  auto store = OpenStore();
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto counting = std::make_unique<CountingStore>(std::move(store).value());
  CountingStore* c = counting.get();
  c->block_read_delay_ms = 20;
  LedgerOptions o;
  o.chain_id = 42;
  o.limits = limits_;
  o.clock_ms = [this] { return ++clock_; };
  auto verifier = Ledger::Open(std::move(counting), o);
  ASSERT_TRUE(verifier.ok()) << verifier.status().ToString();
  Status verified = Internal("not run");
  std::thread verify([&] { verified = (*verifier)->VerifyChain(); });
  while (c->block_reads.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  UpdateOp u;
  u.key = first;
  u.set = {Attribute::Num("n", 2)};
  EXPECT_TRUE(Submit(w, {u}).status.ok());
  verify.join();
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  EXPECT_TRUE(ledger_->VerifyChain().ok());
}

// Store level: blocks written together land together or not at all.
TEST_P(PersistentLedgerTest, ApplyBlocksWritesAllOrNothing) {
  auto store = OpenStore();
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Store& s = **store;
  ASSERT_TRUE(s.LoadState().ok());
  BlockWrite genesis;
  genesis.header = GenesisHeader(42);
  genesis.state_after.head = genesis.header;
  ASSERT_TRUE(s.Apply(genesis).ok());
  auto next = [](const ChainState& st, std::uint64_t ts) {
    BlockWrite w;
    w.header = st.head;
    w.header.number = st.head.number + 1;
    w.header.parent = st.head.hash;
    w.header.timestamp_ms = ts;
    w.header.hash = BlockHash(w.header);
    w.state_after = st;
    w.state_after.head = w.header;
    return w;
  };
  const BlockWrite b1 = next(genesis.state_after, 1);
  const BlockWrite b2 = next(b1.state_after, 2);
  // Blocks that do not follow each other are refused before the database sees them.
  BlockWrite stray = b2;
  stray.header.parent = genesis.header.hash;
  stray.header.hash = BlockHash(stray.header);
  stray.state_after.head = stray.header;
  const std::vector<BlockWrite> unchained = {b1, stray};
  EXPECT_EQ(s.ApplyBlocks(unchained).code(), Code::kInvalidArgument);
  // A planted row makes the second block's insert fail in the database: the first block, already
  // written in the same transaction, must go too.
  const bool pg = GetParam().kind == BackendKind::kPostgres;
  const std::string zero = pg ? "'\\x00'" : "x'00'";  // a one-byte blob in each dialect
  const std::string plant =
      "INSERT INTO blocks(number, chain_id, parent, timestamp_ms, tx_root, changeset, tx_count, "
      "change_count, gas_used, hash) VALUES (2, 42, " +
      zero + ", 0, " + zero + ", " + zero + ", 0, 0, 0, " + zero + ")";
  const std::string unplant = "DELETE FROM blocks WHERE number = 2";
  auto run_sql = [&](const std::string& sql) {
    if (pg) {
      PgPeek peek(schema_);
      ASSERT_TRUE(peek.ok());
      EXPECT_EQ(peek.Exec(sql), 1) << sql;
    } else {
      Tamper(path_, sql);
    }
  };
  run_sql(plant);
  const std::vector<BlockWrite> refused = {b1, b2};
  EXPECT_FALSE(s.ApplyBlocks(refused).ok());
  EXPECT_EQ(*s.GetBlock(1), std::nullopt);
  // (The planted row goes before the head is read: a SQLite file's head is its highest block.)
  run_sql(unplant);
  auto st = s.LoadState();
  ASSERT_TRUE(st.ok() && st->has_value());
  EXPECT_EQ((*st)->head, genesis.header);
  const std::vector<BlockWrite> both = {b1, b2};
  ASSERT_TRUE(s.ApplyBlocks(both).ok());
  st = s.LoadState();
  ASSERT_TRUE(st.ok() && st->has_value());
  EXPECT_EQ((*st)->head, b2.header);
  EXPECT_EQ(*s.GetBlock(1), std::optional<BlockHeader>(b1.header));
  LedgerOptions o;
  o.chain_id = 42;
  o.limits = limits_;
  auto l = Ledger::Open(std::move(store).value(), o);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_TRUE((*l)->VerifyChain().ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, PersistentLedgerTest, ::testing::ValuesIn(Backends(true, false)),
                         [](const ::testing::TestParamInfo<Backend>& p) { return p.param.name; });

}  // namespace
}  // namespace veil::ledger
