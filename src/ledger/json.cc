// JSON codecs for the ledger's wire types (json.h).
#include "veil/ledger/json.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <utility>

#include "veil/base/encoding.h"
#include "veil/base/json_object.h"
#include "veil/ledger/store.h"

namespace veil::ledger::json {
namespace {

// The name of a value in a message: `what`, or `what.member`; spelled out only for a message.
struct ValueName {
  ValueName(std::string_view w) : what(w) {}  // NOLINT(google-explicit-constructor)
  ValueName(const char* w) : what(w) {}       // NOLINT(google-explicit-constructor)
  ValueName(std::string_view w, const char* m) : what(w), member(m) {}
  std::string str() const {
    std::string out(what);
    if (member != nullptr) out.append(".").append(member);
    return out;
  }
  std::string_view what;
  const char* member = nullptr;
};

// The bytes of a 0x-hex string of min..max bytes, decoded into out(count), which returns where
// to write them.
template <class Out>
Status HexDecodeText(std::string_view s, const ValueName& name, std::size_t min, std::size_t max,
                     Out out) {
  if (s.size() < 2 || s[0] != '0' || s[1] != 'x') {
    return InvalidArgument(name.str() + ": hex must start with 0x");
  }
  const std::size_t digits = s.size() - 2;
  if (digits % 2 != 0) return InvalidArgument(name.str() + ": odd number of hex digits");
  const std::size_t n = digits / 2;
  if (n < min || n > max) {
    if (min == max) {
      return InvalidArgument(name.str() + ": expected " + std::to_string(min) + " bytes");
    }
    return InvalidArgument(name.str() + ": longer than " + std::to_string(max) + " bytes");
  }
  // Ledger values are public: the variable-time codec (no branch per digit either).
  if (!HexDecodeVartimeInto(s.substr(2), MutableByteView(out(n), n), HexCase::kLower).ok()) {
    return InvalidArgument(name.str() + ": not lowercase hex");
  }
  return Status::Ok();
}

template <class Out>
Status HexDecode(const Json& j, const ValueName& name, std::size_t min, std::size_t max, Out out) {
  if (!j.is_string()) return InvalidArgument(name.str() + ": expected a 0x-hex string");
  return HexDecodeText(j.get_ref<const std::string&>(), name, min, max, std::move(out));
}

Status HexInto(const Json& j, const ValueName& name, std::size_t min, std::size_t max, Bytes* out) {
  return HexDecode(j, name, min, max, [out](std::size_t n) {
    out->resize(n);
    return out->data();
  });
}

template <std::size_t N>
Status FixedInto(const Json& j, const ValueName& name, std::array<std::uint8_t, N>* out) {
  return HexDecode(j, name, N, N, [out](std::size_t) { return out->data(); });
}

template <std::size_t N>
Result<std::array<std::uint8_t, N>> FixedFromHex(const Json& j, std::string_view what) {
  std::array<std::uint8_t, N> out{};
  VEIL_RETURN_IF_ERROR(FixedInto(j, what, &out));
  return out;
}

// The shared strict object reader (base/json_object.h) plus the ledger's 0x-hex members.
class Obj : public JsonObjectReader {
 public:
  using JsonObjectReader::JsonObjectReader;

