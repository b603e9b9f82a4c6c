// Probe: the server cost of statement forms for a one-entity create block, interleaved in one
// process so the host's drift falls on every form alike. Not part of the build.
#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "schema.inc"

using Bytes = std::string;

struct Params {
  std::vector<Bytes> vals;
  std::vector<Oid> types;
  void I8(std::int64_t v) {
    Bytes b(8, '\0');
    for (int i = 0; i < 8; ++i)
      b[i] = static_cast<char>(static_cast<std::uint64_t>(v) >> (56 - 8 * i));
    vals.push_back(b);
    types.push_back(20);
  }
  void By(const Bytes& b) {
    vals.push_back(b);
    types.push_back(17);
  }
  void Tx(const Bytes& b) {
    vals.push_back(b);
    types.push_back(25);
  }
  static void Put32(Bytes* o, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) o->push_back(static_cast<char>(v >> (24 - 8 * i)));
  }
  void Arr(Oid elem, Oid arr, const std::vector<Bytes>& elems) {
    Bytes o;
    Put32(&o, 1);
    Put32(&o, 0);
    Put32(&o, elem);
    Put32(&o, static_cast<std::uint32_t>(elems.size()));
    Put32(&o, 1);
    for (const auto& e : elems) {
      Put32(&o, static_cast<std::uint32_t>(e.size()));
      o += e;
    }
    vals.push_back(o);
    types.push_back(arr);
  }
  static Bytes I8b(std::int64_t v) {
    Bytes b(8, '\0');
    for (int i = 0; i < 8; ++i)
      b[i] = static_cast<char>(static_cast<std::uint64_t>(v) >> (56 - 8 * i));
    return b;
  }
  void AI8(std::vector<std::int64_t> v) {
    std::vector<Bytes> e;
    for (auto x : v) e.push_back(I8b(x));
    Arr(20, 1016, e);
  }
  void ABy(std::vector<Bytes> v) { Arr(17, 1001, v); }
  void ATx(std::vector<Bytes> v) { Arr(25, 1009, v); }
};

Bytes H(std::uint64_t n, int which, std::size_t len = 32) {
  Bytes b(len, '\0');
  std::uint64_t x =
      n * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(which) * 0xBF58476D1CE4E5B9ull + 1;
  for (std::size_t i = 0; i < len; ++i) {
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    b[i] = static_cast<char>(x);
  }
  return b;
}

struct Conn {
  PGconn* c;
  explicit Conn(const char* url) : c(PQconnectdb(url)) {
    if (PQstatus(c) != CONNECTION_OK) {
      fprintf(stderr, "connect: %s\n", PQerrorMessage(c));
      exit(1);
    }
  }
  void Exec(const std::string& sql) {
    PGresult* r = PQexec(c, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
      fprintf(stderr, "exec %s: %s\n", sql.substr(0, 80).c_str(), PQerrorMessage(c));
      exit(1);
    }
    PQclear(r);
  }
  void Prepare(const char* name, const std::string& sql, const std::vector<Oid>& types) {
    PGresult* r = PQprepare(c, name, sql.c_str(), static_cast<int>(types.size()), types.data());
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
      fprintf(stderr, "prepare %s: %s\n", name, PQerrorMessage(c));
      exit(1);
    }
    PQclear(r);
  }
};

const char* kLock =
    "pg_advisory_xact_lock(hashtext('veil.ledger.write.' || current_schema())), "
    "set_config('plan_cache_mode', 'force_generic_plan', true)";

std::string Guard() {
  return std::string("WITH l AS MATERIALIZED (SELECT ") + kLock +
         "), moved AS (UPDATE chain_head SET number = $2, hash = $3, next_entity_id = $4, "
         "next_change_seq = $5, stored_entities = stored_entities + $6 WHERE id = 1 AND number = "
         "$1 AND hash = $7 AND EXISTS (SELECT 1 FROM l) RETURNING 1)";
}

