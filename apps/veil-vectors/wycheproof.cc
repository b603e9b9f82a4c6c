// Wycheproof runners, one per schema family; each case goes through the public crypto/ API.
#include "wycheproof.h"

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "case_util.h"
#include "mldsa_vectors.h"
#include "mlkem_vectors.h"
#include "veil/base/encoding.h"
#include "veil/crypto/aead.h"
#include "veil/crypto/ed25519.h"
#include "veil/crypto/kdf.h"
#include "veil/crypto/mac.h"
#include "veil/crypto/x25519.h"

namespace veil::vectors {
namespace {

using crypto::AeadAlg;
using nlohmann::json;

Result<Outcome> AeadCase(const std::string& alg, const json& g, const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes key, HexField(t, "key"));
  VEIL_ASSIGN_OR_RETURN(Bytes iv, HexField(t, "iv"));
  VEIL_ASSIGN_OR_RETURN(Bytes aad, HexField(t, "aad"));
  VEIL_ASSIGN_OR_RETURN(Bytes msg, HexField(t, "msg"));
  VEIL_ASSIGN_OR_RETURN(Bytes ct, HexField(t, "ct"));
  VEIL_ASSIGN_OR_RETURN(Bytes tag, HexField(t, "tag"));
  if (g.value("tagSize", 128) != 128) return Outcome{false, "rejected: only 128-bit tags"};
  Bytes sealed_want = Concat({ct, tag});
  Bytes sealed(msg.size() + 16);
  Bytes opened(ct.size());
  if (alg == "AES-GCM") {
    auto gcm = crypto::AesGcm::Create(key);
    if (!gcm.ok()) return Rejected(gcm.status());
    if (Status s = gcm->Seal(iv, aad, msg, sealed); !s.ok()) return Rejected(s);
    Outcome enc = Compare(sealed, sealed_want);
    // Decryption must also accept the expected ciphertext (and reject it when the tag is bad).
    if (Status s = gcm->Open(iv, aad, sealed_want, opened); !s.ok()) return Rejected(s);
    if (!enc.ok) return enc;
    return Compare(opened, msg);
  }
  const AeadAlg a =
      alg == "CHACHA20-POLY1305" ? AeadAlg::kChaCha20Poly1305 : AeadAlg::kXChaCha20Poly1305;
  auto aead = crypto::Aead::Create(a, key);
  if (!aead.ok()) return Rejected(aead.status());
  if (Status s = aead->SealInto(iv, aad, msg, sealed); !s.ok()) return Rejected(s);
  Outcome enc = Compare(sealed, sealed_want);
  if (Status s = aead->OpenInto(iv, aad, sealed_want, opened); !s.ok()) return Rejected(s);
  if (!enc.ok) return enc;
  return Compare(opened, msg);
}

Result<Outcome> MacCase(const std::string& alg, const json& g, const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes key, HexField(t, "key"));
  VEIL_ASSIGN_OR_RETURN(Bytes msg, HexField(t, "msg"));
  VEIL_ASSIGN_OR_RETURN(Bytes tag, HexField(t, "tag"));
  const crypto::HashAlg h = alg == "HMACSHA256"   ? crypto::HashAlg::kSha256
                            : alg == "HMACSHA384" ? crypto::HashAlg::kSha384
                                                  : crypto::HashAlg::kSha512;
  const std::size_t tag_bytes = static_cast<std::size_t>(g.value("tagSize", 0)) / 8;
  crypto::Hmac mac(h, key);
  if (tag_bytes < crypto::Hmac::kMinTruncatedTagSize || tag_bytes > mac.tag_size()) {
    return Outcome{false, "rejected: tag size"};
  }
  // A MAC test is a verification: a different tag is a rejection, not a wrong output. The group's
  // tagSize is the length the protocol fixes.
  if (Status s = mac.VerifyTruncated(msg, tag, tag_bytes); !s.ok()) return Rejected(s);
  return Outcome{true, ""};
}

Result<Outcome> HkdfCase(const std::string& alg, const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes ikm, HexField(t, "ikm"));
  VEIL_ASSIGN_OR_RETURN(Bytes salt, HexField(t, "salt"));
  VEIL_ASSIGN_OR_RETURN(Bytes info, HexField(t, "info"));
  VEIL_ASSIGN_OR_RETURN(Bytes okm, HexField(t, "okm"));
  const crypto::HashAlg h = alg == "HKDF-SHA-256"   ? crypto::HashAlg::kSha256
                            : alg == "HKDF-SHA-384" ? crypto::HashAlg::kSha384
                                                    : crypto::HashAlg::kSha512;
  auto out = crypto::Hkdf(h, salt, ikm, info, t.value("size", std::size_t{0}));
  if (!out.ok()) return Rejected(out.status());
  return Compare(out->Expose(), okm);
}