  // An unsigned integer that fits in T (limits carry sizes and narrower counts).
  template <class T>
  void Uint(const char* name, T* out) {
    std::uint64_t v = 0;
    if (!U64(name, &v)) return;
    if (v > std::numeric_limits<T>::max()) return Fail(name, "a smaller unsigned integer");
    *out = static_cast<T>(v);
  }
  template <std::size_t N>
  void Fixed(const char* name, std::array<std::uint8_t, N>* out) {
    const Json* v = Field(name, true);
    if (v == nullptr) return;
    Set(FixedInto(*v, ValueName(what(), name), out));
  }
  void Hex(const char* name, Bytes* out, std::size_t max) {
    const Json* v = Field(name, true);
    if (v == nullptr) return;
    Set(HexInto(*v, ValueName(what(), name), 0, max, out));
  }
};

// Bounds for decoding only (the ledger enforces its own limits on what it stores).
constexpr std::size_t kMaxPayload = 16u << 20;

}  // namespace

std::string HexOf(ByteView b) {
  std::string out = "0x";
  AppendHexVartime(b, &out);
  return out;
}

Result<Bytes> BytesFromHex(const Json& j, std::string_view what, std::size_t max_bytes) {
  Bytes out;
  VEIL_RETURN_IF_ERROR(HexInto(j, what, 0, max_bytes, &out));
  return out;
}
Result<EntityKey> KeyFromJson(const Json& j, std::string_view what) {
  return FixedFromHex<kKeySize>(j, what);
}
Result<Address> AddressFromJson(const Json& j, std::string_view what) {
  return FixedFromHex<kAddressSize>(j, what);
}
Result<Hash32> HashFromJson(const Json& j, std::string_view what) {
  return FixedFromHex<kHashSize>(j, what);
}

Json ToJson(const Attribute& a) {
  Json j = {{"name", a.name}};
  if (a.type() == AttrType::kNumeric) {
    j["type"] = "u64";
    j["value"] = std::get<std::uint64_t>(a.value);
  } else {
    j["type"] = "str";
    j["value"] = std::get<std::string>(a.value);
  }
  return j;
}

Result<Attribute> AttributeFromJson(const Json& j) {
  Obj o(j, "attribute");
  Attribute a;
  std::string type;
  o.Str("name", &a.name);
  o.Str("type", &type);
  if (type == "u64") {
    std::uint64_t v = 0;
    o.U64("value", &v);
    a.value = v;
  } else if (type == "str") {
    std::string v;
    o.Str("value", &v);
    a.value = std::move(v);
  } else {
    o.Fail("type", "\"u64\" or \"str\"");  // a missing type has failed already
  }
  VEIL_RETURN_IF_ERROR(o.Finish());
  return a;
}

namespace {
struct Column {
  const char* name;
  bool Projection::*member;
};
constexpr Column kColumns[] = {
    {"key", &Projection::key},
    {"owner", &Projection::owner},
    {"creator", &Projection::creator},
    {"blocks", &Projection::blocks},
    {"contentType", &Projection::content_type},
    {"payload", &Projection::payload},
    {"attributes", &Projection::attributes},
    {"creationFlags", &Projection::flags},
};
}  // namespace

Json ToJson(const Projection& p) {
  Json j = Json::array();
  for (const auto& c : kColumns) {
    if (p.*c.member) j.push_back(c.name);
  }
  return j;
}

Result<Projection> ProjectionFromJson(const Json& j) {
  if (!j.is_array()) return InvalidArgument("select: expected an array of column names");
  Projection p{false, false, false, false, false, false, false, false};
  for (const auto& v : j) {
    if (!v.is_string()) return InvalidArgument("select: expected column names");
    const std::string& name = v.get_ref<const std::string&>();
    bool found = false;
    for (const auto& c : kColumns) {
      if (name == c.name) {
        if (p.*c.member) return InvalidArgument("select: column \"" + name + "\" twice");
        p.*c.member = true;
        found = true;
      }
    }
    if (!found) return InvalidArgument("select: unknown column \"" + CutForMessage(name) + "\"");
  }
  if (j.empty()) return InvalidArgument("select: no columns");
  return p;
}

Json ToJson(const Entity& e, const Projection& p) {
  Json j = Json::object();
  if (p.key) j["key"] = HexOf(e.key);
  if (p.owner) j["owner"] = HexOf(e.owner);
  if (p.creator) j["creator"] = HexOf(e.creator);
  if (p.blocks) {
    j["createdAt"] = e.created_block;
    j["updatedAt"] = e.updated_block;
    j["expiresAt"] = e.expires_block;
  }
  if (p.content_type) j["contentType"] = e.content_type;
  if (p.flags) j["creationFlags"] = e.flags;
  if (p.payload) j["payload"] = HexOf(e.payload);
  if (p.attributes) {
    Json a = Json::array();
    for (const auto& x : e.attributes) a.push_back(ToJson(x));
    j["attributes"] = std::move(a);
  }
  return j;
}

Result<Entity> EntityFromJson(const Json& j, const Projection& p) {
  Obj o(j, "entity");
  Entity e;
  if (p.key) o.Fixed("key", &e.key);
  if (p.owner) o.Fixed("owner", &e.owner);
  if (p.creator) o.Fixed("creator", &e.creator);
  if (p.blocks) {
    o.U64("createdAt", &e.created_block);
    o.U64("updatedAt", &e.updated_block);
    o.U64("expiresAt", &e.expires_block);
  }
  if (p.content_type) o.Str("contentType", &e.content_type);
  if (p.flags) {
    std::uint64_t flags = 0;
    if (o.U64("creationFlags", &flags)) {
      if ((flags & ~std::uint64_t{kKnownFlags}) != 0) {
        o.Fail("creationFlags", "known creation flags");
      }
      e.flags = static_cast<std::uint8_t>(flags);
    }
  }
  if (p.payload) o.Hex("payload", &e.payload, kMaxPayload);
  if (p.attributes) {
    o.Array("attributes", [&](const Json& a, std::size_t) {
      VEIL_ASSIGN_OR_RETURN(auto attr, AttributeFromJson(a));
      e.attributes.push_back(std::move(attr));
      return Status::Ok();
    });
  }
  VEIL_RETURN_IF_ERROR(o.Finish());
  return e;
}

Json ToJson(const QueryOptions& q) {
  Json j = {{"select", ToJson(q.projection)}, {"limit", q.limit}};
  if (!q.cursor.empty()) j["cursor"] = q.cursor;
  if (q.at_block) j["atBlock"] = *q.at_block;
  return j;
}

Result<QueryOptions> QueryOptionsFromJson(const Json& j) {
  Obj o(j, "options");
  QueryOptions q;
  o.Nested(
      "select",
      [&](const Json& v) -> Status {
        VEIL_ASSIGN_OR_RETURN(q.projection, ProjectionFromJson(v));
        return Status::Ok();
      },
      false);
  std::uint64_t limit = 0;
  if (o.U64("limit", &limit, false)) {
    if (limit > 1'000'000) {
      o.Fail("limit", "at most the node's page size");
    } else {
      q.limit = static_cast<std::size_t>(limit);
    }
  }
  if (o.Str("cursor", &q.cursor, false) && q.cursor.empty()) o.Fail("cursor", "a cursor");
  std::uint64_t at = 0;
  if (o.U64("atBlock", &at, false)) q.at_block = at;
  VEIL_RETURN_IF_ERROR(o.Finish());
  return q;
}

Json ToJson(const Status& s) {
  return {{"code", s.ok() ? std::string("ok") : std::string(CodeName(s.code()))},
          {"message", s.message()}};
}

Status StatusFromJson(const Json& j, Status* out) {
  Obj o(j, "status");
  std::string code, message;
  o.Str("code", &code);
  o.Str("message", &message);
  VEIL_RETURN_IF_ERROR(o.Finish());
  if (code == "ok") {
    if (!message.empty()) return InvalidArgument("status: an ok status has no message");
    *out = Status::Ok();
    return Status::Ok();
  }
  for (int c = 1; c <= static_cast<int>(Code::kInternal); ++c) {
    if (CodeName(static_cast<Code>(c)) == code) {
      *out = Status(static_cast<Code>(c), message);
      return Status::Ok();
    }
  }
  return InvalidArgument("status.code: unknown code");
}

Json ToJson(const TxCost& c) {
  return {{"operations", c.operations},
          {"calldataBytes", c.calldata_bytes},
          {"bytesWritten", c.bytes_written},
          {"gas", c.gas}};
}

Result<TxCost> TxCostFromJson(const Json& j) {
  Obj o(j, "cost");
  TxCost c;
  o.U32("operations", &c.operations);
  o.U64("calldataBytes", &c.calldata_bytes);
  o.U64("bytesWritten", &c.bytes_written);
  o.U64("gas", &c.gas);
  VEIL_RETURN_IF_ERROR(o.Finish());
  return c;
}

Json ToJson(const TxReceipt& r) {
  Json created = Json::array();
  for (const auto& k : r.created) created.push_back(HexOf(k));
  Json j = {{"txHash", HexOf(r.tx_hash)},    {"sender", HexOf(r.sender)},  {"nonce", r.nonce},
            {"pending", r.pending},          {"status", ToJson(r.status)}, {"block", r.block},
            {"created", std::move(created)}, {"cost", ToJson(r.cost)}};
  if (r.failed_op) j["failedOp"] = *r.failed_op;
  if (r.index) j["index"] = *r.index;
  return j;
}

Result<TxReceipt> TxReceiptFromJson(const Json& j) {
  Obj o(j, "receipt");
  TxReceipt r;
  o.Fixed("txHash", &r.tx_hash);
  o.Fixed("sender", &r.sender);
  o.U64("nonce", &r.nonce);
  o.Bool("pending", &r.pending);
  o.Nested("status", [&](const Json& v) { return StatusFromJson(v, &r.status); });
  o.U64("block", &r.block);
  o.Array("created", [&](const Json& v, std::size_t) -> Status {
    VEIL_ASSIGN_OR_RETURN(auto k, KeyFromJson(v, "receipt.created"));
    r.created.push_back(k);
    return Status::Ok();
  });
  o.Nested("cost", [&](const Json& v) -> Status {
    VEIL_ASSIGN_OR_RETURN(r.cost, TxCostFromJson(v));
    return Status::Ok();
  });
  std::uint64_t v = 0;
  if (o.U64("failedOp", &v, false)) r.failed_op = static_cast<std::size_t>(v);
  if (o.U64("index", &v, false)) {
    if (v > std::numeric_limits<std::uint32_t>::max()) o.Fail("index", "a 32-bit integer");
    r.index = static_cast<std::uint32_t>(v);
  }
  VEIL_RETURN_IF_ERROR(o.Finish());
  return r;
}

Json ToJson(const QueryCost& c) {
  return {{"queryUnits", c.query_units},
          {"rowsScanned", c.rows_scanned},
          {"rowsReturned", c.rows_returned},
          {"bytesReturned", c.bytes_returned}};
}

Result<QueryCost> QueryCostFromJson(const Json& j) {
  Obj o(j, "cost");
  QueryCost c;
  o.U64("queryUnits", &c.query_units);
  o.U64("rowsScanned", &c.rows_scanned);
  o.U64("rowsReturned", &c.rows_returned);
  o.U64("bytesReturned", &c.bytes_returned);
  VEIL_RETURN_IF_ERROR(o.Finish());
  return c;
}

Json ToJson(const QueryPage& page, const Projection& projection) {
  Json entities = Json::array();
  for (const auto& e : page.entities) entities.push_back(ToJson(e, projection));
  Json j = {{"entities", std::move(entities)}, {"block", page.block}, {"cost", ToJson(page.cost)}};
  if (!page.cursor.empty()) j["cursor"] = page.cursor;
  return j;
}

namespace {

// Writers of JSON text in nlohmann's compact form (docs/notes/veil-ledger.md).
class TextWriter {
 public:
  explicit TextWriter(std::string* out) : out_(*out) {}