// The block statement's CTEs in array form, parameters from $base+1.
std::string ArrayParts(int b) {
  auto p = [&](int k) { return "$" + std::to_string(b + k); };
  std::string acs =
      "acs AS (INSERT INTO accounts(address, tx_nonce, create_nonce) SELECT * FROM unnest(" + p(1) +
      "::bytea[], " + p(2) + "::int8[], " + p(3) +
      "::int8[]) ON CONFLICT (address) DO UPDATE SET tx_nonce = excluded.tx_nonce, "
      "create_nonce = excluded.create_nonce RETURNING id, address)";
  auto id = [](const char* col) {
    return std::string("COALESCE((SELECT s.id FROM acs s WHERE s.address = ") + col +
           "), (SELECT a.id FROM accounts a WHERE a.address = " + col + "))";
  };
  std::string ie =
      "ie AS (INSERT INTO entities(id, key, owner_id, creator_id, content_type, payload, "
      "created_block, updated_block, expires_block, last_change, attrs, flags) SELECT u.id, "
      "u.key, " +
      id("u.owner") + ", " + id("u.creator") +
      ", u.ct, u.p, u.cb, u.ub, u.eb, u.lc, u.at, u.fl FROM unnest(" + p(4) + "::int8[], " + p(5) +
      "::bytea[], " + p(6) + "::bytea[], " + p(7) + "::bytea[], " + p(8) + "::text[], " + p(9) +
      "::bytea[], " + p(10) + "::int8[], " + p(11) + "::int8[], " + p(12) + "::int8[], " + p(13) +
      "::int8[], " + p(14) + "::bytea[], " + p(15) +
      "::int8[]) AS u(id, key, owner, creator, ct, p, cb, ub, eb, lc, at, fl))";
  std::string an = "an AS (INSERT INTO attr_num(entity_id, name, value) SELECT * FROM unnest(" +
                   p(16) + "::int8[], " + p(17) + "::text[], " + p(18) + "::int8[]))";
  std::string ans = "ans AS (INSERT INTO attr_str(entity_id, name, value) SELECT * FROM unnest(" +
                    p(19) + "::int8[], " + p(20) + "::text[], " + p(21) + "::text[]))";
  std::string ex = "ex AS (INSERT INTO expiry(block, n) SELECT * FROM unnest(" + p(22) +
                   "::int8[], " + p(23) +
                   "::int8[]) ON CONFLICT (block) DO UPDATE SET n = expiry.n + excluded.n)";
  std::string ch =
      "ch AS (INSERT INTO changes(seq, block, kind, key, entity_hash) SELECT * FROM unnest(" +
      p(24) + "::int8[], " + p(25) + "::int8[], " + p(26) + "::int8[], " + p(27) + "::bytea[], " +
      p(28) + "::bytea[]))";
  std::string tx = "tx AS (INSERT INTO txs(block, idx, hash, body, gas) SELECT * FROM unnest(" +
                   p(29) + "::int8[], " + p(30) + "::int8[], " + p(31) + "::bytea[], " + p(32) +
                   "::bytea[], " + p(33) + "::int8[]))";
  return acs + ", " + ie + ", " + an + ", " + ans + ", " + ex + ", " + ch + ", " + tx;
}
std::string BlockCols() {
  return "INSERT INTO blocks(number, chain_id, parent, timestamp_ms, tx_root, changeset, tx_count, "
         "change_count, gas_used, hash) ";
}
std::string BlockValues(int b) {
  std::string s;
  for (int k = 1; k <= 10; ++k) s += (k > 1 ? ", $" : "$") + std::to_string(b + k);
  return s;
}