Result<Outcome> XdhCase(const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes pub, HexField(t, "public"));
  VEIL_ASSIGN_OR_RETURN(Bytes priv, HexField(t, "private"));
  VEIL_ASSIGN_OR_RETURN(Bytes shared, HexField(t, "shared"));
  auto pk = crypto::X25519PublicKeyFromBytes(pub);
  if (!pk.ok()) return Rejected(pk.status());
  if (priv.size() != crypto::kX25519KeySize) return Outcome{false, "rejected: private key size"};
  auto sk = crypto::X25519SecretKey::CopyFrom(ByteView(priv).first<crypto::kX25519KeySize>());
  auto out = crypto::X25519(sk, *pk);
  if (!out.ok()) return Rejected(out.status());
  return Compare(out->Expose(), shared);
}

Result<Outcome> EddsaCase(const json& g, const json& t) {
  if (!g.contains("publicKey") || !g["publicKey"].contains("pk")) {
    return InvalidArgument("EDDSA group without publicKey.pk");
  }
  VEIL_ASSIGN_OR_RETURN(Bytes pk, HexField(g["publicKey"], "pk"));
  VEIL_ASSIGN_OR_RETURN(Bytes msg, HexField(t, "msg"));
  VEIL_ASSIGN_OR_RETURN(Bytes sig, HexField(t, "sig"));
  Status s = crypto::Ed25519Verify(pk, msg, sig);
  if (!s.ok()) return Rejected(s);
  return Outcome{true, ""};
}

}  // namespace

std::vector<std::string> SupportedWycheproofAlgorithms() {
  return {"AES-GCM",    "CHACHA20-POLY1305", "XCHACHA20-POLY1305", "HMACSHA256",   "HMACSHA384",
          "HMACSHA512", "HKDF-SHA-256",      "HKDF-SHA-384",       "HKDF-SHA-512", "XDH",
          "EDDSA"};
}

Result<Report> RunWycheproof(const json& file) {
  if (!file.is_object() || !file.contains("algorithm") || !file.contains("testGroups")) {
    return InvalidArgument("not a Wycheproof test file (no algorithm or testGroups)");
  }
  const std::string algorithm = file["algorithm"].get<std::string>();
  // The post-quantum schemas have runners of their own (keygen, encaps, decaps, sign, verify).
  if (algorithm == "ML-KEM") return RunWycheproofMlKem(file);
  if (algorithm.rfind("ML-DSA", 0) == 0) return RunWycheproofMlDsa(file);
  Report r;
  r.algorithm = algorithm;
  const std::string& alg = r.algorithm;
  const auto supported = SupportedWycheproofAlgorithms();
  if (std::find(supported.begin(), supported.end(), alg) == supported.end()) {
    return InvalidArgument("unsupported Wycheproof algorithm: " + alg);
  }
  for (const json& g : file["testGroups"]) {
    if (alg == "XDH" && g.value("curve", "") != "curve25519") {
      return InvalidArgument("unsupported XDH curve: " + g.value("curve", ""));
    }
    if (alg == "EDDSA" && g.contains("publicKey") &&
        g["publicKey"].value("curve", "edwards25519") != "edwards25519") {
      return InvalidArgument("unsupported EdDSA curve");
    }
    for (const json& t : g["tests"]) {
      Result<Outcome> o = InvalidArgument("unreachable");
      if (alg == "AES-GCM" || alg == "CHACHA20-POLY1305" || alg == "XCHACHA20-POLY1305") {
        o = AeadCase(alg, g, t);
      } else if (alg.rfind("HMACSHA", 0) == 0) {
        o = MacCase(alg, g, t);
      } else if (alg.rfind("HKDF", 0) == 0) {
        o = HkdfCase(alg, t);
      } else if (alg == "XDH") {
        o = XdhCase(t);
      } else {
        o = EddsaCase(g, t);
      }
      if (!o.ok()) {
        return InvalidArgument("tcId " + std::to_string(t.value("tcId", -1)) + ": " +
                               o.status().message());
      }
      JudgeWycheproof(r, t, *o);
    }
  }
  return r;
}

Result<json> LoadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument(path + ": not valid JSON");
  return j;
}

Result<Report> RunWycheproofFile(const std::string& path) {
  VEIL_ASSIGN_OR_RETURN(json j, LoadJsonFile(path));
  return RunWycheproof(j);
}

}  // namespace veil::vectors