  void Raw(std::string_view s) { out_.append(s); }
  void Char(char c) { out_.push_back(c); }
  // `"name":`
  void Key(std::string_view name) {
    out_.push_back('"');
    out_.append(name);
    out_.append("\":");
  }
  void U64(std::uint64_t v) {
    char buf[20];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
  void Hex(ByteView b) {
    out_.append("\"0x");
    AppendHexVartime(b, &out_);
    out_.push_back('"');
  }
  // Printable ASCII other than '"' and '\\' is written as it is; a string with anything else
  // (escapes, UTF-8, bytes to replace) goes through nlohmann's own escaping.
  void String(std::string_view s) {
    const bool plain = std::all_of(s.begin(), s.end(), [](char ch) {
      const auto c = static_cast<unsigned char>(ch);
      return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
    });
    if (!plain) {
      out_.append(Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace));
      return;
    }
    out_.push_back('"');
    out_.append(s);
    out_.push_back('"');
  }

 private:
  std::string& out_;
};

// Members in the order nlohmann's std::map keeps them (bytewise), as ToJson(Entity) names them.
void WriteEntity(TextWriter& w, const Entity& e, const Projection& p) {
  w.Char('{');
  bool first = true;
  auto key = [&](std::string_view name) {
    if (!first) w.Char(',');
    first = false;
    w.Key(name);
  };
  if (p.attributes) {
    key("attributes");
    w.Char('[');
    for (std::size_t i = 0; i < e.attributes.size(); ++i) {
      const Attribute& a = e.attributes[i];
      if (i != 0) w.Char(',');
      w.Raw("{\"name\":");
      w.String(a.name);
      if (a.type() == AttrType::kNumeric) {
        w.Raw(",\"type\":\"u64\",\"value\":");
        w.U64(std::get<std::uint64_t>(a.value));
      } else {
        w.Raw(",\"type\":\"str\",\"value\":");
        w.String(std::get<std::string>(a.value));
      }
      w.Char('}');
    }
    w.Char(']');
  }
  if (p.content_type) {
    key("contentType");
    w.String(e.content_type);
  }
  if (p.blocks) {
    key("createdAt");
    w.U64(e.created_block);
  }
  if (p.flags) {
    key("creationFlags");
    w.U64(e.flags);
  }
  if (p.creator) {
    key("creator");
    w.Hex(e.creator);
  }
  if (p.blocks) {
    key("expiresAt");
    w.U64(e.expires_block);
  }
  if (p.key) {
    key("key");
    w.Hex(e.key);
  }
  if (p.owner) {
    key("owner");
    w.Hex(e.owner);
  }
  if (p.payload) {
    key("payload");
    w.Hex(e.payload);
  }
  if (p.blocks) {
    key("updatedAt");
    w.U64(e.updated_block);
  }
  w.Char('}');
}

}  // namespace

std::string ToJsonText(const QueryPage& page, const Projection& projection) {
  std::string out;
  AppendJsonText(page, projection, &out);
  return out;
}

void AppendJsonText(const QueryPage& page, const Projection& projection, std::string* out) {
  // Room for the whole page at once: hex doubles the bytes, and each entity's member names,
  // quotes and each attribute's name/type/value members add fewer than 200 + 48 a piece.
  std::size_t estimate = out->size() + 256 + page.cursor.size() * 6;
  for (const auto& e : page.entities) {
    estimate += 2 * ReturnedBytes(e) + 200 + 48 * e.attributes.size();
  }
  out->reserve(estimate);
  TextWriter w(out);
  w.Raw("{\"block\":");
  w.U64(page.block);
  w.Raw(",\"cost\":{\"bytesReturned\":");
  w.U64(page.cost.bytes_returned);
  w.Raw(",\"queryUnits\":");
  w.U64(page.cost.query_units);
  w.Raw(",\"rowsReturned\":");
  w.U64(page.cost.rows_returned);
  w.Raw(",\"rowsScanned\":");
  w.U64(page.cost.rows_scanned);
  w.Char('}');
  if (!page.cursor.empty()) {
    w.Raw(",\"cursor\":");
    w.String(page.cursor);
  }
  w.Raw(",\"entities\":[");
  for (std::size_t i = 0; i < page.entities.size(); ++i) {
    if (i != 0) w.Char(',');
    WriteEntity(w, page.entities[i], projection);
  }
  w.Raw("]}");
}

Result<QueryPage> QueryPageFromJson(const Json& j, const Projection& projection) {
  Obj o(j, "page");
  QueryPage p;
  o.Array("entities", [&](const Json& v, std::size_t) -> Status {
    VEIL_ASSIGN_OR_RETURN(auto e, EntityFromJson(v, projection));
    p.entities.push_back(std::move(e));
    return Status::Ok();
  });
  o.U64("block", &p.block);
  o.Nested("cost", [&](const Json& v) -> Status {
    VEIL_ASSIGN_OR_RETURN(p.cost, QueryCostFromJson(v));
    return Status::Ok();
  });
  if (o.Str("cursor", &p.cursor, false) && p.cursor.empty()) o.Fail("cursor", "a cursor");
  VEIL_RETURN_IF_ERROR(o.Finish());
  return p;
}

namespace {

namespace sj = simdjson::ondemand;

// The page reader without a DOM (ReadPageWithoutDom): simdjson's On-Demand API walks the text
// once, straight into a QueryPage, for the shape ToJsonText writes. Anything this shape does not
// expect (a wrong type, an unknown or repeated member, attribute members out of name/type/value
// order, a member the projection leaves out or a missing one, text after the page, a string
// that does not come out as UTF-8) declines the page, and the caller reads the text through the
// DOM instead, whose decoder then decides. Each read returns false to decline.
class PageReader {
 public:
  PageReader(const Projection& p, QueryPage* page) : page_(*page) {
    const std::pair<bool, unsigned> columns[] = {{p.attributes, kAttributes},
                                                 {p.content_type, kContentType},
                                                 {p.blocks, kCreatedAt},
                                                 {p.flags, kCreationFlags},
                                                 {p.creator, kCreator},
                                                 {p.blocks, kExpiresAt},
                                                 {p.key, kKey},
                                                 {p.owner, kOwner},
                                                 {p.payload, kPayload},
                                                 {p.blocks, kUpdatedAt}};
    for (const auto& [on, member] : columns) {
      if (on) entity_members_ |= 1u << member;
    }
  }

