// GuardianClient: the client side of the guardian protocol (protocol.h) over net::HttpClient.
//
// Connect fetches GET /v1/identity and refuses a guardian whose identity fingerprint is not the
// pinned one (kUnauthenticated), so every share is sealed to the key the caller trusts even when
// TLS is absent, broken or terminated elsewhere; TLS pinning of the certificate itself is
// HttpClientOptions::pinned_sha256, independent of this.
//
// Every call is one request (one round trip) for a whole batch. Retries: each attempt is signed
// afresh with a new nonce and timestamp (a resent body would be a replay), so the HTTP layer is
// told the call is not idempotent and never resends a body itself; this class retries when the
// transport failed (kUnavailable) or the guardian answered 502/503/504, up to max_attempts with
// exponential backoff. Every call is idempotent on the guardian: a repeated put (same id, owner,
// commitment) is ok, and a destroy retried after its answer was lost gets a receipt for the
// first destruction again (the guardian keeps a tombstone for receipt_retention_seconds).
//
// Get makes a one-time X-Wing key pair per call, sends its public key as reply_key and opens each
// returned share with aad = id || nonce; the private key is wiped when the call returns. Destroy
// verifies every receipt against the pinned identity; a receipt that does not verify turns that
// item into VerificationFailed().
//
// Errors: a request-level refusal comes back as its Status (code from the error body); a reply
// that does not parse is kInternal. Per-item outcomes are in the returned vectors, in request
// order.
//
// Thread safety: a client may be used from several threads (calls serialize on its connection);
// use one client per guardian and call guardians in parallel.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "veil/base/result.h"
#include "veil/crypto/secret.h"
#include "veil/guardian/identity.h"
#include "veil/guardian/owner.h"
#include "veil/guardian/protocol.h"
#include "veil/guardian/receipt.h"
#include "veil/net/http_client.h"

namespace veil::guardian {

struct GuardianClientOptions {
  net::HttpClientOptions http;     // base_url, timeouts, TLS pin; http.retry is not used
  std::string pinned_fingerprint;  // 64 lowercase hex digits (PublicIdentity::FingerprintHex)
  int max_attempts = 3;
  std::chrono::milliseconds initial_backoff{50};
};

// A share to deposit: its plaintext is sealed to the guardian by Put.
struct ShareToPut {
  ShareId id{};
  ShareKind kind = ShareKind::kRecord;
  std::int64_t expires_at = 0;
  const crypto::SecretBytes* share = nullptr;  // 1..kMaxShareSize bytes; must outlive the call
};

struct ExtendRequest {
  ShareId id{};
  std::int64_t expires_at = 0;
};

// One share returned by Get: status ok and `share` set, or the per-item error.
struct FetchedShare {
  ShareId id{};
  Status status;
  crypto::SecretBytes share;
  ShareKind kind = ShareKind::kRecord;
  std::int64_t expires_at = 0;
};

class GuardianClient {
 public:
  static Result<GuardianClient> Connect(GuardianClientOptions options);
  GuardianClient(GuardianClient&&) noexcept;
  GuardianClient& operator=(GuardianClient&&) noexcept;
  ~GuardianClient();

  const PublicIdentity& identity() const;

  // put: ItemResult::changed tells a new deposit from an idempotent repeat.
  Result<std::vector<ItemResult>> Put(const OwnerSigner& owner, std::span<const ShareToPut> items);
  Result<std::vector<FetchedShare>> Get(const OwnerSigner& owner, std::span<const ShareId> ids);
  Result<std::vector<ItemResult>> Extend(const OwnerSigner& owner,
                                         std::span<const ExtendRequest> items);
  // Each ok item carries a receipt that has been verified against identity().
  Result<std::vector<ItemResult>> Destroy(const OwnerSigner& owner, std::span<const ShareId> ids);

  // HTTP requests sent by this client so far (every attempt), for tests and metrics.
  std::uint64_t requests_sent() const;

 private:
  struct Impl;
  explicit GuardianClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace veil::guardian
