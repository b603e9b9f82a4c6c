// Transaction encoding, validation, signing and gas (layout in docs/notes/ledger.md).
#include "veil/ledger/transaction.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "veil/base/codec.h"
#include "veil/crypto/composite_sig.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/random.h"
#include "veil/ec/ed25519.h"

namespace veil::ledger {
namespace {

constexpr std::uint16_t kTxTag = 0x4C54;  // "LT"
constexpr std::string_view kSignLabel = "veil.ledger.tx.v1";

std::size_t PublicKeySize(SigScheme s) {
  return s == SigScheme::kEd25519 ? crypto::kEd25519PublicKeySize : crypto::kCompositePublicKeySize;
}
std::size_t SignatureSize(SigScheme s) {
  return s == SigScheme::kEd25519 ? crypto::kEd25519SignatureSize : crypto::kCompositeSignatureSize;
}

std::vector<Attribute> GetAttributes(Reader& r, std::size_t max_count, const Limits& limits) {
  return ledger::GetAttributes(r, max_count, limits.max_attribute_name, limits.max_string_value);
}

void PutOp(Writer& w, const Operation& op, std::uint8_t format) {
  w.U8(static_cast<std::uint8_t>(KindOf(op)));
  if (const auto* c = std::get_if<CreateOp>(&op)) {
    w.U64(c->expires_block);
    if (format != kTxFormatV1) w.U8(c->flags);
    w.String(c->content_type).VarBytes(c->payload);
    PutAttributes(w, c->attributes);
  } else if (const auto* u = std::get_if<UpdateOp>(&op)) {
    w.Fixed(u->key);
    PutAttributes(w, u->set);
    w.Varint(u->unset.size());
    for (const auto& n : u->unset) w.String(n);
    w.Bool(u->replace_payload);
    if (u->replace_payload) w.String(u->content_type).VarBytes(u->payload);
  } else if (const auto* e = std::get_if<ExtendOp>(&op)) {
    w.Fixed(e->key).U64(e->expires_block);
  } else if (const auto* t = std::get_if<TransferOp>(&op)) {
    w.Fixed(t->key).Fixed(t->new_owner);
  } else {
    w.Fixed(std::get<DeleteOp>(op).key);
  }
}

Operation GetOp(Reader& r, const Limits& limits, std::uint8_t format) {
  const std::uint8_t kind = r.U8();
  switch (kind) {
    case static_cast<std::uint8_t>(OpKind::kCreate): {
      CreateOp c;
      c.expires_block = r.U64();
      if (format != kTxFormatV1) c.flags = r.U8();
      c.content_type = r.String(limits.max_content_type);
      const ByteView p = r.VarBytes(limits.max_payload_bytes);
      c.payload.assign(p.begin(), p.end());
      c.attributes = GetAttributes(r, limits.max_create_attributes, limits);
      return c;
    }
    case static_cast<std::uint8_t>(OpKind::kUpdate): {
      UpdateOp u;
      r.Fixed(u.key);
      u.set = GetAttributes(r, limits.max_entity_attributes, limits);
      const std::uint64_t n = r.Varint();
      if (n > limits.max_entity_attributes) r.Fail("too many attributes to unset");
      for (std::uint64_t i = 0; i < n && r.ok(); ++i) {
        u.unset.push_back(r.String(limits.max_attribute_name));
      }
      u.replace_payload = r.Bool();
      if (u.replace_payload) {
        u.content_type = r.String(limits.max_content_type);
        const ByteView p = r.VarBytes(limits.max_payload_bytes);
        u.payload.assign(p.begin(), p.end());
      }
      return u;
    }
    case static_cast<std::uint8_t>(OpKind::kExtend): {
      ExtendOp e;
      r.Fixed(e.key);
      e.expires_block = r.U64();
      return e;
    }
    case static_cast<std::uint8_t>(OpKind::kTransfer): {
      TransferOp t;
      r.Fixed(t.key);
      r.Fixed(t.new_owner);
      return t;
    }
    case static_cast<std::uint8_t>(OpKind::kDelete): {
      DeleteOp d;
      r.Fixed(d.key);
      return d;
    }
    default:
      r.Fail("unknown operation kind");
      return DeleteOp{};
  }
}

Status OpError(std::size_t i, const Status& s) {
  return Status(s.code(), "operation " + std::to_string(i) + ": " + s.message());
}

std::uint64_t AttrBytes(const std::vector<Attribute>& attrs) {
  std::uint64_t n = 0;
  for (const auto& a : attrs) {
    n += a.name.size() +
         (a.type() == AttrType::kNumeric ? 8 : std::get<std::string>(a.value).size());
  }
  return n;
}

}  // namespace

OpKind KindOf(const Operation& op) { return static_cast<OpKind>(op.index() + 1); }

Status ValidateTransaction(const Transaction& tx, const Limits& limits) {
  if (tx.ops.empty()) return InvalidArgument("transaction has no operations");
  if (tx.ops.size() > limits.max_ops_per_tx) {
    return ResourceExhausted("transaction has more than " + std::to_string(limits.max_ops_per_tx) +
                             " operations");
  }
  for (std::size_t i = 0; i < tx.ops.size(); ++i) {
    const Operation& op = tx.ops[i];
    Status s;
    if (const auto* c = std::get_if<CreateOp>(&op)) {
      if ((c->flags & ~kKnownFlags) != 0) {
        s = InvalidArgument("unknown creation flags " + std::to_string(c->flags));
      } else if (c->payload.size() > limits.max_payload_bytes) {
        s = ResourceExhausted("payload larger than " + std::to_string(limits.max_payload_bytes) +
                              " bytes");
      } else if (s = ValidateContentType(c->content_type, limits); s.ok()) {
        s = ValidateAttributes(c->attributes, limits.max_create_attributes, limits);
      }
    } else if (const auto* u = std::get_if<UpdateOp>(&op)) {
      s = ValidateAttributes(u->set, limits.max_entity_attributes, limits);
      for (std::size_t k = 0; s.ok() && k < u->unset.size(); ++k) {
        s = ValidateAttributeName(u->unset[k], limits);
        if (s.ok() && k > 0 && !(u->unset[k - 1] < u->unset[k])) {
          s = InvalidArgument("unset names must be sorted and unique");
        }
        if (s.ok() && std::any_of(u->set.begin(), u->set.end(),
                                  [&](const Attribute& a) { return a.name == u->unset[k]; })) {
          s = InvalidArgument("attribute '" + u->unset[k] + "' both set and unset");
        }
      }
      if (s.ok() && u->unset.size() > limits.max_entity_attributes) {
        s = InvalidArgument("too many attributes to unset");
      }
      if (s.ok() && u->replace_payload) {
        if (u->payload.size() > limits.max_payload_bytes) {
          s = ResourceExhausted("payload larger than " + std::to_string(limits.max_payload_bytes) +
                                " bytes");
        } else {
          s = ValidateContentType(u->content_type, limits);
        }
      } else if (s.ok() && (!u->payload.empty() || !u->content_type.empty())) {
        s = InvalidArgument("payload given without replace_payload");
      }
      if (s.ok() && u->set.empty() && u->unset.empty() && !u->replace_payload) {
        s = InvalidArgument("empty patch");
      }
    }
    if (!s.ok()) return OpError(i, s);
  }
  return Status::Ok();
}

Bytes EncodeBody(const Transaction& tx, SigScheme scheme, ByteView public_key,
                 std::uint8_t format) {
  const bool flags = std::any_of(tx.ops.begin(), tx.ops.end(), [](const Operation& op) {
    const auto* c = std::get_if<CreateOp>(&op);
    return c != nullptr && c->flags != 0;
  });
  if (format != kTxFormatV1 || flags) format = kTxFormat;
  Writer w(kTxTag, format);
  w.U64(tx.chain_id).U8(static_cast<std::uint8_t>(scheme)).VarBytes(public_key).U64(tx.nonce);
  w.Varint(tx.ops.size());
  for (const auto& op : tx.ops) PutOp(w, op, format);
  return std::move(w).Take();
}

Bytes Encode(const SignedTransaction& stx) {
  Bytes body = EncodeBody(stx.tx, stx.scheme, stx.public_key, stx.format);
  Writer w;
  w.VarBytes(stx.signature);
  body.insert(body.end(), w.bytes().begin(), w.bytes().end());
  return body;
}

Result<SignedTransaction> Decode(ByteView encoded, const Limits& limits) {
  if (encoded.size() > limits.MaxTxBytes()) return InvalidArgument("transaction too large");
  Reader r(encoded);
  SignedTransaction stx;
  if (r.U16() != kTxTag && r.ok()) r.Fail("not a ledger transaction");
  stx.format = r.U8();
  if (r.ok() && stx.format != kTxFormat && stx.format != kTxFormatV1) {
    r.Fail("unknown transaction format " + std::to_string(stx.format));
  }
  stx.tx.chain_id = r.U64();
  const std::uint8_t scheme = r.U8();
  if (r.ok() && scheme != static_cast<std::uint8_t>(SigScheme::kEd25519) &&
      scheme != static_cast<std::uint8_t>(SigScheme::kCompositeMlDsa65Ed25519)) {
    r.Fail("unknown signature scheme");
  }
  stx.scheme = static_cast<SigScheme>(scheme);
  const ByteView pk = r.VarBytes(crypto::kCompositePublicKeySize);
  if (r.ok() && pk.size() != PublicKeySize(stx.scheme)) r.Fail("wrong public key length");
  stx.public_key.assign(pk.begin(), pk.end());
  stx.tx.nonce = r.U64();
  const std::uint64_t n = r.Varint();
  if (r.ok() && (n == 0 || n > limits.max_ops_per_tx)) r.Fail("operation count out of range");
  for (std::uint64_t i = 0; i < n && r.ok(); ++i) {
    stx.tx.ops.push_back(GetOp(r, limits, stx.format));
  }
  const ByteView sig = r.VarBytes(crypto::kCompositeSignatureSize);
  if (r.ok() && sig.size() != SignatureSize(stx.scheme)) r.Fail("wrong signature length");
  stx.signature.assign(sig.begin(), sig.end());
  VEIL_RETURN_IF_ERROR(r.Finish());
  VEIL_RETURN_IF_ERROR(ValidateTransaction(stx.tx, limits));
  return stx;
}

namespace {

// Validates, then signs the body with `sign(body) -> Result<signature bytes>`.
template <typename SignBody>
Result<Bytes> SignAs(const Transaction& tx, SigScheme scheme, ByteView public_key,
                     const Limits& limits, SignBody sign) {
  VEIL_RETURN_IF_ERROR(ValidateTransaction(tx, limits));
  SignedTransaction stx;
  stx.tx = tx;
  stx.scheme = scheme;
  stx.public_key.assign(public_key.begin(), public_key.end());
  VEIL_ASSIGN_OR_RETURN(stx.signature, sign(EncodeBody(tx, scheme, public_key)));
  return Encode(stx);
}

}  // namespace

Result<Bytes> SignEd25519(const Transaction& tx, const crypto::Ed25519SigningKey& key,
                          const Limits& limits) {
  return SignAs(tx, SigScheme::kEd25519, key.public_key(), limits,
                [&](const Bytes& body) -> Result<Bytes> {
                  const auto sig = key.Sign(Concat({AsBytes(kSignLabel), body}));
                  return Bytes(sig.begin(), sig.end());
                });
}

Result<Bytes> SignComposite(const Transaction& tx, const crypto::CompositeSigningKey& key,
                            const Limits& limits) {
  return SignAs(tx, SigScheme::kCompositeMlDsa65Ed25519, key.verifying_key().bytes(), limits,
                [&](const Bytes& body) -> Result<Bytes> {
                  VEIL_ASSIGN_OR_RETURN(const auto sig, key.Sign(body, AsBytes(kSignLabel)));
                  return Bytes(sig.begin(), sig.end());
                });
}

namespace {

// The composite scheme: ML-DSA-65 + Ed25519 with the label as the signature context.
Status VerifyComposite(const SignedTransaction& stx, ByteView body) {
  auto vk = crypto::CompositeVerifyingKey::Decode(stx.public_key);
  if (!vk.ok()) return VerificationFailed();
  return vk->Verify(body, AsBytes(kSignLabel), stx.signature);
}

}  // namespace

namespace {

// Ed25519 over the label and the body: with a prepared key when the caller has one, else the
// one-shot check (no tables built for a key that may not come again).
Status VerifyEd25519(const SignedTransaction& stx, const ec::Ed25519VerifyingKey* prepared) {
  const Bytes body = EncodeBody(stx.tx, stx.scheme, stx.public_key, stx.format);
  const std::initializer_list<ByteView> message = {AsBytes(kSignLabel), body};
  const Status s = prepared != nullptr
                       ? prepared->Verify(message, stx.signature)
                       : ec::Ed25519VerifyVartime(stx.public_key, message, stx.signature);
  return s.ok() ? s : VerificationFailed();
}

}  // namespace

Status VerifySignature(const SignedTransaction& stx) {
  if (stx.scheme != SigScheme::kEd25519) {
    return VerifyComposite(stx, EncodeBody(stx.tx, stx.scheme, stx.public_key, stx.format));
  }
  return VerifyEd25519(stx, nullptr);
}

namespace {

using PublicKey32 = std::array<std::uint8_t, 32>;

// The keys are public and chosen by senders; a salted hash keeps a crafted set of keys from
// piling into one bucket.
struct KeyHash {
  KeyHash() : salt(crypto::RandomUniform(0xffffffffU)) {}
  std::size_t operator()(const PublicKey32& k) const {
    std::uint64_t h;
    std::memcpy(&h, k.data(), sizeof h);
    return static_cast<std::size_t>((h ^ salt) * 0x9e3779b97f4a7c15ULL);
  }
  std::uint64_t salt;
};

}  // namespace

struct SignatureVerifier::Cache {
  using Key = PublicKey32;
  std::size_t capacity = 1;
  std::mutex mu;
  std::unordered_map<Key, ec::Ed25519VerifyingKey, KeyHash> prepared;
  std::unordered_set<Key, KeyHash> seen_once;
};

SignatureVerifier::SignatureVerifier(std::size_t capacity) : cache_(std::make_unique<Cache>()) {
  cache_->capacity = std::max<std::size_t>(capacity, 1);
}
SignatureVerifier::~SignatureVerifier() = default;

std::size_t SignatureVerifier::prepared_keys() const {
  std::lock_guard<std::mutex> lock(cache_->mu);
  return cache_->prepared.size();
}

Status SignatureVerifier::Verify(const SignedTransaction& stx) const {
  if (stx.scheme != SigScheme::kEd25519 || stx.public_key.size() != 32) {
    return VerifySignature(stx);
  }
  Cache& c = *cache_;
  Cache::Key k;
  std::copy(stx.public_key.begin(), stx.public_key.end(), k.begin());
  std::optional<ec::Ed25519VerifyingKey> key;
  bool prepare = false;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (auto it = c.prepared.find(k); it != c.prepared.end()) {
      key = it->second;
    } else if (c.seen_once.erase(k) != 0) {
      prepare = true;
    } else {
      if (c.seen_once.size() >= c.capacity) c.seen_once.erase(c.seen_once.begin());
      c.seen_once.insert(k);
    }
  }
  if (prepare) {
    auto parsed = ec::Ed25519VerifyingKey::FromBytes(stx.public_key);
    if (!parsed.ok()) return VerificationFailed();
    key = *parsed;
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.prepared.size() >= c.capacity) c.prepared.erase(c.prepared.begin());
    c.prepared.insert_or_assign(k, *parsed);
  }
  return VerifyEd25519(stx, key ? &*key : nullptr);  // none: a first sighting, one-shot
}

