// Owner keys (owner.h).
#include "veil/guardian/owner.h"

#include <set>
#include <utility>

#include "veil/base/encoding.h"

namespace veil::guardian {

std::string_view OwnerAlgName(OwnerAlg alg) {
  return alg == OwnerAlg::kEd25519 ? "ed25519" : "composite";
}

Result<OwnerAlg> OwnerAlgFromName(std::string_view name) {
  if (name == "ed25519") return OwnerAlg::kEd25519;
  if (name == "composite") return OwnerAlg::kComposite;
  return InvalidArgument("owner alg must be \"ed25519\" or \"composite\"");
}

std::size_t OwnerKeySize(OwnerAlg alg) {
  return alg == OwnerAlg::kEd25519 ? crypto::kEd25519PublicKeySize
                                   : crypto::kCompositePublicKeySize;
}

std::size_t OwnerSignatureSize(OwnerAlg alg) {
  return alg == OwnerAlg::kEd25519 ? crypto::kEd25519SignatureSize
                                   : crypto::kCompositeSignatureSize;
}

Result<OwnerKey> OwnerKey::Create(OwnerAlg alg, ByteView key) {
  if (alg != OwnerAlg::kEd25519 && alg != OwnerAlg::kComposite) {
    return InvalidArgument("unknown owner alg");
  }
  if (key.size() != OwnerKeySize(alg)) return InvalidArgument("owner key has the wrong length");
  if (alg == OwnerAlg::kComposite) {
    VEIL_RETURN_IF_ERROR(crypto::CompositeVerifyingKey::Decode(key));
  }
  return OwnerKey(alg, Bytes(key.begin(), key.end()));
}

Result<OwnerKey> OwnerKey::Decode(ByteView encoded) {
  if (encoded.empty()) return InvalidArgument("empty owner encoding");
  return Create(static_cast<OwnerAlg>(encoded[0]), encoded.subspan(1));
}

Bytes OwnerKey::Encode() const {
  Bytes out;
  out.reserve(1 + key_.size());
  out.push_back(static_cast<std::uint8_t>(alg_));
  out.insert(out.end(), key_.begin(), key_.end());
  return out;
}

Status OwnerKey::Verify(ByteView message, ByteView signature) const {
  if (key_.empty()) return VerificationFailed();
  if (alg_ == OwnerAlg::kEd25519) {
    const Status s = crypto::Ed25519Verify(key_, message, signature);
    return s.ok() ? s : VerificationFailed();
  }
  auto vk = crypto::CompositeVerifyingKey::Decode(key_);
  if (!vk.ok()) return VerificationFailed();
  const Status s = vk->Verify(message, {}, signature);
  return s.ok() ? s : VerificationFailed();
}

std::string OwnerKeyText(const OwnerKey& key) {
  return std::string(OwnerAlgName(key.alg())) + ":" + Base64Encode(key.key());
}

Result<OwnerKey> ParseOwnerKeyText(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return InvalidArgument("an owner key is written ALG:BASE64");
  }
  VEIL_ASSIGN_OR_RETURN(OwnerAlg alg, OwnerAlgFromName(text.substr(0, colon)));
  const std::string_view b64 = text.substr(colon + 1);
  // The encoded length is fixed by the algorithm: checked before decoding anything.
  if (b64.size() != 4 * ((OwnerKeySize(alg) + 2) / 3)) {
    return InvalidArgument("owner key has the wrong length");
  }
  auto key = Base64Decode(b64);
  if (!key.ok()) return InvalidArgument("owner key must be canonical base64");
  auto owner = OwnerKey::Create(alg, *key);
  if (!owner.ok()) return InvalidArgument("owner key is malformed");
  return std::move(*owner);
}

Result<std::vector<OwnerKey>> ParseOwnerKeyList(std::string_view text) {
  std::vector<OwnerKey> out;
  std::set<Bytes> seen;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    auto key = ParseOwnerKeyText(line);
    if (!key.ok()) {
      return InvalidArgument("line " + std::to_string(line_number) + ": " + key.status().message());
    }
    if (seen.insert(key->Encode()).second) out.push_back(std::move(*key));
  }
  return out;
}

OwnerSigner OwnerSigner::GenerateEd25519() {
  return FromEd25519(crypto::Ed25519SigningKey::Generate());
}

OwnerSigner OwnerSigner::GenerateComposite() {
  return FromComposite(crypto::CompositeSigningKey::Generate());
}

OwnerSigner OwnerSigner::FromEd25519(crypto::Ed25519SigningKey key) {
  OwnerSigner s;
  auto pk = OwnerKey::Create(OwnerAlg::kEd25519, key.public_key());
  VEIL_CHECK(pk.ok());
  s.public_ = std::make_shared<const OwnerKey>(std::move(*pk));
  s.ed25519_ = std::make_shared<const crypto::Ed25519SigningKey>(std::move(key));
  return s;
}

OwnerSigner OwnerSigner::FromComposite(crypto::CompositeSigningKey key) {
  OwnerSigner s;
  auto pk = OwnerKey::Create(OwnerAlg::kComposite, key.verifying_key().bytes());
  VEIL_CHECK(pk.ok());
  s.public_ = std::make_shared<const OwnerKey>(std::move(*pk));
  s.composite_ = std::make_shared<const crypto::CompositeSigningKey>(std::move(key));
  return s;
}

Result<Bytes> OwnerSigner::Sign(ByteView message) const {
  if (ed25519_) {
    const auto sig = ed25519_->Sign(message);
    return Bytes(sig.begin(), sig.end());
  }
  VEIL_ASSIGN_OR_RETURN(auto sig, composite_->Sign(message));
  return Bytes(sig.begin(), sig.end());
}

}  // namespace veil::guardian