  bool Page(sj::document& doc) {
    sj::object page;
    if (doc.get_object().get(page) != simdjson::SUCCESS) return false;
    unsigned seen = 0;
    for (auto f : page) {
      sj::field field;
      unsigned member = 0;
      if (!Key(std::move(f), {"block", "cost", "cursor", "entities"}, ~0u, &seen, &field,
               &member)) {
        return false;
      }
      sj::value& v = field.value();
      bool ok = false;
      switch (member) {
        case kBlock:
          ok = v.get_uint64().get(page_.block) == simdjson::SUCCESS;
          break;
        case kCost:
          ok = Cost(v);
          break;
        case kCursor:
          ok = Text(v, &page_.cursor) && !page_.cursor.empty();
          break;
        default:
          ok = Entities(v);
          break;
      }
      if (!ok) return false;
    }
    const unsigned required = (1u << kBlock) | (1u << kCost) | (1u << kEntities);
    // Nothing may follow the page: current_location fails only past the end of the text.
    return (seen & required) == required && doc.current_location().error() != simdjson::SUCCESS;
  }

 private:
  // Member numbers: the page's, the entity's (bytewise order, as written), the attribute's.
  enum : unsigned { kBlock = 0, kCost = 1, kCursor = 2, kEntities = 3 };
  enum : unsigned {
    kAttributes = 0,
    kContentType,
    kCreatedAt,
    kCreationFlags,
    kCreator,
    kExpiresAt,
    kKey,
    kOwner,
    kPayload,
    kUpdatedAt,
  };

