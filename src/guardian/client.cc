// The guardian client (client.h).
#include "veil/guardian/client.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <utility>

#include "veil/base/encoding.h"
#include "veil/crypto/hpke.h"
#include "veil/crypto/random.h"
#include "veil/guardian/guardian.h"
#include "veil/net/error_map.h"

namespace veil::guardian {

struct GuardianClient::Impl {
  GuardianClientOptions options;
  net::HttpClient http;
  PublicIdentity identity;
  std::atomic<std::uint64_t> sent{0};

  Impl(GuardianClientOptions o, net::HttpClient h, PublicIdentity id)
      : options(std::move(o)), http(std::move(h)), identity(std::move(id)) {}

  // Signs and sends `base` (its timestamp and nonce are set per attempt) and decodes the reply.
  Result<Response> Call(const OwnerSigner& owner, Request base, Nonce* nonce_out = nullptr) {
    base.owner = owner.public_key();
    base.guardian = identity.fingerprint();
    const std::string path(RoutePath(base.route));
    Status last = Unavailable("no attempt made");
    auto backoff = options.initial_backoff;
    const int attempts = std::max(1, options.max_attempts);
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      if (attempt > 1) {
        std::this_thread::sleep_for(backoff);
        backoff *= 2;
      }
      base.timestamp = SystemUnixSeconds();
      crypto::RandomBytes(base.nonce);
      const std::string body = EncodeRequest(base);
      VEIL_ASSIGN_OR_RETURN(Bytes sig, owner.Sign(SignedMessage(base.route, body)));
      sent.fetch_add(1, std::memory_order_relaxed);
      // Not idempotent for the HTTP layer: a resent body would be refused as a replay; a retry
      // here is signed afresh.
      auto reply = http.Post(path, body, "application/json", net::Idempotency::kNotIdempotent,
                             {{kSignatureHeader, SignatureHeader(sig)}});
      if (!reply.ok()) {
        if (reply.status().code() != Code::kUnavailable) return reply.status();
        last = reply.status();
        continue;
      }
      if (reply->status == 502 || reply->status == 503 || reply->status == 504) {
        last = DecodeErrorBody(reply->status, reply->body);
        continue;
      }
      if (reply->status != 200) return DecodeErrorBody(reply->status, reply->body);
      auto resp = DecodeResponse(base.route, reply->body, base.item_count());
      if (!resp.ok()) return Internal("malformed guardian response: " + resp.status().message());
      for (std::size_t i = 0; i < resp->items.size(); ++i) {
        if (resp->items[i].id != base.item_id(i)) {
          return Internal("guardian response items are out of order");
        }
      }
      if (nonce_out != nullptr) *nonce_out = base.nonce;
      return resp;
    }
    return last;
  }
};

GuardianClient::GuardianClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GuardianClient::GuardianClient(GuardianClient&&) noexcept = default;
GuardianClient& GuardianClient::operator=(GuardianClient&&) noexcept = default;
GuardianClient::~GuardianClient() = default;

Result<GuardianClient> GuardianClient::Connect(GuardianClientOptions options) {
  Fingerprint pinned{};
  if (!HexDecodeInto(options.pinned_fingerprint, pinned, HexCase::kLower).ok()) {
    return InvalidArgument("pinned_fingerprint must be 64 lowercase hex digits");
  }
  VEIL_ASSIGN_OR_RETURN(net::HttpClient http, net::HttpClient::Create(options.http));
  VEIL_ASSIGN_OR_RETURN(net::HttpReply reply, http.Get(kIdentityPath));
  if (reply.status != 200) return DecodeErrorBody(reply.status, reply.body);
  auto identity = DecodeIdentityBody(reply.body);
  if (!identity.ok())
    return Internal("malformed guardian identity: " + identity.status().message());
  if (identity->fingerprint() != pinned) {
    return Unauthenticated("guardian identity does not match the pinned fingerprint");
  }
  return GuardianClient(
      std::make_unique<Impl>(std::move(options), std::move(http), std::move(*identity)));
}

const PublicIdentity& GuardianClient::identity() const { return impl_->identity; }