Hash32 TxHash(ByteView encoded) {
  Writer w;
  w.Fixed(AsBytes("veil.ledger.tx-hash.v1")).Fixed(encoded);
  const auto d = crypto::Sha256(w.bytes());
  Hash32 out;
  std::copy(d.begin(), d.end(), out.begin());
  return out;
}

std::uint64_t StoredBytes(const Transaction& tx) {
  std::uint64_t n = 0;
  for (const auto& op : tx.ops) {
    if (const auto* c = std::get_if<CreateOp>(&op)) {
      n += c->payload.size() + c->content_type.size() + AttrBytes(c->attributes);
    } else if (const auto* u = std::get_if<UpdateOp>(&op)) {
      n += AttrBytes(u->set);
      if (u->replace_payload) n += u->payload.size() + u->content_type.size();
    }
  }
  return n;
}

std::uint64_t TxGas(const Transaction& tx, ByteView encoded, const GasSchedule& gas) {
  std::uint64_t g = gas.tx_base;
  for (auto b : encoded) g += b == 0 ? gas.calldata_zero_byte : gas.calldata_nonzero_byte;
  for (const auto& op : tx.ops) {
    switch (KindOf(op)) {
      case OpKind::kCreate:
        g += gas.op_create;
        break;
      case OpKind::kUpdate:
        g += gas.op_update;
        break;
      case OpKind::kExtend:
        g += gas.op_extend;
        break;
      case OpKind::kTransfer:
        g += gas.op_transfer;
        break;
      case OpKind::kDelete:
        g += gas.op_delete;
        break;
    }
  }
  return g + gas.stored_byte * StoredBytes(tx);
}

}  // namespace veil::ledger
