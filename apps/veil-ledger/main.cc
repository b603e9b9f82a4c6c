// veil-ledger: the ledger node and its inspection verbs (docs/notes/veil-ledger.md).
//
//   veil-ledger serve --store sqlite:PATH|postgres://... --listen 127.0.0.1:PORT
//                     [--block-time instant|2s] [--nominal-block-time 2s] [--chain-id N]
//                     [--port-file FILE]
//                     [--read-connections N] [--operator-rpc] [--client-read-ms N]
//                     [--client-queue-bytes N]
//   veil-ledger query TEXT | count TEXT | entity KEY | block N | receipt HASH | verify-chain
//               (--store SPEC | --rpc http://127.0.0.1:PORT)
//   veil-ledger keygen --out FILE [--scheme ed25519|composite] | address --key FILE
//   veil-ledger create | update KEY | extend KEY | transfer KEY --to ADDRESS | delete KEY
//               --key FILE (--store SPEC | --rpc URL) [payload, attribute and expiry options]
//
// Every inspection verb prints JSON on stdout; errors go to stderr as JSON and exit 1 (2 for a
// usage error). A write verb prints its transaction's receipt; a failed one also goes to stderr
// as an error, with exit 1. serve logs JSON lines on stderr and exits 0 after a graceful stop
// (SIGINT or SIGTERM).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "node.h"
#include "veil/base/encoding.h"
#include "veil/base/file.h"
#include "veil/crypto/secret.h"
#include "veil/ledger/client.h"
#include "veil/ledger/json.h"
#include "veil/net/daemon.h"
#include "veil/net/log.h"
#include "veil/net/signals.h"

