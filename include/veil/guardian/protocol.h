// The guardian wire protocol: HTTP POST with JSON bodies, signed by the owner
// (docs/notes/guardian.md has the full description and examples for curl).
//
// Routes: POST /v1/put, /v1/get, /v1/extend, /v1/destroy; GET /v1/identity. A request body is
//   {"owner":{"alg":"ed25519"|"composite","key":BASE64},"guardian":FINGERPRINT_HEX,
//    "timestamp":UNIX_SECONDS,"nonce":HEX16,"items":[...]}            (get also: "reply_key")
// and the header `Veil-Signature: BASE64` carries the owner's signature over
//   "veil-guardian-request-v1" || 0x00 || path || 0x00 || body bytes
// (SignedMessage); the signature may instead travel as the query parameter veil-signature
// (DecodeSignatureQuery). Items per route:
//   put     {"id":HEX32,"kind":"record"|"collection","expires_at":N,"sealed":BASE64,
//            "commitment":HEX32}
//           sealed = enc || ciphertext of HPKE (X-Wing, HKDF-SHA256, AES-256-GCM, mode base) to the
//           guardian's KEM key, info kShareInfo, aad = id || owner key bytes (ShareAad)
//   get     {"id":HEX32}, plus the top-level "reply_key":BASE64 (a one-time X-Wing public key);
//           each share comes back sealed to it with info kReplyInfo and aad = id || nonce
//   extend  {"id":HEX32,"expires_at":N}
//   destroy {"id":HEX32}
// A response is {"items":[...]} with one entry per request item, in order:
//   {"id":HEX32,"ok":true, ...route fields...} or {"id":HEX32,"error":{"code":NAME,"message":S}}
// where NAME is base/status.h's CodeName ("not found", ...). A request-level failure answers
// the HTTP status of net/error_map.h and {"error":{"code":HTTP_STATUS,"status":NAME,"message":S}}.
//
// Decoding is strict: unknown or duplicate members, wrong types, wrong lengths, non-canonical
// (upper-case) hex, non-canonical base64, integers out of range, duplicate ids in one request and
// more than max_items items are all kInvalidArgument (too many items or too large a body:
// kResourceExhausted). The decoders are pure and fuzzed (fuzz/guardian_request_fuzz.cc).
//
// Thread safety: values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/hpke.h"
#include "veil/guardian/identity.h"
#include "veil/guardian/owner.h"
#include "veil/guardian/receipt.h"
#include "veil/guardian/types.h"

namespace veil::guardian {

inline constexpr std::string_view kRequestDomain = "veil-guardian-request-v1";
inline constexpr std::string_view kShareInfo = "veil-guardian share v1";
inline constexpr std::string_view kReplyInfo = "veil-guardian reply v1";
inline constexpr char kSignatureHeader[] = "Veil-Signature";
inline constexpr crypto::hpke::Suite kShareSuite{crypto::hpke::KemId::kXWing,
                                                 crypto::hpke::KdfId::kHkdfSha256,
                                                 crypto::hpke::AeadId::kAes256Gcm};
// enc || ciphertext of a sealed share: X-Wing's encapsulation, the share and the AEAD tag.
inline constexpr std::size_t kSealedOverhead = 1120 + 16;

// Every limit of the service in one place (docs/notes/guardian.md, "Limits", says what each
// protects). Rates are token buckets refilled continuously; a rate <= 0 and a quota of 0 disable
// that limit.
struct GuardianLimits {
  std::size_t max_body_bytes = 4 << 20;      // a full put batch is about 3 MiB
  std::size_t max_items = 1000;              // per request
  std::int64_t replay_window_seconds = 120;  // |timestamp - now| must not exceed it
  std::int64_t max_lease_seconds = std::int64_t{10} * 366 * 24 * 3600;  // expires_at - now
  // How long a destroyed share's tombstone lets a retried destroy get its receipt again.
  std::int64_t receipt_retention_seconds = 24 * 3600;
  // Requests per owner key (after the signature check).
  double rate_per_second = 50;
  double rate_burst = 100;
  // Requests per client address (before decoding; any request, valid or not).
  double address_rate_per_second = 100;
  double address_rate_burst = 200;
  // Items per client address (after the signature check: a request costs its item count).
  double address_items_per_second = 2000;
  double address_items_burst = 5000;  // raised to max_items when lower, so a full batch can pass
  // An IPv6 client is limited per prefix of this length (net::ClientAddressKey, net/http_server.h).
  int address_ipv6_prefix_bits = 64;
  // Keys each rate table holds before it evicts the least recently used one.
  std::size_t rate_table_max_keys = 100000;
  // Storage quotas: shares held (expired ones count until swept) and the bytes they hold
  // (id, owner key, commitment and at-rest blob: 1.2 KiB for a full share of an Ed25519 owner).
  std::uint64_t max_shares_per_owner = 100000;
  std::uint64_t max_bytes_per_owner = std::uint64_t{256} << 20;
  std::uint64_t max_shares_total = 10000000;
  std::uint64_t max_bytes_total = std::uint64_t{16} << 30;
};

enum class Route : std::uint8_t { kPut, kGet, kExtend, kDestroy };
inline constexpr Route kAllRoutes[] = {Route::kPut, Route::kGet, Route::kExtend, Route::kDestroy};
std::string_view RoutePath(Route route);  // "/v1/put", ...
std::string_view RouteName(Route route);  // "put", ...
std::optional<Route> RouteFromPath(std::string_view path);
inline constexpr char kIdentityPath[] = "/v1/identity";

struct PutItem {
  ShareId id{};
  ShareKind kind = ShareKind::kRecord;
  std::int64_t expires_at = 0;
  Bytes sealed;  // enc || ciphertext
  Commitment commitment{};
};

struct ExtendItem {
  ShareId id{};
  std::int64_t expires_at = 0;
};

struct Request {
  Route route = Route::kPut;
  OwnerKey owner;
  Fingerprint guardian{};
  std::int64_t timestamp = 0;
  Nonce nonce{};
  Bytes reply_key;                  // get only: a one-time X-Wing public key (1216 bytes)
  std::vector<PutItem> puts;        // put
  std::vector<ShareId> ids;         // get, destroy
  std::vector<ExtendItem> extends;  // extend

