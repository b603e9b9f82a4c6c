// The guardian wire protocol (protocol.h; docs/notes/guardian.md).
#include "veil/guardian/protocol.h"

#include <set>
#include <utility>

#include "json_util.h"
#include "veil/base/encoding.h"
#include "veil/base/json_object.h"
#include "veil/net/error_map.h"

namespace veil::guardian {
namespace {

using nlohmann::json;
using namespace json_util;

Result<OwnerKey> DecodeOwner(const json& v) {
  JsonObjectReader o(v, "request.owner");
  std::string alg_name;
  std::optional<OwnerAlg> alg;
  Bytes key;
  if (o.Str("alg", &alg_name)) {
    auto named = OwnerAlgFromName(alg_name);
    if (named.ok()) {
      alg = *named;
      o.Base64("key", OwnerKeySize(*alg), OwnerKeySize(*alg), &key);
    } else {
      o.Set(named.status());
    }
  }
  VEIL_RETURN_IF_ERROR(o.Finish());
  auto owner = OwnerKey::Create(*alg, key);
  if (!owner.ok()) return InvalidArgument("\"owner\" key is malformed");
  return std::move(*owner);
}

Status DecodeItem(Route route, const json& v, const GuardianLimits& limits, Request& req) {
  JsonObjectReader o(v, "item");
  switch (route) {
    case Route::kPut: {
      PutItem item;
      std::string kind;
      o.LowerHex("id", item.id);
      o.Str("kind", &kind);
      o.I64("expires_at", 0, kMaxTimestamp, &item.expires_at);
      o.Base64("sealed", kSealedOverhead + 1, kSealedOverhead + kMaxShareSize, &item.sealed);
      o.LowerHex("commitment", item.commitment);
      VEIL_RETURN_IF_ERROR(o.Finish());
      VEIL_ASSIGN_OR_RETURN(item.kind, ShareKindFromName(kind));
      req.puts.push_back(std::move(item));
      return Status::Ok();
    }
    case Route::kGet:
    case Route::kDestroy: {
      ShareId id{};
      o.LowerHex("id", id);
      VEIL_RETURN_IF_ERROR(o.Finish());
      req.ids.push_back(id);
      return Status::Ok();
    }
    case Route::kExtend: {
      ExtendItem item;
      o.LowerHex("id", item.id);
      o.I64("expires_at", 0, kMaxTimestamp, &item.expires_at);
      VEIL_RETURN_IF_ERROR(o.Finish());
      req.extends.push_back(item);
      return Status::Ok();
    }
  }
  (void)limits;
  return InvalidArgument("unknown route");
}

json ErrorJson(const Status& s) {
  return json{{"code", std::string(CodeName(s.code()))}, {"message", s.message()}};
}

}  // namespace

std::string_view RoutePath(Route route) {
  switch (route) {
    case Route::kPut:
      return "/v1/put";
    case Route::kGet:
      return "/v1/get";
    case Route::kExtend:
      return "/v1/extend";
    case Route::kDestroy:
      return "/v1/destroy";
  }
  return "";
}

std::string_view RouteName(Route route) { return RoutePath(route).substr(4); }

std::optional<Route> RouteFromPath(std::string_view path) {
  for (Route r : kAllRoutes) {
    if (RoutePath(r) == path) return r;
  }
  return std::nullopt;
}

std::size_t Request::item_count() const {
  switch (route) {
    case Route::kPut:
      return puts.size();
    case Route::kExtend:
      return extends.size();
    case Route::kGet:
    case Route::kDestroy:
      return ids.size();
  }
  return 0;
}

ShareId Request::item_id(std::size_t i) const {
  switch (route) {
    case Route::kPut:
      return puts.at(i).id;
    case Route::kExtend:
      return extends.at(i).id;
    case Route::kGet:
    case Route::kDestroy:
      return ids.at(i);
  }
  return {};
}

Result<Request> DecodeRequest(Route route, std::string_view body, const GuardianLimits& limits) {
  if (body.size() > limits.max_body_bytes) return ResourceExhausted("request body too large");
  VEIL_ASSIGN_OR_RETURN(json v, ParseStrictJson(body));
  JsonObjectReader o(v, "request");
  Request req;
  req.route = route;
  o.Nested("owner", [&](const json& owner) -> Status {
    VEIL_ASSIGN_OR_RETURN(req.owner, DecodeOwner(owner));
    return Status::Ok();
  });
  o.LowerHex("guardian", req.guardian);
  o.I64("timestamp", 0, kMaxTimestamp, &req.timestamp);
  o.LowerHex("nonce", req.nonce);
  if (route == Route::kGet) {
    o.Base64("reply_key", crypto::kXWingPublicKeySize, crypto::kXWingPublicKeySize, &req.reply_key);
  }
  const json* items = o.Field("items", true);
  // Every other member is checked before the items are read.
  VEIL_RETURN_IF_ERROR(o.Finish());
  if (!items->is_array()) return InvalidArgument("request.items: expected an array");
  if (items->empty()) return InvalidArgument("request.items: is empty");
  if (items->size() > limits.max_items) return ResourceExhausted("too many items");
  std::set<ShareId> seen;
  for (const json& item : *items) {
    VEIL_RETURN_IF_ERROR(DecodeItem(route, item, limits, req));
    if (!seen.insert(req.item_id(req.item_count() - 1)).second) {
      return InvalidArgument("an id appears twice in one request");
    }
  }
  return req;
}

std::string EncodeRequest(const Request& r) {
  json v{{"owner", json{{"alg", std::string(OwnerAlgName(r.owner.alg()))},
                        {"key", Base64Encode(r.owner.key())}}},
         {"guardian", HexEncode(r.guardian)},
         {"timestamp", r.timestamp},
         {"nonce", HexEncode(r.nonce)}};
  json items = json::array();
  switch (r.route) {
    case Route::kPut:
      for (const auto& p : r.puts) {
        items.push_back(json{{"id", HexEncode(p.id)},
                             {"kind", std::string(ShareKindName(p.kind))},
                             {"expires_at", p.expires_at},
                             {"sealed", Base64Encode(p.sealed)},
                             {"commitment", HexEncode(p.commitment)}});
      }
      break;
    case Route::kGet:
    case Route::kDestroy:
      for (const auto& id : r.ids) items.push_back(json{{"id", HexEncode(id)}});
      break;
    case Route::kExtend:
      for (const auto& e : r.extends) {
        items.push_back(json{{"id", HexEncode(e.id)}, {"expires_at", e.expires_at}});
      }
      break;
  }
  v["items"] = std::move(items);
  if (r.route == Route::kGet) v["reply_key"] = Base64Encode(r.reply_key);
  return Dump(v);
}

Result<Bytes> DecodeSignatureHeader(std::string_view header) {
  const std::size_t a = OwnerSignatureSize(OwnerAlg::kEd25519);
  const std::size_t b = OwnerSignatureSize(OwnerAlg::kComposite);
  if (header.size() != 4 * ((a + 2) / 3) && header.size() != 4 * ((b + 2) / 3)) {
    return InvalidArgument("Veil-Signature has the wrong length");
  }
  auto sig = Base64Decode(header);
  if (!sig.ok() || (sig->size() != a && sig->size() != b)) {
    return InvalidArgument("Veil-Signature must be canonical base64");
  }
  return std::move(*sig);
}

Result<Bytes> DecodeSignatureQuery(std::string_view target) {
  const std::size_t q = target.find('?');
  if (q == std::string_view::npos) return Bytes{};
  const std::string_view query = target.substr(q + 1);
  const std::string prefix = std::string(kSignatureQueryName) + "=";
  if (query.substr(0, prefix.size()) != prefix) {
    return InvalidArgument("the only query parameter allowed is veil-signature");
  }
  const std::string_view value = query.substr(prefix.size());
  const std::size_t a = OwnerSignatureSize(OwnerAlg::kEd25519);
  const std::size_t b = OwnerSignatureSize(OwnerAlg::kComposite);
  auto unpadded = [](std::size_t n) { return (4 * n + 2) / 3; };
  if (value.size() != unpadded(a) && value.size() != unpadded(b)) {
    return InvalidArgument("veil-signature has the wrong length");
  }
  auto sig = Base64Decode(value, Base64Variant::kUrlSafeNoPadding);
  if (!sig.ok() || (sig->size() != a && sig->size() != b)) {
    return InvalidArgument("veil-signature must be canonical unpadded base64url");
  }
  return std::move(*sig);
}

std::string SignatureHeader(ByteView signature) { return Base64Encode(signature); }

std::string SignatureQuery(ByteView signature) {
  return std::string("?") + kSignatureQueryName + "=" +
         Base64Encode(signature, Base64Variant::kUrlSafeNoPadding);
}

Bytes SignedMessage(Route route, std::string_view body) {
  const std::uint8_t zero = 0;
  return Concat({AsBytes(kRequestDomain), ByteView(&zero, 1), AsBytes(RoutePath(route)),
                 ByteView(&zero, 1), AsBytes(body)});
}

Bytes ShareAad(const ShareId& id, const OwnerKey& owner) { return Concat({id, owner.key()}); }

Bytes ReplyAad(const ShareId& id, const Nonce& nonce) { return Concat({id, nonce}); }

std::string EncodeResponse(Route route, const Response& response) {
  json items = json::array();
  for (const auto& it : response.items) {
    json j{{"id", HexEncode(it.id)}};
    if (!it.status.ok()) {
      j["error"] = ErrorJson(it.status);
      items.push_back(std::move(j));
      continue;
    }
    j["ok"] = true;
    switch (route) {
      case Route::kPut:
        j["stored"] = it.changed;
        j["expires_at"] = it.expires_at;
        break;
      case Route::kGet:
        j["kind"] = std::string(ShareKindName(it.kind));
        j["expires_at"] = it.expires_at;
        j["sealed"] = Base64Encode(it.sealed);
        break;
      case Route::kExtend:
        j["extended"] = it.changed;
        j["expires_at"] = it.expires_at;
        break;
      case Route::kDestroy:
        VEIL_CHECK(it.receipt.has_value());
        j["receipt"] = DestroyReceiptToJson(*it.receipt);
        break;
    }
    items.push_back(std::move(j));
  }
  return Dump(json{{"items", std::move(items)}});
}

Result<Response> DecodeResponse(Route route, std::string_view body, std::size_t expected_items) {
  VEIL_ASSIGN_OR_RETURN(json v, ParseStrictJson(body));
  JsonObjectReader response(v, "response");
  const json* items = response.Field("items", true);
  VEIL_RETURN_IF_ERROR(response.Finish());
  if (!items->is_array() || items->size() != expected_items) {
    return InvalidArgument("response has the wrong number of items");
  }
  Response out;
  for (const json& j : *items) {
    ItemResult it;
    JsonObjectReader o(j, "item");
    if (j.is_object() && j.contains("error")) {
      std::string code_name, message;
      o.LowerHex("id", it.id);
      o.Nested("error", [&](const json& e) -> Status {
        JsonObjectReader error(e, "item.error");
        error.Str("code", &code_name);
        error.Str("message", &message);
        return error.Finish();
      });
      VEIL_RETURN_IF_ERROR(o.Finish());
      VEIL_ASSIGN_OR_RETURN(Code code, CodeFromName(code_name));
      if (code == Code::kOk) return InvalidArgument("item error without a code");
      it.status = code == Code::kVerificationFailed ? VerificationFailed()
                                                    : Status(code, std::move(message));
      out.items.push_back(std::move(it));
      continue;
    }
    bool ok = false;
    std::string kind;
    o.LowerHex("id", it.id);
    o.Bool("ok", &ok);
    switch (route) {
      case Route::kPut:
        o.Bool("stored", &it.changed);
        o.I64("expires_at", 0, kMaxTimestamp, &it.expires_at);
        break;
      case Route::kGet:
        o.Str("kind", &kind);
        o.I64("expires_at", 0, kMaxTimestamp, &it.expires_at);
        o.Base64("sealed", kSealedOverhead + 1, kSealedOverhead + kMaxShareSize, &it.sealed);
        break;
      case Route::kExtend:
        o.Bool("extended", &it.changed);
        o.I64("expires_at", 0, kMaxTimestamp, &it.expires_at);
        break;
      case Route::kDestroy:
        o.Nested("receipt", [&](const json& r) -> Status {
          VEIL_ASSIGN_OR_RETURN(auto receipt, DestroyReceiptFromJson(r));
          it.receipt = receipt;
          return Status::Ok();
        });
        break;
    }
    VEIL_RETURN_IF_ERROR(o.Finish());
    if (route == Route::kGet) {
      VEIL_ASSIGN_OR_RETURN(it.kind, ShareKindFromName(kind));
    }
    if (!ok) return InvalidArgument("item.ok: expected true");
    out.items.push_back(std::move(it));
  }
  return out;
}

std::string EncodeErrorBody(const Status& status) {
  return Dump(json{{"error", json{{"code", net::HttpStatusForCode(status.code())},
                                  {"status", std::string(CodeName(status.code()))},
                                  {"message", status.message()}}}});
}

Status DecodeErrorBody(int http_status, std::string_view body) {
  Code code = net::StatusCodeForHttp(http_status);
  std::string message = "guardian answered HTTP " + std::to_string(http_status);
  auto v = ParseStrictJson(body);
  if (v.ok() && v->is_object() && v->contains("error") && (*v)["error"].is_object()) {
    const json& e = (*v)["error"];
    if (e.contains("status") && e["status"].is_string()) {
      auto c = CodeFromName(e["status"].get<std::string>());
      if (c.ok() && *c != Code::kOk) code = *c;
    }
    if (e.contains("message") && e["message"].is_string()) {
      message = e["message"].get<std::string>();
    }
  }
  if (code == Code::kOk) code = Code::kInternal;
  if (code == Code::kVerificationFailed) return VerificationFailed();
  return Status(code, std::move(message));
}

std::string EncodeIdentityBody(const PublicIdentity& identity) {
  return Dump(json{{"fingerprint", identity.FingerprintHex()},
                   {"identity", Base64Encode(identity.Encode())},
                   {"suite", "x-wing/hkdf-sha256/aes-256-gcm"}});
}

Result<PublicIdentity> DecodeIdentityBody(std::string_view body) {
  VEIL_ASSIGN_OR_RETURN(json v, ParseStrictJson(body));
  JsonObjectReader o(v, "identity");
  Fingerprint fp{};
  Bytes enc;
  o.LowerHex("fingerprint", fp);
  o.Base64("identity", 1, 8192, &enc);
  o.Field("suite", true);  // informative: required, any value
  VEIL_RETURN_IF_ERROR(o.Finish());
  VEIL_ASSIGN_OR_RETURN(PublicIdentity id, PublicIdentity::Decode(enc));
  if (id.fingerprint() != fp) return InvalidArgument("identity does not match its fingerprint");
  return id;
}

Result<Code> CodeFromName(std::string_view name) {
  for (int c = 0; c <= static_cast<int>(Code::kInternal); ++c) {
    if (CodeName(static_cast<Code>(c)) == name) return static_cast<Code>(c);
  }
  return InvalidArgument("unknown error code");
}

}  // namespace veil::guardian