namespace {

using veil::Result;
using veil::Status;
using Json = nlohmann::json;
namespace lj = veil::ledger::json;
namespace node = veil::ledger_node;
namespace vlog = veil::net::log;

int Fail(const Status& s) { return veil::net::PrintError(s); }

int Print(const Json& j) {
  std::cout << j.dump(2) << "\n";
  return 0;
}

// An explain's text as it is (the SQL, its parameters and the plan, one per line).
int PrintText(const veil::Result<std::string>& text) {
  if (!text.ok()) return Fail(text.status());
  std::cout << *text;
  return 0;
}

struct Target {
  std::string store;
  std::string rpc;
  std::uint64_t chain_id = 1;
};

// The api of an inspection verb: a ledger opened on the store, or a node over JSON-RPC.
Result<std::shared_ptr<veil::ledger::LedgerAdmin>> Open(const Target& t) {
  if (t.store.empty() == t.rpc.empty()) {
    return veil::InvalidArgument("give exactly one of --store and --rpc");
  }
  if (!t.rpc.empty()) {
    VEIL_ASSIGN_OR_RETURN(auto remote, node::ConnectRemote(t.rpc));
    return std::shared_ptr<veil::ledger::LedgerAdmin>(std::move(remote));
  }
  VEIL_ASSIGN_OR_RETURN(auto store, node::OpenStore(t.store));
  veil::ledger::LedgerOptions o;
  o.chain_id = t.chain_id;
  VEIL_ASSIGN_OR_RETURN(auto ledger, veil::ledger::Ledger::Open(std::move(store), o));
  return std::shared_ptr<veil::ledger::LedgerAdmin>(
      std::make_shared<veil::ledger::LocalLedger>(std::move(ledger)));
}

void AddTarget(CLI::App* cmd, Target* t) {
  cmd->add_option("--store", t->store, "sqlite:PATH, postgres://... or postgresql://...");
  cmd->add_option("--rpc", t->rpc, "a node's URL, http://127.0.0.1:PORT");
  cmd->add_option("--chain-id", t->chain_id, "chain id (with --store)");
}

// ---------------------------------------------------------------------------------------------
// Write verbs: keygen, address, create, update, extend, transfer, delete
// (docs/notes/veil-ledger.md, "Writing from the shell"). A key file is one line of text, mode 0600:
//   veil-ledger-key v1 ed25519 <64 hex digits: the Ed25519 seed>
//   veil-ledger-key v1 composite <128 hex digits: the ML-DSA-65 seed, then the Ed25519 seed>

constexpr std::string_view kKeyFileMagic = "veil-ledger-key v1 ";
constexpr std::size_t kMaxKeyFileBytes = 256;

// Lowercase hex of `secret` appended to `out`, with arithmetic rather than a table indexed by
// secret nibbles (libsodium's bin2hex).
void AppendSecretHex(veil::ByteView secret, veil::MutableByteView out) {
  for (std::size_t i = 0; i < secret.size(); ++i) {
    for (unsigned k = 0; k < 2; ++k) {
      const unsigned n = k == 0 ? secret[i] >> 4 : secret[i] & 0xfu;
      out[2 * i + k] = static_cast<std::uint8_t>(n + 87u + (((n - 10u) >> 8) & ~38u));
    }
  }
}

Status Keygen(const std::string& out, const std::string& scheme) {
  std::string tag;
  veil::crypto::SecretBytes seed;
  std::optional<veil::ledger::Signer> signer;
  if (scheme == "ed25519") {
    auto key = veil::crypto::Ed25519SigningKey::Generate();
    seed = veil::crypto::SecretBytes::CopyFrom(key.seed().Expose());
    signer.emplace(std::move(key));
  } else if (scheme == "composite") {
    auto key = veil::crypto::CompositeSigningKey::Generate();
    seed = key.Encode();
    signer.emplace(std::move(key));
  } else {
    return veil::InvalidArgument("--scheme: expected ed25519 or composite");
  }
  const std::string head = std::string(kKeyFileMagic) + scheme + " ";
  veil::crypto::SecretBytes text(head.size() + 2 * seed.size() + 1);
  auto t = text.ExposeMutable();
  std::copy(head.begin(), head.end(), t.begin());
  AppendSecretHex(seed.Expose(), t.subspan(head.size(), 2 * seed.size()));
  t[t.size() - 1] = '\n';
  // kNeverReplace: a key file is never overwritten (a lost key loses its entities).
  Status s =
      veil::WriteFileAtomically(out, text.Expose(), 0600, veil::ReplacePolicy::kNeverReplace);
  if (s.code() == veil::Code::kFailedPrecondition) {
    return veil::FailedPrecondition(out + " exists; keygen never overwrites a key file");
  }
  VEIL_RETURN_IF_ERROR(s);
  Print(Json{{"keyFile", out}, {"scheme", scheme}, {"address", lj::HexOf(signer->address())}});
  return Status::Ok();
}

// Reads a key file written by Keygen. It must be a regular file readable by its owner alone.
Result<veil::ledger::Signer> LoadKeyFile(const std::string& path) {
  veil::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) {
    return veil::FailedPrecondition("--key " + path + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return veil::FailedPrecondition("--key " + path + ": not a regular file");
  }
  if ((st.st_mode & 077) != 0) {
    return veil::FailedPrecondition("--key " + path +
                                    ": readable or writable by group or others; chmod 600 it");
  }
  veil::crypto::SecretBytes buf(kMaxKeyFileBytes + 1);
  std::size_t n = 0;
  while (n < buf.size()) {
    const ssize_t got = ::read(fd.get(), buf.ExposeMutable().data() + n, buf.size() - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return veil::Unavailable("--key " + path + ": " + std::strerror(errno));
    if (got == 0) break;
    n += static_cast<std::size_t>(got);
  }
  const auto bad = [&] {
    return veil::InvalidArgument("--key " + path +
                                 ": not a key file (expected \"veil-ledger-key v1 ed25519|"
                                 "composite HEX\", see `veil-ledger keygen`)");
  };
  if (n > kMaxKeyFileBytes) return bad();
  std::string_view text(reinterpret_cast<const char*>(buf.Expose().data()), n);
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.substr(0, kKeyFileMagic.size()) != kKeyFileMagic) return bad();
  text.remove_prefix(kKeyFileMagic.size());
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return bad();
  const std::string_view scheme = text.substr(0, space);
  const std::string_view hex = text.substr(space + 1);
  if (scheme == "ed25519") {
    veil::crypto::Secret<veil::crypto::kEd25519SeedSize> seed;
    if (!veil::HexDecodeInto(hex, seed.ExposeMutable()).ok()) return bad();
    return veil::ledger::Signer(veil::crypto::Ed25519SigningKey::FromSeed(seed));
  }
  if (scheme == "composite") {
    veil::crypto::SecretBytes seed(veil::crypto::kCompositePrivateKeySize);
    if (!veil::HexDecodeInto(hex, seed.ExposeMutable()).ok()) return bad();
    auto key = veil::crypto::CompositeSigningKey::Decode(seed.Expose());
    if (!key.ok()) return bad();
    return veil::ledger::Signer(std::move(key).value());
  }
  return bad();
}

struct WriteArgs {
  Target target;
  std::string key_file;
  std::string out;
  std::string scheme = "ed25519";
  std::string entity;  // the entity's key (update, extend, transfer, delete)
  std::string to;      // transfer's new owner
  std::optional<std::string> payload;
  std::string payload_file;
  std::optional<std::string> content_type;
  std::vector<std::string> attrs, nums, unset;
  std::string expires_in;
  bool readonly = false;
  bool permissionless_extension = false;
  std::string timeout = "60s";
};

struct WriteVerbs {
  WriteArgs args;
  CLI::App* keygen = nullptr;
  CLI::App* address = nullptr;
  CLI::App* create = nullptr;
  CLI::App* update = nullptr;
  CLI::App* extend = nullptr;
  CLI::App* transfer = nullptr;
  CLI::App* del = nullptr;
};

std::unique_ptr<WriteVerbs> AddWriteVerbs(CLI::App& app) {
  auto v = std::make_unique<WriteVerbs>();
  WriteArgs& a = v->args;
  v->keygen =
      app.add_subcommand("keygen", "make a signing key file (mode 0600, never overwritten)");
  v->keygen->add_option("--out", a.out, "the key file to write")->required();
  v->keygen->add_option("--scheme", a.scheme,
                        "ed25519 (default) or composite (ML-DSA-65 + Ed25519)");
  v->address = app.add_subcommand("address", "the address of a key file's key");
  v->create = app.add_subcommand("create", "create an entity");
  v->update = app.add_subcommand("update", "patch an entity's attributes and payload");
  v->extend = app.add_subcommand("extend", "move an entity's expiry later");
  v->transfer = app.add_subcommand("transfer", "give an entity to another owner");
  v->del = app.add_subcommand("delete", "delete an entity");
  for (auto* c : {v->update, v->extend, v->transfer, v->del}) {
    c->add_option("key", a.entity, "the entity's key, 0x + 64 hex digits")->required();
  }
  v->transfer->add_option("--to", a.to, "the new owner's address, 0x + 40 hex digits")->required();
  for (auto* c : {v->create, v->update}) {
    auto* p = c->add_option("--payload", a.payload, "the payload, as this string's bytes");
    auto* f = c->add_option("--payload-file", a.payload_file, "the payload, as this file's bytes");
    p->excludes(f);
    c->add_option("--content-type", a.content_type,
                  "the payload's type (default application/octet-stream)");
    c->add_option("--attr", a.attrs, "a string attribute NAME=VALUE (repeatable)")
        ->allow_extra_args(false);
    c->add_option("--num", a.nums, "a numeric attribute NAME=123 (repeatable)")
        ->allow_extra_args(false);
  }
  v->update->add_option("--unset", a.unset, "remove attribute NAME (repeatable)")
      ->allow_extra_args(false);
  for (auto* c : {v->create, v->extend}) {
    c->add_option("--expires-in", a.expires_in,
                  "lifetime: a duration (90s, 30m, 12h, 7d), converted on the chain's expiry "
                  "clock, or a count of blocks (an instant chain's: of its nominal block time)")
        ->required();
  }
  v->create->add_flag("--readonly", a.readonly, "no update may change it");
  v->create->add_flag("--permissionless-extension", a.permissionless_extension,
                      "anyone may extend it");
  for (auto* c : {v->address, v->create, v->update, v->extend, v->transfer, v->del}) {
    c->add_option("--key", a.key_file, "the signing key file (veil-ledger keygen)")->required();
  }
  for (auto* c : {v->create, v->update, v->extend, v->transfer, v->del}) {
    AddTarget(c, &a.target);
    c->add_option("--timeout", a.timeout,
                  "how long to wait for a timed node's receipt: 60s (default), 500ms, 2m");
  }
  return v;
}

// "NAME=VALUE" split at the first '='.
Result<std::pair<std::string, std::string>> SplitAssignment(const std::string& flag,
                                                            const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return veil::InvalidArgument(flag + " " + text + ": expected NAME=VALUE");
  }
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

// --attr and --num, sorted by name (the order a transaction requires); a name given twice is an
// error. Names and values are checked against the ledger's rules when the transaction is signed.
Result<std::vector<veil::ledger::Attribute>> ParseAttributes(const WriteArgs& a) {
  std::map<std::string, veil::ledger::Attribute> by_name;
  const auto add = [&](veil::ledger::Attribute attr) -> Status {
    const std::string name = attr.name;
    if (!by_name.emplace(name, std::move(attr)).second) {
      return veil::InvalidArgument("attribute " + name + " given twice");
    }
    return Status::Ok();
  };
  for (const auto& text : a.attrs) {
    VEIL_ASSIGN_OR_RETURN(auto nv, SplitAssignment("--attr", text));
    VEIL_RETURN_IF_ERROR(add(veil::ledger::Attribute::Str(nv.first, nv.second)));
  }
  for (const auto& text : a.nums) {
    VEIL_ASSIGN_OR_RETURN(auto nv, SplitAssignment("--num", text));
    const std::string& digits = nv.second;
    const bool all_digits =
        !digits.empty() && digits.size() <= 20 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    std::uint64_t value = 0;
    bool fits = all_digits;
    for (char c : all_digits ? digits : std::string()) {
      const auto d = static_cast<std::uint64_t>(c - '0');
      if (value > (UINT64_MAX - d) / 10) fits = false;
      value = value * 10 + d;
    }
    if (!fits) {
      return veil::InvalidArgument("--num " + text + ": the value must be an integer in 0.." +
                                   std::to_string(UINT64_MAX));
    }
    VEIL_RETURN_IF_ERROR(add(veil::ledger::Attribute::Num(nv.first, value)));
  }
  std::vector<veil::ledger::Attribute> out;
  for (auto& [name, attr] : by_name) out.push_back(std::move(attr));
  return out;
}

// The payload of --payload or --payload-file (nullopt: neither), at most the ledger's bound.
Result<std::optional<veil::Bytes>> ReadPayload(const WriteArgs& a) {
  const std::size_t max = veil::ledger::Limits::Arkiv().max_payload_bytes;
  if (a.payload) {
    if (a.payload->size() > max) {
      return veil::ResourceExhausted("--payload: longer than " + std::to_string(max) + " bytes");
    }
    return std::optional<veil::Bytes>(veil::Bytes(a.payload->begin(), a.payload->end()));
  }
  if (a.payload_file.empty()) return std::optional<veil::Bytes>();
  std::ifstream in(a.payload_file, std::ios::binary);
  if (!in) return veil::FailedPrecondition("--payload-file " + a.payload_file + ": cannot open");
  veil::Bytes data(max + 1);
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (in.bad()) return veil::Unavailable("--payload-file " + a.payload_file + ": read failed");
  data.resize(static_cast<std::size_t>(in.gcount()));
  if (data.size() > max) {
    return veil::ResourceExhausted("--payload-file " + a.payload_file + ": longer than " +
                                   std::to_string(max) + " bytes (the ledger's payload bound)");
  }
  return std::optional<veil::Bytes>(std::move(data));
}

// The absolute expiry for --expires-in (docs/architecture.md, "The lease clock"). A duration is
// a lifetime from now (ChainInfo::ExpiryFor). A bare count N is N units of the chain's expiry
// clock: on block numbers, N blocks after the block following the head; on a slot clock, N
// slots after the slot of now.
Result<std::uint64_t> ExpiryIn(veil::ledger::LedgerApi& api, const std::string& text) {
  std::uint64_t n = 0;
  const char* const end = text.data() + text.size();
  auto [at, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc() || at == text.data()) {
    return veil::InvalidArgument("--expires-in: a count of blocks or a duration (90s, 12h, 7d)");
  }
  if (n == 0) return veil::InvalidArgument("--expires-in: at least 1 block");
  const std::string_view unit(at, static_cast<std::size_t>(end - at));
  VEIL_ASSIGN_OR_RETURN(const veil::ledger::ChainInfo info, api.ChainInfo());
  const auto now_ms =
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
  if (!unit.empty()) {
    std::uint64_t scale = 0;
    if (unit == "s") scale = 1000;
    if (unit == "m") scale = 60'000;
    if (unit == "h") scale = 3'600'000;
    if (unit == "d") scale = 86'400'000;
    if (scale == 0) return veil::InvalidArgument("--expires-in: the unit is one of s, m, h, d");
    if (n > UINT64_MAX / scale) return veil::InvalidArgument("--expires-in: too long");
    return info.ExpiryFor(now_ms, n * scale);
  }
  const std::uint64_t from =
      info.expiry_clock_ms != 0 ? now_ms / info.expiry_clock_ms : info.head_number + 1;
  if (n > UINT64_MAX - from) return veil::InvalidArgument("--expires-in: too many blocks");
  return from + n;
}

// The operation a write verb names, from its arguments.
Result<veil::ledger::Operation> WriteOperation(const WriteVerbs& v, veil::ledger::LedgerApi& api) {
  const WriteArgs& a = v.args;
  namespace l = veil::ledger;
  VEIL_ASSIGN_OR_RETURN(auto attrs, ParseAttributes(a));
  VEIL_ASSIGN_OR_RETURN(auto payload, ReadPayload(a));
  if (v.create->parsed()) {
    l::CreateOp c;
    VEIL_ASSIGN_OR_RETURN(c.expires_block, ExpiryIn(api, a.expires_in));
    c.flags = static_cast<std::uint8_t>(
        (a.readonly ? l::kFlagReadonly : 0) |
        (a.permissionless_extension ? l::kFlagPermissionlessExtension : 0));
    c.content_type = a.content_type.value_or("application/octet-stream");
    if (payload) c.payload = std::move(*payload);
    c.attributes = std::move(attrs);
    return l::Operation(std::move(c));
  }
  VEIL_ASSIGN_OR_RETURN(const l::EntityKey key, lj::KeyFromJson(Json(a.entity), "key"));
  if (v.update->parsed()) {
    l::UpdateOp u;
    u.key = key;
    u.set = std::move(attrs);
    u.unset = a.unset;
    std::sort(u.unset.begin(), u.unset.end());
    if (std::adjacent_find(u.unset.begin(), u.unset.end()) != u.unset.end()) {
      return veil::InvalidArgument("--unset: an attribute given twice");
    }
    if (a.content_type && !payload) {
      return veil::InvalidArgument("--content-type needs --payload or --payload-file");
    }
    if (payload) {
      u.replace_payload = true;
      u.content_type = a.content_type.value_or("application/octet-stream");
      u.payload = std::move(*payload);
    }
    if (u.set.empty() && u.unset.empty() && !u.replace_payload) {
      return veil::InvalidArgument(
          "update: nothing to change (give --attr, --num, --unset or a payload)");
    }
    return l::Operation(std::move(u));
  }
  if (v.extend->parsed()) {
    VEIL_ASSIGN_OR_RETURN(const std::uint64_t expires, ExpiryIn(api, a.expires_in));
    return l::Operation(l::ExtendOp{key, expires});
  }
  if (v.transfer->parsed()) {
    VEIL_ASSIGN_OR_RETURN(const l::Address to, lj::AddressFromJson(Json(a.to), "--to"));
    return l::Operation(l::TransferOp{key, to});
  }
  return l::Operation(l::DeleteOp{key});
}

// Runs the write verb the command line named; nullopt when it named none.
std::optional<int> RunWriteVerbs(const WriteVerbs& v) {
  const WriteArgs& a = v.args;
  if (v.keygen->parsed()) {
    Status s = Keygen(a.out, a.scheme);
    return s.ok() ? 0 : Fail(s);
  }
  const bool writes = v.create->parsed() || v.update->parsed() || v.extend->parsed() ||
                      v.transfer->parsed() || v.del->parsed();
  if (!writes && !v.address->parsed()) return std::nullopt;
  auto signer = LoadKeyFile(a.key_file);
  if (!signer.ok()) return Fail(signer.status());
  if (v.address->parsed()) {
    return Print(
        Json{{"address", lj::HexOf(signer->address())},
             {"scheme",
              signer->scheme() == veil::ledger::SigScheme::kEd25519 ? "ed25519" : "composite"}});
  }
  auto timeout = node::ParseDuration(a.timeout, false);
  if (!timeout.ok()) return Fail(veil::InvalidArgument("--timeout: " + timeout.status().message()));
  auto api = Open(a.target);
  if (!api.ok()) return Fail(api.status());
  auto op = WriteOperation(v, **api);
  if (!op.ok()) return Fail(op.status());
  veil::ledger::ClientOptions o;
  o.receipt_timeout = *timeout;
  veil::ledger::Client client(**api, std::move(signer).value(), o);
  auto receipt = client.Submit({std::move(op).value()});
  if (!receipt.ok()) return Fail(receipt.status());
  Print(lj::ToJson(*receipt));
  return receipt->status.ok() ? 0 : Fail(receipt->status);
}

struct ServeArgs {
  std::string store;
  std::string listen = "127.0.0.1:8545";
  std::string block_time = "instant";
  std::string nominal_block_time;  // empty: NodeOptions' default
  std::string expiry_clock = "auto";
  std::string sweep_interval = "10s";
  std::uint64_t chain_id = 1;
  std::string port_file;
  std::size_t max_body = 9u << 20;
  std::size_t read_connections = 4;
  bool operator_rpc = false;
  std::uint64_t client_read_ms = 1000;
  std::uint64_t client_read_burst_ms = 5000;
  std::size_t max_connections = 1024;
  std::size_t max_connections_per_client = 64;
  std::size_t client_queue_bytes = std::size_t{64} << 20;
};

int Serve(const ServeArgs& a) {
  // First, before any thread: every later thread inherits the blocked signals.
  if (Status s = veil::net::BlockShutdownSignals(); !s.ok()) return Fail(s);
  node::NodeOptions o;
  o.store = a.store;
  o.chain_id = a.chain_id;
  o.max_body_bytes = a.max_body;
  o.read_connections = a.read_connections;
  o.operator_rpc = a.operator_rpc;
  o.clients.read_ms_per_second = std::chrono::milliseconds(a.client_read_ms);
  o.clients.read_burst = std::chrono::milliseconds(a.client_read_burst_ms);
  o.max_connections = a.max_connections;
  o.max_connections_per_client = a.max_connections_per_client;
  o.clients.max_queued_bytes = a.client_queue_bytes;
  auto listen = veil::net::ParseListenAddress(a.listen);
  if (!listen.ok()) return Fail(listen.status());
  o.host = listen->host;
  o.port = listen->port;
  auto bt = node::ParseDuration(a.block_time, true);
  if (!bt.ok()) return Fail(bt.status());
  o.block_time = *bt;
  if (!a.nominal_block_time.empty()) {
    if (o.block_time.count() > 0) {
      return Fail(veil::InvalidArgument(
          "--nominal-block-time is for an instant node: a timed node's is its --block-time"));
    }
    auto nominal = node::ParseDuration(a.nominal_block_time, false);
    if (!nominal.ok()) {
      return Fail(veil::InvalidArgument("--nominal-block-time: " + nominal.status().message()));
    }
    o.nominal_block_time = *nominal;
  }
  if (a.expiry_clock == "auto") {
    o.expiry_clock = veil::ledger::ExpiryClock::kAuto;
  } else if (a.expiry_clock == "blocks") {
    o.expiry_clock = veil::ledger::ExpiryClock::kBlocks;
  } else if (a.expiry_clock == "slots") {
    o.expiry_clock = veil::ledger::ExpiryClock::kSlots;
  } else {
    return Fail(veil::InvalidArgument("--expiry-clock: auto, blocks or slots"));
  }
  auto sweep = node::ParseDuration(a.sweep_interval, false);
  if (!sweep.ok()) return Fail(sweep.status());
  o.sweep_interval = *sweep;

  auto n = node::Node::Start(o);
  if (!n.ok()) return Fail(n.status());
  const std::uint16_t port = (*n)->port();
  if (Status s = veil::net::WritePortFile(a.port_file, port); !s.ok()) return Fail(s);
  vlog::Info("listening", {{"host", o.host},
                           {"port", port},
                           {"chain_id", o.chain_id},
                           {"block_time_ms", static_cast<std::int64_t>(o.block_time.count())},
                           {"expiry_clock_ms", (*n)->ledger().expiry_clock_ms()},
                           {"head", (*n)->ledger().Head().number}});
  return veil::net::WaitForShutdownAndStop([&] { return (*n)->Stop(); });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"veil-ledger: the Arkiv-model ledger node and its inspection tools"};
  app.require_subcommand(1);