  // The next field of an object: its key must be one of `names`, allowed by `allowed`, and not
  // seen before in this object.
  static bool Key(simdjson::simdjson_result<sj::field> next,
                  std::initializer_list<const char*> names, unsigned allowed, unsigned* seen,
                  sj::field* field, unsigned* member) {
    std::string_view k;
    if (std::move(next).get(*field) != simdjson::SUCCESS ||
        field->unescaped_key().get(k) != simdjson::SUCCESS) {
      return false;
    }
    unsigned i = 0;
    for (const char* name : names) {
      if (k == name) {
        const unsigned bit = 1u << i;
        if ((allowed & bit) == 0 || (*seen & bit) != 0) return false;
        *seen |= bit;
        *member = i;
        return true;
      }
      ++i;
    }
    return false;
  }

  // A string, unescaped; it must be UTF-8. simdjson has checked the text, so only an escape could
  // make it otherwise: a lone surrogate (\ud800-\udfff), which the DOM's parser refuses.
  // simdjson 3.0.1 refuses it too (older releases wrote it as ED A0-BF ..); the check stays for
  // a library that does not. Valid UTF-8 has no ED A0-BF, so only a string holding an ED byte is
  // checked again.
  static bool Text(sj::value& v, std::string* out) {
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) return false;
    if (s.find('\xED') != std::string_view::npos && !simdjson::validate_utf8(s.data(), s.size())) {
      return false;
    }
    out->assign(s);
    return true;
  }
  template <std::size_t N>
  static bool Fixed(sj::value& v, std::array<std::uint8_t, N>* out) {
    std::string_view s;
    return v.get_string().get(s) == simdjson::SUCCESS &&
           HexDecodeText(s, "entity", N, N, [out](std::size_t) { return out->data(); }).ok();
  }