// VALUES form, parameters from $base+1: acs 3, ie 12, an 4x3, ans 4x3, ex 2, ch 5, tx 5 = 51.
std::string ValueParts(int b) {
  int k = b;
  auto p = [&]() { return "$" + std::to_string(++k); };
  std::string acs =
      "acs AS (INSERT INTO accounts(address, tx_nonce, create_nonce) VALUES (" + p() + "::bytea, ";
  acs += p() + "::int8, " + p() +
         "::int8) ON CONFLICT (address) DO UPDATE SET tx_nonce = excluded.tx_nonce, create_nonce = "
         "excluded.create_nonce RETURNING id, address)";
  std::string ie =
      "ie AS (INSERT INTO entities(id, key, owner_id, creator_id, content_type, payload, "
      "created_block, updated_block, expires_block, last_change, attrs, flags) SELECT u.* FROM "
      "(VALUES (";
  std::vector<std::string> ps;
  for (int i = 0; i < 12; ++i) ps.push_back(p());
  auto id = [](const std::string& col) {
    return std::string("COALESCE((SELECT s.id FROM acs s WHERE s.address = ") + col +
           "::bytea), (SELECT a.id FROM accounts a WHERE a.address = " + col + "::bytea))";
  };
  ie += ps[0] + "::int8, " + ps[1] + "::bytea, " + id(ps[2]) + ", " + id(ps[3]) + ", " + ps[4] +
        "::text, " + ps[5] + "::bytea, " + ps[6] + "::int8, " + ps[7] + "::int8, " + ps[8] +
        "::int8, " + ps[9] + "::int8, " + ps[10] + "::bytea, " + ps[11] + "::int2)) AS u)";
  std::string an = "an AS (INSERT INTO attr_num(entity_id, name, value) VALUES ";
  for (int r = 0; r < 4; ++r) {
    an += (r ? ", (" : "(") + p() + "::int8, ";
    an += p() + "::text, ";
    an += p() + "::int8)";
  }
  an += ")";
  std::string ans = "ans AS (INSERT INTO attr_str(entity_id, name, value) VALUES ";
  for (int r = 0; r < 4; ++r) {
    ans += (r ? ", (" : "(") + p() + "::int8, ";
    ans += p() + "::text, ";
    ans += p() + "::text)";
  }
  ans += ")";
  std::string ex = "ex AS (INSERT INTO expiry(block, n) VALUES (" + p() + "::int8, ";
  ex += p() + "::int8) ON CONFLICT (block) DO UPDATE SET n = expiry.n + excluded.n)";
  std::string ch =
      "ch AS (INSERT INTO changes(seq, block, kind, key, entity_hash) VALUES (" + p() + "::int8, ";
  ch += p() + "::int8, ";
  ch += p() + "::int8, ";
  ch += p() + "::bytea, ";
  ch += p() + "::bytea))";
  std::string tx =
      "tx AS (INSERT INTO txs(block, idx, hash, body, gas) VALUES (" + p() + "::int8, ";
  tx += p() + "::int8, ";
  tx += p() + "::bytea, ";
  tx += p() + "::bytea, ";
  tx += p() + "::int8))";
  return acs + ", " + ie + ", " + an + ", " + ans + ", " + ex + ", " + ch + ", " + tx;
}

const char* kNumNames[4] = {"bucket", "idx", "score", "version"};
const char* kStrNames[4] = {"kind", "name", "region", "status"};
const char* kStrVals[4] = {"doc", "e90", "r10", "draft"};

struct Values {
  std::int64_t n;
  Bytes sender, key, payload, attrs, body, hash, parent, txh, eh, root, cs;
  explicit Values(std::int64_t n_)
      : n(n_),
        sender(H(0, 1, 20)),
        key(H(n_, 2)),
        payload(H(n_, 3, 256)),
        attrs(H(n_, 4, 100)),
        body(H(n_, 5, 420)),
        hash(H(n_, 6)),
        parent(H(n_ - 1, 6)),
        txh(H(n_, 7)),
        eh(H(n_, 8)),
        root(H(n_, 9)),
        cs(H(n_, 10)) {}
};

void GuardParams(const Values& v, Params* p) {
  p->I8(v.n - 1);
  p->I8(v.n);
  p->By(v.hash);
  p->I8(v.n + 1);
  p->I8(v.n + 1);
  p->I8(1);
  p->By(v.parent);
}
void BlockParams(const Values& v, Params* p) {
  p->I8(v.n);
  p->I8(7);
  p->By(v.parent);
  p->I8(1700000000000 + v.n);
  p->By(v.root);
  p->By(v.cs);
  p->I8(1);
  p->I8(1);
  p->I8(21000);
  p->By(v.hash);
}
void ArrayPartParams(const Values& v, Params* p) {
  p->ABy({v.sender});
  p->AI8({v.n});
  p->AI8({v.n});
  p->AI8({v.n});
  p->ABy({v.key});
  p->ABy({v.sender});
  p->ABy({v.sender});
  p->ATx({"application/octet-stream"});
  p->ABy({v.payload});
  p->AI8({v.n});
  p->AI8({v.n});
  p->AI8({1000000000});
  p->AI8({v.n});
  p->ABy({v.attrs});
  p->AI8({0});
  p->AI8({v.n, v.n, v.n, v.n});
  p->ATx({kNumNames[0], kNumNames[1], kNumNames[2], kNumNames[3]});
  p->AI8({v.n, v.n * 3, v.n * 7, 1});
  p->AI8({v.n, v.n, v.n, v.n});
  p->ATx({kStrNames[0], kStrNames[1], kStrNames[2], kStrNames[3]});
  p->ATx({kStrVals[0], kStrVals[1], kStrVals[2], kStrVals[3]});
  p->AI8({1000000000});
  p->AI8({1});
  p->AI8({v.n});
  p->AI8({v.n});
  p->AI8({1});
  p->ABy({v.key});
  p->ABy({v.eh});
  p->AI8({v.n});
  p->AI8({0});
  p->ABy({v.txh});
  p->ABy({v.body});
  p->AI8({21000});
}
void ValuePartParams(const Values& v, Params* p) {
  p->By(v.sender);
  p->I8(v.n);
  p->I8(v.n);
  p->I8(v.n);
  p->By(v.key);
  p->By(v.sender);
  p->By(v.sender);
  p->Tx("application/octet-stream");
  p->By(v.payload);
  p->I8(v.n);
  p->I8(v.n);
  p->I8(1000000000);
  p->I8(v.n);
  p->By(v.attrs);
  {
    Bytes b(2, '\0');
    p->vals.push_back(b);
    p->types.push_back(21);
  }
  const std::int64_t nums[4] = {v.n, v.n * 3, v.n * 7, 1};
  for (int r = 0; r < 4; ++r) {
    p->I8(v.n);
    p->Tx(kNumNames[r]);
    p->I8(nums[r]);
  }
  for (int r = 0; r < 4; ++r) {
    p->I8(v.n);
    p->Tx(kStrNames[r]);
    p->Tx(kStrVals[r]);
  }
  p->I8(1000000000);
  p->I8(1);
  p->I8(v.n);
  p->I8(v.n);
  p->I8(1);
  p->By(v.key);
  p->By(v.eh);
  p->I8(v.n);
  p->I8(0);
  p->By(v.txh);
  p->By(v.body);
  p->I8(21000);
}