  std::size_t item_count() const;
  ShareId item_id(std::size_t i) const;
};

// Strict decoding of a request body for `route` (see above).
Result<Request> DecodeRequest(Route route, std::string_view body, const GuardianLimits& limits);
// The JSON body of a request (what a client sends and signs).
std::string EncodeRequest(const Request& request);
// The Veil-Signature header value: canonical base64 (standard, padded) of a signature of 64
// (Ed25519) or 3373 (composite) bytes. Whether the length fits the owner's algorithm is checked
// by the guardian once the body is decoded.
Result<Bytes> DecodeSignatureHeader(std::string_view header);
// The Veil-Signature header value for `signature` (what GuardianClient sends).
std::string SignatureHeader(ByteView signature);
// The same signature as the only query parameter of the request target,
// "PATH?veil-signature=BASE64URL" (URL-safe alphabet, no padding), for clients that cannot set
// request headers; the guardian accepts either form, never both. Returns an empty Bytes when the
// target has no query at all.
Result<Bytes> DecodeSignatureQuery(std::string_view target);
// "?veil-signature=..." for `signature`.
std::string SignatureQuery(ByteView signature);
inline constexpr char kSignatureQueryName[] = "veil-signature";
// "veil-guardian-request-v1" || 0x00 || path || 0x00 || body.
Bytes SignedMessage(Route route, std::string_view body);

// The HPKE aad of a deposited share, and of a returned one.
Bytes ShareAad(const ShareId& id, const OwnerKey& owner);
Bytes ReplyAad(const ShareId& id, const Nonce& nonce);

// One entry of a response. status.ok(): the fields of the route are set.
struct ItemResult {
  ShareId id{};
  Status status;
  // put: true if stored now, false if the same share was already held (idempotent repeat).
  // extend: true if the expiry moved later, false if it already was at least the one asked.
  bool changed = false;
  std::int64_t expires_at = 0;            // put, get, extend: the share's expiry after the request
  ShareKind kind = ShareKind::kRecord;    // get
  Bytes sealed;                           // get: enc || ciphertext sealed to reply_key
  std::optional<DestroyReceipt> receipt;  // destroy
};

struct Response {
  std::vector<ItemResult> items;
};

std::string EncodeResponse(Route route, const Response& response);
// Strict, for clients; `expected_items` is the request's item count.
Result<Response> DecodeResponse(Route route, std::string_view body, std::size_t expected_items);

// The body of a request-level error, and its inverse (for clients; the HTTP status is the
// fallback when the body names no code).
std::string EncodeErrorBody(const Status& status);
Status DecodeErrorBody(int http_status, std::string_view body);

// The JSON answer of GET /v1/identity:
//   {"fingerprint":HEX,"identity":BASE64 of
//   PublicIdentity::Encode(),"suite":"x-wing/hkdf-sha256/aes-256-gcm"}
std::string EncodeIdentityBody(const PublicIdentity& identity);
// Checks that the fingerprint matches the encoding.
Result<PublicIdentity> DecodeIdentityBody(std::string_view body);

// Code names as on the wire (base/status.h's CodeName), and back.
Result<Code> CodeFromName(std::string_view name);

}  // namespace veil::guardian