  bool Cost(sj::value& v) {
    sj::object cost;
    if (v.get_object().get(cost) != simdjson::SUCCESS) return false;
    std::uint64_t* const fields[] = {&page_.cost.bytes_returned, &page_.cost.query_units,
                                     &page_.cost.rows_returned, &page_.cost.rows_scanned};
    unsigned seen = 0;
    for (auto f : cost) {
      sj::field field;
      unsigned member = 0;
      if (!Key(std::move(f), {"bytesReturned", "queryUnits", "rowsReturned", "rowsScanned"}, ~0u,
               &seen, &field, &member) ||
          field.value().get_uint64().get(*fields[member]) != simdjson::SUCCESS) {
        return false;
      }
    }
    return seen == 15;
  }

  bool Entities(sj::value& v) {
    sj::array entities;
    if (v.get_array().get(entities) != simdjson::SUCCESS) return false;
    for (auto element : entities) {
      sj::object object;
      if (element.get_object().get(object) != simdjson::SUCCESS) return false;
      Entity e;
      if (!ReadEntity(object, &e)) return false;
      page_.entities.push_back(std::move(e));
    }
    return true;
  }

  bool ReadEntity(sj::object& object, Entity* e) const {
    unsigned seen = 0;
    for (auto f : object) {
      sj::field field;
      unsigned member = 0;
      if (!Key(std::move(f),
               {"attributes", "contentType", "createdAt", "creationFlags", "creator", "expiresAt",
                "key", "owner", "payload", "updatedAt"},
               entity_members_, &seen, &field, &member)) {
        return false;
      }
      sj::value& v = field.value();
      bool ok = false;
      switch (member) {
        case kAttributes:
          ok = Attributes(v, &e->attributes);
          break;
        case kContentType:
          ok = Text(v, &e->content_type);
          break;
        case kCreatedAt:
          ok = v.get_uint64().get(e->created_block) == simdjson::SUCCESS;
          break;
        case kCreationFlags: {
          std::uint64_t flags = 0;
          ok = v.get_uint64().get(flags) == simdjson::SUCCESS &&
               (flags & ~std::uint64_t{kKnownFlags}) == 0;
          e->flags = static_cast<std::uint8_t>(flags);
          break;
        }
        case kCreator:
          ok = Fixed(v, &e->creator);
          break;
        case kExpiresAt:
          ok = v.get_uint64().get(e->expires_block) == simdjson::SUCCESS;
          break;
        case kKey:
          ok = Fixed(v, &e->key);
          break;
        case kOwner:
          ok = Fixed(v, &e->owner);
          break;
        case kPayload: {
          std::string_view s;
          ok = v.get_string().get(s) == simdjson::SUCCESS &&
               HexDecodeText(s, "payload", 0, kMaxPayload, [e](std::size_t n) {
                 e->payload.resize(n);
                 return e->payload.data();
               }).ok();
          break;
        }
        default:
          ok = v.get_uint64().get(e->updated_block) == simdjson::SUCCESS;
          break;
      }
      if (!ok) return false;
    }
    return seen == entity_members_;
  }

  // Attributes as ToJsonText writes them: {"name", "type", "value"} in that order (the type
  // decides how the value reads).
  static bool Attributes(sj::value& v, std::vector<Attribute>* out) {
    sj::array attributes;
    if (v.get_array().get(attributes) != simdjson::SUCCESS) return false;
    for (auto element : attributes) {
      sj::object object;
      if (element.get_object().get(object) != simdjson::SUCCESS) return false;
      static constexpr const char* kOrder[] = {"name", "type", "value"};
      std::size_t i = 0;
      std::string name, type;
      Attribute a;
      for (auto f : object) {
        sj::field field;
        std::string_view k;
        if (i == 3 || std::move(f).get(field) != simdjson::SUCCESS ||
            field.unescaped_key().get(k) != simdjson::SUCCESS || k != kOrder[i]) {
          return false;
        }
        sj::value& value = field.value();
        if (i == 0) {
          if (!Text(value, &name)) return false;
        } else if (i == 1) {
          if (!Text(value, &type) || (type != "u64" && type != "str")) return false;
        } else if (type == "u64") {
          std::uint64_t n = 0;
          if (value.get_uint64().get(n) != simdjson::SUCCESS) return false;
          a = Attribute::Num(std::move(name), n);
        } else {
          std::string s;
          if (!Text(value, &s)) return false;
          a = Attribute::Str(std::move(name), std::move(s));
        }
        ++i;
      }
      if (i != 3) return false;
      out->push_back(std::move(a));
    }
    return true;
  }

  QueryPage& page_;
  unsigned entity_members_ = 0;
};

}  // namespace

