// Constant-time checks for the crypto/ floor's own code and the wrappers around the libraries:
// the GHASH arithmetic of the long-IV path, secret comparison, the text codecs of secrets, and the
// library primitives called with secret keys (AES-GCM and ChaCha20-Poly1305 sealing, X25519,
// Ed25519 signing, HMAC, HKDF) so that our glue adds no secret-dependent branch; and our field
// arithmetic mod 2^255 - 19 (fe25519.h) on secret operands.
//
// AEAD opening is not checked here: its one branch on a secret-derived value is the tag verdict,
// taken inside OpenSSL and libsodium, where we cannot mark it public. The verdict is public by
// design (the caller learns accept or reject), and both libraries compare tags in constant time.
#include "../../src/crypto/gcm_long_iv.h"
#include "ctime.h"
#include "veil/base/encoding.h"
#include "veil/crypto/aead.h"
#include "veil/crypto/ed25519.h"
#include "veil/crypto/fe25519.h"
#include "veil/crypto/kdf.h"
#include "veil/crypto/mac.h"
#include "veil/crypto/random.h"
#include "veil/crypto/x25519.h"

namespace veil::crypto {
namespace {

using ctime::Classify;
using ctime::Declassify;

VEIL_CTIME_CHECK(GcmEquivalentIv) {
  internal::Block h{};
  RandomBytes(h);
  h[0] |= 1;                    // non-zero
  Bytes iv = RandomBytes(300);  // public
  Classify(h.data(), h.size());
  internal::Block out;
  internal::GcmEquivalentIv(h, iv, out);
  Declassify(out.data(), out.size());
}

VEIL_CTIME_CHECK(SecretCompareAndHex) {
  SecretBytes a = RandomSecret(32);
  SecretBytes b = a.Clone();
  Classify(a.Expose().data(), a.size());
  Classify(b.Expose().data(), b.size());
  bool same = a.ConstantTimeEquals(b);
  Declassify(&same, sizeof same);  // the verdict is what the caller is entitled to
  std::string hex = HexEncode(a.Expose());
  Classify(hex.data(), hex.size());
  SecretBytes back(32);
  Status s = HexDecodeInto(hex, back.ExposeMutable());
  Declassify(&s, sizeof s);
  Status lower = HexDecodeInto(hex, back.ExposeMutable(), HexCase::kLower);
  Declassify(&lower, sizeof lower);
  (void)same;
}

VEIL_CTIME_CHECK(AeadWithSecretKeyAndPlaintext) {
  for (AeadAlg alg : {AeadAlg::kAes256Gcm, AeadAlg::kChaCha20Poly1305}) {
    SecretBytes key = RandomSecret(AeadKeySize(alg));
    Bytes pt = RandomBytes(100);
    Classify(key.Expose().data(), key.size());
    Classify(pt.data(), pt.size());
    auto aead = Aead::Create(alg, key.Expose());
    Bytes nonce(AeadNonceSize(alg), 1);
    Bytes ct(pt.size() + 16);
    Status s = aead->SealInto(nonce, {}, pt, ct);
    Declassify(ct.data(), ct.size());  // ciphertext is public
    Declassify(&s, sizeof s);
  }
}

VEIL_CTIME_CHECK(X25519AndEd25519WithSecretKeys) {
  X25519KeyPair a = X25519Generate(), b = X25519Generate();
  Classify(a.secret_key.Expose().data(), 32);
  auto shared = X25519(a.secret_key, b.public_key);
  Declassify(&shared, sizeof shared);
  // The fixed-base path: libsodium's Edwards table, then our field inversion and encoding.
  X25519PublicKey pk = X25519PublicFromSecret(a.secret_key);
  Declassify(pk.data(), pk.size());

  Secret<32> seed = RandomSecret<32>();
  Classify(seed.Expose().data(), 32);
  Ed25519SigningKey key = Ed25519SigningKey::FromSeed(seed);
  Ed25519Signature sig = key.Sign(AsBytes("message"));
  Declassify(sig.data(), sig.size());
}

VEIL_CTIME_CHECK(FieldArithmeticOnSecrets) {
  std::array<std::uint8_t, 32> a_bytes, b_bytes;
  RandomBytes(a_bytes);
  RandomBytes(b_bytes);
  Classify(a_bytes.data(), a_bytes.size());
  Classify(b_bytes.data(), b_bytes.size());
  const Fe25519 a = FeFromBytes(a_bytes), b = FeFromBytes(b_bytes);
  const FeSqrtRatio s = FeSqrtRatioM1(a, b);
  const Fe25519 t = FeMul(FeInvert(FeSub(a, b)), FeAbs(FeAdd(a, s.r)));
  std::array<std::uint8_t, 32> out = FeToBytes(FeSelect(t, a, FeEqual(a, b) | FeIsZero(t)));
  std::uint64_t was_square = s.was_square;
  Declassify(out.data(), out.size());
  Declassify(&was_square, sizeof was_square);
}

VEIL_CTIME_CHECK(HmacAndHkdfWithSecretKeys) {
  SecretBytes key = RandomSecret(32);
  Classify(key.Expose().data(), key.size());
  Bytes tag = Hmac(HashAlg::kSha256, key.Expose()).Mac(AsBytes("m"));
  Declassify(tag.data(), tag.size());
  auto okm = Hkdf(HashAlg::kSha256, AsBytes("salt"), key.Expose(), AsBytes("info"), 32);
  Declassify(&okm, sizeof okm);
}

}  // namespace
}  // namespace veil::crypto