  ServeArgs serve;
  auto* serve_cmd = app.add_subcommand("serve", "run a node (HTTP/JSON-RPC at /rpc)");
  serve_cmd->add_option("--store", serve.store, "sqlite:PATH, postgres://... or postgresql://...")
      ->required();
  serve_cmd->add_option("--listen", serve.listen, "HOST:PORT (port 0: any free port)");
  serve_cmd->add_option("--block-time", serve.block_time, "instant, or a duration: 2s, 500ms");
  serve_cmd->add_option("--nominal-block-time", serve.nominal_block_time,
                        "instant node: the block time it declares to clients (default 2s)");
  serve_cmd->add_option("--expiry-clock", serve.expiry_clock,
                        "a new chain's expiry clock: auto (an instant chain counts expiry in "
                        "slots of the nominal block time, a timed one in blocks), blocks, slots");
  serve_cmd->add_option("--sweep-interval", serve.sweep_interval, "sweeper period: 10s, 1m");
  serve_cmd->add_option("--chain-id", serve.chain_id, "chain id");
  serve_cmd->add_option("--port-file", serve.port_file, "write the bound port to FILE");
  serve_cmd->add_option("--max-body", serve.max_body, "largest request body in bytes");
  serve_cmd->add_option("--read-connections", serve.read_connections,
                        "database connections for reads beside the writer's (0: reads share it)");
  serve_cmd->add_flag("--operator-rpc", serve.operator_rpc,
                      "serve arkiv_verifyChain (a scan of the whole chain) to RPC clients");
  serve_cmd->add_option("--client-read-ms", serve.client_read_ms,
                        "read time each client address may use per second (0: unbounded)");
  serve_cmd->add_option("--client-read-burst-ms", serve.client_read_burst_ms,
                        "read time a client address may bank for a burst");
  serve_cmd->add_option("--max-connections", serve.max_connections,
                        "HTTP connections in all (the longest idle one makes room)");
  serve_cmd->add_option("--max-connections-per-client", serve.max_connections_per_client,
                        "HTTP connections from one client address (IPv6: one /64)");
  serve_cmd->add_option("--client-queue-bytes", serve.client_queue_bytes,
                        "timed mode: bytes of each client address's queued transactions (0: "
                        "unbounded)");