struct Form {
  const char* name;
  Conn conn;
  std::int64_t next = 1;
  std::vector<double> us;
  int kind;
};

bool SendPrepared(PGconn* c, const char* name, const Params& p) {
  std::vector<const char*> v;
  std::vector<int> l, f;
  for (const auto& b : p.vals) {
    v.push_back(b.data());
    l.push_back(static_cast<int>(b.size()));
    f.push_back(1);
  }
  return PQsendQueryPrepared(c, name, static_cast<int>(v.size()), v.data(), l.data(), f.data(),
                             1) == 1;
}

void Setup(Form& f, int kind) {
  f.kind = kind;
  const std::string s = std::string("forms_") + f.name;
  f.conn.Exec("SET client_min_messages = warning");
  f.conn.Exec("DROP SCHEMA IF EXISTS " + s + " CASCADE");
  f.conn.Exec("CREATE SCHEMA " + s);
  f.conn.Exec("SET search_path TO " + s);
  f.conn.Exec(kSchema);
  Values g(0);
  PGresult* r = nullptr;
  {
    std::string sql = "INSERT INTO chain_head VALUES (1, 0, '\\x";
    static const char* hx = "0123456789abcdef";
    for (unsigned char ch : g.hash) {
      sql += hx[ch >> 4];
      sql += hx[ch & 15];
    }
    sql += "', 1, 1, 0)";
    f.conn.Exec(sql);
  }
  (void)r;
  Params gp, bp, ap, vp;
  GuardParams(g, &gp);
  BlockParams(g, &bp);
  ArrayPartParams(g, &ap);
  ValuePartParams(g, &vp);
  std::vector<Oid> t;
  switch (kind) {
    case 0: {  // the landed form: guard, then the block statement
      f.conn.Prepare("guard", Guard() + " SELECT 1 / (SELECT count(*)::int FROM moved)", gp.types);
      t = ap.types;
      t.insert(t.end(), bp.types.begin(), bp.types.end());
      f.conn.Prepare(
          "block", "WITH " + ArrayParts(0) + " " + BlockCols() + "VALUES (" + BlockValues(33) + ")",
          t);
      break;
    }
    case 1:    // one statement, arrays (session-wide generic plans)
    case 3: {  // the same, the lock and set_config statement first
      if (kind == 1) f.conn.Exec("SET plan_cache_mode = force_generic_plan");
      t = gp.types;
      t.insert(t.end(), ap.types.begin(), ap.types.end());
      t.insert(t.end(), bp.types.begin(), bp.types.end());
      const std::string head =
          kind == 1 ? Guard()
                    : std::string(
                          "WITH moved AS (UPDATE chain_head SET number = $2, hash = $3, "
                          "next_entity_id = $4, next_change_seq = $5, stored_entities = "
                          "stored_entities + $6 WHERE id = 1 AND number = $1 AND hash = $7 "
                          "RETURNING 1)");
      f.conn.Prepare("block",
                     head + ", " + ArrayParts(7) + " " + BlockCols() + "SELECT " + BlockValues(40) +
                         " WHERE 1 / (SELECT count(*)::int FROM moved) = 1",
                     t);
      if (kind == 3) f.conn.Prepare("lock", std::string("SELECT ") + kLock, {});
      break;
    }
    case 2: {  // one statement, scalar VALUES, plan cache left to choose
      t = gp.types;
      t.insert(t.end(), vp.types.begin(), vp.types.end());
      t.insert(t.end(), bp.types.begin(), bp.types.end());
      const int nv = static_cast<int>(vp.types.size());
      f.conn.Prepare("block",
                     Guard() + ", " + ValueParts(7) + " " + BlockCols() + "SELECT " +
                         BlockValues(7 + nv) + " WHERE 1 / (SELECT count(*)::int FROM moved) = 1",
                     t);
      break;
    }
  }
}

