// The guardian wire protocol (protocol.h; docs/notes/guardian.md).
#include "veil/guardian/protocol.h"

#include <set>
#include <utility>

#include "json_util.h"
#include "veil/base/encoding.h"
#include "veil/net/error_map.h"

namespace veil::guardian {
namespace {

using nlohmann::json;
using namespace json_util;

Result<OwnerKey> DecodeOwner(const json& v) {
  VEIL_RETURN_IF_ERROR(CheckMembers(v, "\"owner\"", {"alg", "key"}));
  VEIL_ASSIGN_OR_RETURN(std::string alg_name, GetString(v, "alg"));
  VEIL_ASSIGN_OR_RETURN(OwnerAlg alg, OwnerAlgFromName(alg_name));
  const std::size_t n = OwnerKeySize(alg);
  VEIL_ASSIGN_OR_RETURN(Bytes key, GetBase64(v, "key", n, n));
  auto owner = OwnerKey::Create(alg, key);
  if (!owner.ok()) return InvalidArgument("\"owner\" key is malformed");
  return std::move(*owner);
}

Status DecodeItem(Route route, const json& v, const GuardianLimits& limits, Request& req) {
  switch (route) {
    case Route::kPut: {
      VEIL_RETURN_IF_ERROR(
          CheckMembers(v, "item", {"id", "kind", "expires_at", "sealed", "commitment"}));
      PutItem item;
      VEIL_RETURN_IF_ERROR(GetHex(v, "id", item.id));
      VEIL_ASSIGN_OR_RETURN(std::string kind, GetString(v, "kind"));
      VEIL_ASSIGN_OR_RETURN(item.kind, ShareKindFromName(kind));
      VEIL_ASSIGN_OR_RETURN(item.expires_at, GetInt(v, "expires_at", 0, kMaxTimestamp));
      VEIL_ASSIGN_OR_RETURN(item.sealed, GetBase64(v, "sealed", kSealedOverhead + 1,
                                                   kSealedOverhead + kMaxShareSize));
      VEIL_RETURN_IF_ERROR(GetHex(v, "commitment", item.commitment));
      req.puts.push_back(std::move(item));
      return Status::Ok();
    }
    case Route::kGet:
    case Route::kDestroy: {
      VEIL_RETURN_IF_ERROR(CheckMembers(v, "item", {"id"}));
      ShareId id{};
      VEIL_RETURN_IF_ERROR(GetHex(v, "id", id));
      req.ids.push_back(id);
      return Status::Ok();
    }
    case Route::kExtend: {
      VEIL_RETURN_IF_ERROR(CheckMembers(v, "item", {"id", "expires_at"}));
      ExtendItem item;
      VEIL_RETURN_IF_ERROR(GetHex(v, "id", item.id));
      VEIL_ASSIGN_OR_RETURN(item.expires_at, GetInt(v, "expires_at", 0, kMaxTimestamp));
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
  if (route == Route::kGet) {
    VEIL_RETURN_IF_ERROR(CheckMembers(
        v, "request", {"owner", "guardian", "timestamp", "nonce", "items", "reply_key"}));
  } else {
    VEIL_RETURN_IF_ERROR(
        CheckMembers(v, "request", {"owner", "guardian", "timestamp", "nonce", "items"}));
  }
  Request req;
  req.route = route;
  VEIL_ASSIGN_OR_RETURN(req.owner, DecodeOwner(v.at("owner")));
  VEIL_RETURN_IF_ERROR(GetHex(v, "guardian", req.guardian));
  VEIL_ASSIGN_OR_RETURN(req.timestamp, GetInt(v, "timestamp", 0, kMaxTimestamp));
  VEIL_RETURN_IF_ERROR(GetHex(v, "nonce", req.nonce));
  if (route == Route::kGet) {
    VEIL_ASSIGN_OR_RETURN(req.reply_key, GetBase64(v, "reply_key", crypto::kXWingPublicKeySize,
                                                   crypto::kXWingPublicKeySize));
  }
  const json& items = v.at("items");
  if (!items.is_array()) return InvalidArgument("\"items\" must be an array");
  if (items.empty()) return InvalidArgument("\"items\" is empty");
  if (items.size() > limits.max_items) return ResourceExhausted("too many items");
  std::set<ShareId> seen;
  for (const json& item : items) {
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
  VEIL_RETURN_IF_ERROR(CheckMembers(v, "response", {"items"}));
  const json& items = v.at("items");
  if (!items.is_array() || items.size() != expected_items) {
    return InvalidArgument("response has the wrong number of items");
  }
  Response out;
  for (const json& j : items) {
    ItemResult it;
    if (j.is_object() && j.contains("error")) {
      VEIL_RETURN_IF_ERROR(CheckMembers(j, "item", {"id", "error"}));
      VEIL_RETURN_IF_ERROR(GetHex(j, "id", it.id));
      const json& e = j.at("error");
      VEIL_RETURN_IF_ERROR(CheckMembers(e, "error", {"code", "message"}));
      VEIL_ASSIGN_OR_RETURN(std::string code_name, GetString(e, "code"));
      VEIL_ASSIGN_OR_RETURN(std::string message, GetString(e, "message"));
      VEIL_ASSIGN_OR_RETURN(Code code, CodeFromName(code_name));
      if (code == Code::kOk) return InvalidArgument("item error without a code");
      it.status = code == Code::kVerificationFailed ? VerificationFailed()
                                                    : Status(code, std::move(message));
      out.items.push_back(std::move(it));
      continue;
    }
    switch (route) {
      case Route::kPut: {
        VEIL_RETURN_IF_ERROR(CheckMembers(j, "item", {"id", "ok", "stored", "expires_at"}));
        VEIL_ASSIGN_OR_RETURN(it.changed, GetBool(j, "stored"));
        VEIL_ASSIGN_OR_RETURN(it.expires_at, GetInt(j, "expires_at", 0, kMaxTimestamp));
        break;
      }
      case Route::kGet: {
        VEIL_RETURN_IF_ERROR(CheckMembers(j, "item", {"id", "ok", "kind", "expires_at", "sealed"}));
        VEIL_ASSIGN_OR_RETURN(std::string kind, GetString(j, "kind"));
        VEIL_ASSIGN_OR_RETURN(it.kind, ShareKindFromName(kind));
        VEIL_ASSIGN_OR_RETURN(it.expires_at, GetInt(j, "expires_at", 0, kMaxTimestamp));
        VEIL_ASSIGN_OR_RETURN(it.sealed, GetBase64(j, "sealed", kSealedOverhead + 1,
                                                   kSealedOverhead + kMaxShareSize));
        break;
      }
      case Route::kExtend: {
        VEIL_RETURN_IF_ERROR(CheckMembers(j, "item", {"id", "ok", "extended", "expires_at"}));
        VEIL_ASSIGN_OR_RETURN(it.changed, GetBool(j, "extended"));
        VEIL_ASSIGN_OR_RETURN(it.expires_at, GetInt(j, "expires_at", 0, kMaxTimestamp));
        break;
      }
      case Route::kDestroy: {
        VEIL_RETURN_IF_ERROR(CheckMembers(j, "item", {"id", "ok", "receipt"}));
        VEIL_ASSIGN_OR_RETURN(auto receipt, DestroyReceiptFromJson(j.at("receipt")));
        it.receipt = receipt;
        break;
      }
    }
    VEIL_RETURN_IF_ERROR(GetHex(j, "id", it.id));
    VEIL_ASSIGN_OR_RETURN(bool ok, GetBool(j, "ok"));
    if (!ok) return InvalidArgument("\"ok\" must be true");
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
  VEIL_RETURN_IF_ERROR(CheckMembers(v, "identity", {"fingerprint", "identity", "suite"}));
  Fingerprint fp{};
  VEIL_RETURN_IF_ERROR(GetHex(v, "fingerprint", fp));
  VEIL_ASSIGN_OR_RETURN(Bytes enc, GetBase64(v, "identity", 1, 8192));
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