std::optional<QueryPage> ReadPageWithoutDom(std::string_view text, const Projection& projection) {
  // simdjson reads up to SIMDJSON_PADDING bytes past the text: the text goes into a buffer with
  // that room. The parser and the buffer are kept per thread and reused (a page of 200 is about
  // 260 KB); past 4 MiB they are let go after the read.
  thread_local sj::parser parser;
  thread_local std::string buffer;
  buffer.assign(text);
  buffer.append(simdjson::SIMDJSON_PADDING, ' ');  // the padding, written (so never uninitialised)
  buffer.resize(text.size());
  std::optional<QueryPage> out;
  {
    sj::document doc;
    QueryPage page;
    if (parser.iterate(
                  simdjson::padded_string_view(buffer.data(), buffer.size(), buffer.capacity()))
                .get(doc) == simdjson::SUCCESS &&
        PageReader(projection, &page).Page(doc)) {
      out = std::move(page);
    }
  }
  constexpr std::size_t kKeep = std::size_t{4} << 20;
  if (buffer.capacity() > kKeep) std::string().swap(buffer);
  if (parser.capacity() > kKeep) parser = sj::parser();
  return out;
}

Result<QueryPage> QueryPageFromJsonText(std::string_view text, const Projection& projection) {
  if (auto page = ReadPageWithoutDom(text, projection)) return *std::move(page);
  const Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument("page: not valid JSON");
  return QueryPageFromJson(j, projection);
}

Json ToJson(const CountResult& c) {
  return {{"count", c.count}, {"capped", c.capped}, {"block", c.block}, {"cost", ToJson(c.cost)}};
}

Result<CountResult> CountResultFromJson(const Json& j) {
  Obj o(j, "count");
  CountResult c;
  o.U64("count", &c.count);
  o.Bool("capped", &c.capped);
  o.U64("block", &c.block);
  o.Nested("cost", [&](const Json& v) -> Status {
    VEIL_ASSIGN_OR_RETURN(c.cost, QueryCostFromJson(v));
    return Status::Ok();
  });
  VEIL_RETURN_IF_ERROR(o.Finish());
  return c;
}

namespace {
void ReadHeader(Obj& o, BlockHeader* h) {
  o.U64("chainId", &h->chain_id);
  o.U64("number", &h->number);
  o.Fixed("parent", &h->parent);
  o.U64("timestampMs", &h->timestamp_ms);
  o.Fixed("txRoot", &h->tx_root);
  o.Fixed("changeset", &h->changeset);
  o.U32("txCount", &h->tx_count);
  o.U32("changeCount", &h->change_count);
  o.U64("gasUsed", &h->gas_used);
  o.Fixed("hash", &h->hash);
}
}  // namespace

Json ToJson(const BlockHeader& h) {
  return {{"chainId", h.chain_id},      {"number", h.number},
          {"parent", HexOf(h.parent)},  {"timestampMs", h.timestamp_ms},
          {"txRoot", HexOf(h.tx_root)}, {"changeset", HexOf(h.changeset)},
          {"txCount", h.tx_count},      {"changeCount", h.change_count},
          {"gasUsed", h.gas_used},      {"hash", HexOf(h.hash)}};
}

Result<BlockHeader> BlockHeaderFromJson(const Json& j) {
  Obj o(j, "block");
  BlockHeader h;
  ReadHeader(o, &h);
  VEIL_RETURN_IF_ERROR(o.Finish());
  return h;
}

Json ToJson(const BlockInfo& b) {
  Json j = ToJson(b.header);
  Json txs = Json::array();
  for (const auto& t : b.tx_hashes) txs.push_back(HexOf(t));
  j["transactions"] = std::move(txs);
  return j;
}

Result<BlockInfo> BlockInfoFromJson(const Json& j) {
  Obj o(j, "block");
  BlockInfo b;
  ReadHeader(o, &b.header);
  o.Array("transactions", [&](const Json& v, std::size_t) -> Status {
    VEIL_ASSIGN_OR_RETURN(auto h, HashFromJson(v, "block.transactions"));
    b.tx_hashes.push_back(h);
    return Status::Ok();
  });
  VEIL_RETURN_IF_ERROR(o.Finish());
  return b;
}

Json ToJson(const Account& a) {
  return {{"address", HexOf(a.address)}, {"txNonce", a.tx_nonce}, {"createNonce", a.create_nonce}};
}

Result<Account> AccountFromJson(const Json& j) {
  Obj o(j, "account");
  Account a;
  o.Fixed("address", &a.address);
  o.U64("txNonce", &a.tx_nonce);
  o.U64("createNonce", &a.create_nonce);
  VEIL_RETURN_IF_ERROR(o.Finish());
  return a;
}

