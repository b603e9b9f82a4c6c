// Helpers shared by the guardian tests: a temporary data directory, a settable clock, and
// requests built, sealed and signed the way a client does.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "support/scratch_dir.h"
#include "veil/base/encoding.h"
#include "veil/crypto/hpke.h"
#include "veil/crypto/random.h"
#include "veil/guardian/guardian.h"
#include "veil/guardian/protocol.h"
#include "veil/guardian/service.h"

namespace veil::guardian::testing {

using veil::testing::ScratchDir;

inline std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline bool Contains(const std::string& haystack, ByteView needle) {
  return haystack.find(std::string(AsChars(needle))) != std::string::npos;
}

inline ShareId RandomId() {
  ShareId id{};
  crypto::RandomBytes(id);
  return id;
}

// A put item as a client makes it: the share sealed to `guardian` with the owner bound in the aad.
inline PutItem MakePut(const PublicIdentity& guardian, const OwnerKey& owner, const ShareId& id,
                       ByteView share, std::int64_t expires_at) {
  crypto::hpke::SetupOptions o;
  o.info = AsBytes(kShareInfo);
  auto sealed =
      crypto::hpke::Seal(kShareSuite, guardian.kem_public_key(), o, ShareAad(id, owner), share);
  VEIL_CHECK(sealed.ok());
  PutItem p;
  p.id = id;
  p.kind = ShareKind::kRecord;
  p.expires_at = expires_at;
  p.sealed = Concat({sealed->enc, sealed->ciphertext});
  p.commitment = ShareCommitment(id, share);
  return p;
}

// An HTTP request for `req` (owner, guardian and route filled in), signed by `signer`.
inline net::HttpRequest SignedHttp(const OwnerSigner& signer, const PublicIdentity& guardian,
                                   Request req, std::int64_t timestamp) {
  req.owner = signer.public_key();
  req.guardian = guardian.fingerprint();
  req.timestamp = timestamp;
  if (req.nonce == Nonce{}) crypto::RandomBytes(req.nonce);
  net::HttpRequest http;
  http.method = "POST";
  http.path = std::string(RoutePath(req.route));
  http.target = http.path;
  http.body = EncodeRequest(req);
  auto sig = signer.Sign(SignedMessage(req.route, http.body));
  VEIL_CHECK(sig.ok());
  http.headers.emplace_back(kSignatureHeader, Base64Encode(*sig));
  return http;
}

}  // namespace veil::guardian::testing