bool OneTx(Form& f) {
  PGconn* c = f.conn.c;
  Values v(f.next);
  Params gp, bp, ap, vp, all;
  GuardParams(v, &gp);
  BlockParams(v, &bp);
  int results = 1;
  auto cat = [&](const Params& x) {
    all.vals.insert(all.vals.end(), x.vals.begin(), x.vals.end());
  };
  bool ok = true;
  const auto t0 = std::chrono::steady_clock::now();
  switch (f.kind) {
    case 0:
      ArrayPartParams(v, &ap);
      cat(ap);
      cat(bp);
      ok = SendPrepared(c, "guard", gp) && SendPrepared(c, "block", all);
      results = 2;
      break;
    case 1:
    case 3:
      ArrayPartParams(v, &ap);
      cat(gp);
      cat(ap);
      cat(bp);
      if (f.kind == 3) {
        ok = SendPrepared(c, "lock", Params{});
        results = 2;
      }
      ok = ok && SendPrepared(c, "block", all);
      break;
    case 2:
      ValuePartParams(v, &vp);
      cat(gp);
      cat(vp);
      cat(bp);
      ok = SendPrepared(c, "block", all);
      break;
  }
  ok = ok && PQpipelineSync(c) == 1;
  for (int i = 0; i < results && ok; ++i) {
    PGresult* r = PQgetResult(c);
    const auto st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      fprintf(stderr, "%s tx %ld: %s\n", f.name, static_cast<long>(f.next),
              PQresultErrorMessage(r));
      ok = false;
    }
    PQclear(r);
    if (ok) PQclear(PQgetResult(c));
  }
  PGresult* s;
  while ((s = PQgetResult(c)) != nullptr) {
    const bool sync = PQresultStatus(s) == PGRES_PIPELINE_SYNC;
    PQclear(s);
    if (sync) break;
  }
  const auto t1 = std::chrono::steady_clock::now();
  f.us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  ++f.next;
  return ok;
}

int main(int argc, char** argv) {
  const char* url = std::getenv("URL");
  const int rounds = argc > 1 ? atoi(argv[1]) : 20;
  const int per = argc > 2 ? atoi(argv[2]) : 100;
  std::vector<Form*> forms = {
      new Form{"two_stmt", Conn(url)}, new Form{"one_arrays_sessiongeneric", Conn(url)},
      new Form{"one_values_auto", Conn(url)}, new Form{"lock_then_one_arrays", Conn(url)}};
  for (std::size_t i = 0; i < forms.size(); ++i) {
    Setup(*forms[i], static_cast<int>(i));
    if (PQenterPipelineMode(forms[i]->conn.c) != 1) return 1;
  }
  for (int r = 0; r < rounds; ++r) {
    for (auto* f : forms) {
      for (int i = 0; i < per; ++i) {
        if (!OneTx(*f)) return 1;
      }
    }
  }
  for (auto* f : forms) {
    auto v = f->us;
    v.erase(v.begin(), v.begin() + std::min<std::size_t>(v.size(), per));  // first round: warm-up
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    PQexitPipelineMode(f->conn.c);
    PGresult* pr = PQexec(f->conn.c,
                          "SELECT string_agg(name || ':' || generic_plans || '/' || custom_plans, "
                          "' ') FROM pg_prepared_statements");
    printf("  plans %s\n", PQgetvalue(pr, 0, 0));
    PQclear(pr);
    printf("%-28s n=%zu p50=%.0f p10=%.0f p90=%.0f mean=%.0f\n", f->name, v.size(), v[v.size() / 2],
           v[v.size() / 10], v[9 * v.size() / 10], sum / v.size());
  }
}