namespace {

// The members of Limits and its parts, each an unsigned integer: f(json name, member) for each
// of `s` (const or not), so that one list serves the encoder and the decoder.
template <class S>
concept LimitsPart = std::is_same_v<std::remove_const_t<S>, GasSchedule> ||
    std::is_same_v<std::remove_const_t<S>, QueryLimits> ||
    std::is_same_v<std::remove_const_t<S>, QueueLimits> ||
    std::is_same_v<std::remove_const_t<S>, Limits>;

template <LimitsPart S, class F>
void Members(S& s, F&& f) {
  using T = std::remove_const_t<S>;
  if constexpr (std::is_same_v<T, GasSchedule>) {
    f("txBase", s.tx_base);
    f("calldataZeroByte", s.calldata_zero_byte);
    f("calldataNonzeroByte", s.calldata_nonzero_byte);
    f("opCreate", s.op_create);
    f("opUpdate", s.op_update);
    f("opExtend", s.op_extend);
    f("opTransfer", s.op_transfer);
    f("opDelete", s.op_delete);
    f("storedByte", s.stored_byte);
    f("blockGasLimit", s.block_gas_limit);
  } else if constexpr (std::is_same_v<T, QueryLimits>) {
    f("maxQueryBytes", s.max_query_bytes);
    f("maxDepth", s.max_depth);
    f("maxPredicates", s.max_predicates);
    f("maxInValues", s.max_in_values);
    f("maxPage", s.max_page);
    f("countCap", s.count_cap);
    f("cursorLifetimeBlocks", s.cursor_lifetime_blocks);
    f("maxReadSteps", s.max_read_steps);
    f("maxReadMs", s.max_read_ms);
  } else if constexpr (std::is_same_v<T, QueueLimits>) {
    f("maxBytes", s.max_bytes);
    f("maxSenderBytes", s.max_sender_bytes);
  } else {
    // Limits' own; its parts are nested objects.
    f("maxPayloadBytes", s.max_payload_bytes);
    f("maxCreateAttributes", s.max_create_attributes);
    f("maxEntityAttributes", s.max_entity_attributes);
    f("maxAttributeName", s.max_attribute_name);
    f("maxStringValue", s.max_string_value);
    f("maxContentType", s.max_content_type);
    f("maxOpsPerTx", s.max_ops_per_tx);
    f("maxLifetimeBlocks", s.max_lifetime_blocks);
  }
}

template <LimitsPart S>
Json Write(const S& s) {
  Json j = Json::object();
  Members(s, [&j](const char* name, const auto& v) { j[name] = v; });
  return j;
}

// Reads the members into `o`'s *out (each required; Finish refuses any other).
template <LimitsPart S>
void ReadMembers(Obj& o, S* out) {
  Members(*out, [&o](const char* name, auto& v) { o.Uint(name, &v); });
}

template <LimitsPart S>
Status Read(const Json& j, const std::string& what, S* out) {
  Obj o(j, what);
  ReadMembers(o, out);
  return o.Finish();
}

Result<Limits> LimitsFromJson(const Json& j, const std::string& what) {
  Obj o(j, what);
  Limits l;
  ReadMembers(o, &l);
  o.Nested("gas", [&](const Json& v) { return Read(v, what + ".gas", &l.gas); });
  o.Nested("query", [&](const Json& v) { return Read(v, what + ".query", &l.query); });
  o.Nested("queue", [&](const Json& v) { return Read(v, what + ".queue", &l.queue); });
  VEIL_RETURN_IF_ERROR(o.Finish());
  return l;
}

}  // namespace

Json ToJson(const Limits& l) {
  Json j = Write(l);
  j["gas"] = Write(l.gas);
  j["query"] = Write(l.query);
  j["queue"] = Write(l.queue);
  return j;
}

Result<Limits> LimitsFromJson(const Json& j) { return LimitsFromJson(j, "limits"); }

Json ToJson(const ChainInfo& c) {
  return {{"chainId", c.chain_id},
          {"limits", ToJson(c.limits)},
          {"blockTimeMs", c.block_time_ms},
          {"nominalBlockTimeMs", c.nominal_block_time_ms},
          {"headNumber", c.head_number},
          {"headTimestampMs", c.head_timestamp_ms},
          {"expiryClockMs", c.expiry_clock_ms},
          {"headExpiryHeight", c.head_expiry_height}};
}

Result<ChainInfo> ChainInfoFromJson(const Json& j) {
  Obj o(j, "chainInfo");
  ChainInfo c;
  o.U64("chainId", &c.chain_id);
  o.Nested("limits", [&](const Json& v) -> Status {
    VEIL_ASSIGN_OR_RETURN(c.limits, LimitsFromJson(v, "chainInfo.limits"));
    return Status::Ok();
  });
  o.U64("blockTimeMs", &c.block_time_ms);
  o.U64("nominalBlockTimeMs", &c.nominal_block_time_ms);
  o.U64("headNumber", &c.head_number);
  o.U64("headTimestampMs", &c.head_timestamp_ms);
  o.U64("expiryClockMs", &c.expiry_clock_ms);
  o.U64("headExpiryHeight", &c.head_expiry_height);
  VEIL_RETURN_IF_ERROR(o.Finish());
  return c;
}

}  // namespace veil::ledger::json