  Target target;
  std::string text, key, hash, cursor, select;
  std::uint64_t number = 0;
  std::size_t limit = 200;
  bool explain = false;
  auto* query_cmd = app.add_subcommand("query", "one page of a query");
  query_cmd->add_option("query", text, "query text, e.g. 'kind = \"doc\"'")->required();
  query_cmd->add_option("--limit", limit, "page size (1..200)");
  query_cmd->add_option("--cursor", cursor, "cursor from the previous page");
  query_cmd->add_option("--select", select, "comma-separated columns");
  auto* count_cmd = app.add_subcommand("count", "count entities matching a query");
  count_cmd->add_option("query", text, "query text")->required();
  for (auto* c : {query_cmd, count_cmd}) {
    c->add_flag("--explain", explain, "print the compiled query, its SQL and the database's plan");
  }
  auto* entity_cmd = app.add_subcommand("entity", "one entity by key");
  entity_cmd->add_option("key", key, "0x + 64 hex digits")->required();
  auto* block_cmd = app.add_subcommand("block", "a block header and its transactions");
  block_cmd->add_option("number", number, "block number")->required();
  auto* receipt_cmd = app.add_subcommand("receipt", "the receipt of a landed transaction");
  receipt_cmd->add_option("hash", hash, "0x + 64 hex digits")->required();
  auto* verify_cmd = app.add_subcommand(
      "verify-chain",
      "recompute every hash of the chain (--rpc: only a node started with --operator-rpc)");
  for (auto* c : {query_cmd, count_cmd, entity_cmd, block_cmd, receipt_cmd, verify_cmd}) {
    AddTarget(c, &target);
  }
  const std::unique_ptr<WriteVerbs> write = AddWriteVerbs(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (serve_cmd->parsed()) return Serve(serve);
  if (auto code = RunWriteVerbs(*write)) return *code;

  auto api_or = Open(target);
  if (!api_or.ok()) return Fail(api_or.status());
  auto& api = **api_or;
  if (query_cmd->parsed()) {
    veil::ledger::QueryOptions o;
    o.limit = limit;
    o.cursor = cursor;
    if (!select.empty()) {
      Json cols = Json::array();
      std::size_t start = 0;
      while (start <= select.size()) {
        const auto comma = select.find(',', start);
        cols.push_back(
            select.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      auto p = lj::ProjectionFromJson(cols);
      if (!p.ok()) return Fail(p.status());
      o.projection = *p;
    }
    if (explain) return PrintText(api.Explain(text, o));
    auto page = api.Query(text, o);
    if (!page.ok()) return Fail(page.status());
    return Print(lj::ToJson(*page, o.projection));
  }
  if (count_cmd->parsed()) {
    if (explain) return PrintText(api.ExplainCount(text));
    auto c = api.Count(text);
    if (!c.ok()) return Fail(c.status());
    return Print(lj::ToJson(*c));
  }
  if (entity_cmd->parsed()) {
    auto k = lj::KeyFromJson(Json(key), "key");
    if (!k.ok()) return Fail(k.status());
    auto e = api.Get(*k);
    if (!e.ok()) return Fail(e.status());
    if (!*e) return Fail(veil::NotFound("no live entity with this key"));
    return Print(lj::ToJson(**e));
  }
  if (block_cmd->parsed()) {
    auto b = api.GetBlock(number);
    if (!b.ok()) return Fail(b.status());
    if (!*b) return Fail(veil::NotFound("block " + std::to_string(number) + " is past the head"));
    return Print(lj::ToJson(**b));
  }
  if (receipt_cmd->parsed()) {
    auto h = lj::HashFromJson(Json(hash), "hash");
    if (!h.ok()) return Fail(h.status());
    auto r = api.GetReceipt(*h);
    if (!r.ok()) return Fail(r.status());
    if (!*r) return Fail(veil::NotFound("no landed transaction with this hash"));
    return Print(lj::ToJson(**r));
  }
  // verify-chain
  Status s = api.VerifyChain();
  if (!s.ok()) return Fail(s);
  auto head = api.Head();
  if (!head.ok()) return Fail(head.status());
  return Print(Json{{"ok", true}, {"head", head->number}, {"hash", lj::HexOf(head->hash)}});
}