std::uint64_t GuardianClient::requests_sent() const {
  return impl_->sent.load(std::memory_order_relaxed);
}

Result<std::vector<ItemResult>> GuardianClient::Put(const OwnerSigner& owner,
                                                    std::span<const ShareToPut> items) {
  Request req;
  req.route = Route::kPut;
  crypto::hpke::SetupOptions o;
  o.info = AsBytes(kShareInfo);
  for (const auto& item : items) {
    VEIL_CHECK_MSG(item.share != nullptr, "ShareToPut::share is null");
    if (item.share->empty() || item.share->size() > kMaxShareSize) {
      return InvalidArgument("a share must be 1 to 1024 bytes");
    }
    PutItem p;
    p.id = item.id;
    p.kind = item.kind;
    p.expires_at = item.expires_at;
    p.commitment = ShareCommitment(item.id, item.share->Expose());
    VEIL_ASSIGN_OR_RETURN(
        auto sealed,
        crypto::hpke::Seal(kShareSuite, impl_->identity.kem_public_key(), o,
                           ShareAad(item.id, owner.public_key()), item.share->Expose()));
    p.sealed = Concat({sealed.enc, sealed.ciphertext});
    req.puts.push_back(std::move(p));
  }
  VEIL_ASSIGN_OR_RETURN(Response resp, impl_->Call(owner, std::move(req)));
  return std::move(resp.items);
}

Result<std::vector<FetchedShare>> GuardianClient::Get(const OwnerSigner& owner,
                                                      std::span<const ShareId> ids) {
  const crypto::XWingDecapsulationKey reply_key = crypto::XWingDecapsulationKey::Generate();
  const crypto::SecretBytes reply_private =
      crypto::SecretBytes::CopyFrom(reply_key.seed().Expose());
  Request req;
  req.route = Route::kGet;
  req.ids.assign(ids.begin(), ids.end());
  req.reply_key.assign(reply_key.public_key().begin(), reply_key.public_key().end());
  Nonce nonce{};
  VEIL_ASSIGN_OR_RETURN(Response resp, impl_->Call(owner, std::move(req), &nonce));
  crypto::hpke::SetupOptions o;
  o.info = AsBytes(kReplyInfo);
  std::vector<FetchedShare> out;
  out.reserve(resp.items.size());
  for (auto& it : resp.items) {
    FetchedShare f;
    f.id = it.id;
    f.status = it.status;
    if (it.status.ok()) {
      const ByteView sealed(it.sealed);
      auto share = crypto::hpke::Open(kShareSuite, sealed.first(crypto::kXWingCiphertextSize),
                                      reply_private, o, ReplyAad(it.id, nonce),
                                      sealed.subspan(crypto::kXWingCiphertextSize));
      if (share.ok()) {
        f.share = std::move(*share);
        f.kind = it.kind;
        f.expires_at = it.expires_at;
      } else {
        f.status = VerificationFailed();
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

Result<std::vector<ItemResult>> GuardianClient::Extend(const OwnerSigner& owner,
                                                       std::span<const ExtendRequest> items) {
  Request req;
  req.route = Route::kExtend;
  for (const auto& e : items) req.extends.push_back(ExtendItem{e.id, e.expires_at});
  VEIL_ASSIGN_OR_RETURN(Response resp, impl_->Call(owner, std::move(req)));
  return std::move(resp.items);
}

Result<std::vector<ItemResult>> GuardianClient::Destroy(const OwnerSigner& owner,
                                                        std::span<const ShareId> ids) {
  Request req;
  req.route = Route::kDestroy;
  req.ids.assign(ids.begin(), ids.end());
  VEIL_ASSIGN_OR_RETURN(Response resp, impl_->Call(owner, std::move(req)));
  for (auto& it : resp.items) {
    if (!it.status.ok()) continue;
    if (!it.receipt || it.receipt->share_id != it.id ||
        !VerifyDestroyReceipt(impl_->identity, *it.receipt).ok()) {
      it.status = VerificationFailed();
      it.receipt.reset();
    }
  }
  return std::move(resp.items);
}

}  // namespace veil::guardian
