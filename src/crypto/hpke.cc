// HPKE (RFC 9180). Section numbers below are the RFC's.
#include "veil/crypto/hpke.h"

#include <limits>

#include "veil/base/status.h"
#include "veil/crypto/aead.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/kdf.h"
#include "veil/crypto/mac.h"
#include "veil/crypto/random.h"
#include "veil/crypto/testing/hpke.h"
#include "veil/crypto/x25519.h"
#include "xwing_hpke.h"

namespace veil::crypto::hpke {
namespace {

constexpr std::uint8_t kVersionLabel[] = {'H', 'P', 'K', 'E', '-', 'v', '1'};

void PutU16(Bytes& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

// The suite_id of section 4 (the KEM's own, "KEM" || kem_id) or 5.1 ("HPKE" || ids).
Bytes KemSuiteId(KemId kem) {
  Bytes id = {'K', 'E', 'M'};
  PutU16(id, static_cast<std::uint16_t>(kem));
  return id;
}
Bytes HpkeSuiteId(const Suite& s) {
  Bytes id = {'H', 'P', 'K', 'E'};
  PutU16(id, static_cast<std::uint16_t>(s.kem));
  PutU16(id, static_cast<std::uint16_t>(s.kdf));
  PutU16(id, static_cast<std::uint16_t>(s.aead));
  return id;
}

HashAlg KdfHash(KdfId kdf) {
  switch (kdf) {
    case KdfId::kHkdfSha256:
      return HashAlg::kSha256;
    case KdfId::kHkdfSha384:
      return HashAlg::kSha384;
    case KdfId::kHkdfSha512:
      return HashAlg::kSha512;
  }
  return HashAlg::kSha256;
}

ByteView Str(const char* s) { return AsBytes(s); }

// LabeledExtract(salt, label, ikm) = Extract(salt, "HPKE-v1" || suite_id || label || ikm)
SecretBytes LabeledExtract(HashAlg h, ByteView suite_id, ByteView salt, ByteView label,
                           ByteView ikm) {
  Hmac mac(h, salt);
  SecretBytes prk(DigestSize(h));
  mac.Update(kVersionLabel).Update(suite_id).Update(label).Update(ikm).Final(prk.ExposeMutable());
  return prk;
}

// LabeledExpand(prk, label, info, L) = Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label
// || info, L)
Result<SecretBytes> LabeledExpand(HashAlg h, ByteView suite_id, ByteView prk, ByteView label,
                                  ByteView info, std::size_t length) {
  if (length > 0xffff) return InvalidArgument("HPKE: requested length too large");
  Bytes labeled_info;
  labeled_info.reserve(2 + sizeof kVersionLabel + suite_id.size() + label.size() + info.size());
  PutU16(labeled_info, static_cast<std::uint16_t>(length));
  labeled_info.insert(labeled_info.end(), std::begin(kVersionLabel), std::end(kVersionLabel));
  labeled_info.insert(labeled_info.end(), suite_id.begin(), suite_id.end());
  labeled_info.insert(labeled_info.end(), label.begin(), label.end());
  labeled_info.insert(labeled_info.end(), info.begin(), info.end());
  return HkdfExpand(h, prk, labeled_info, length);
}

// ---- KEMs (section 4.1 DHKEM; X-Wing in xwing_hpke.h) ----

struct Encapsulated {
  SecretBytes shared_secret;
  Bytes enc;
};

constexpr std::size_t kX25519Size = 32;

Result<SecretBytes> DhkemExtractAndExpand(ByteView dh, ByteView kem_context) {
  const Bytes suite = KemSuiteId(KemId::kX25519Sha256);
  SecretBytes eae_prk = LabeledExtract(HashAlg::kSha256, suite, {}, Str("eae_prk"), dh);
  return LabeledExpand(HashAlg::kSha256, suite, eae_prk.Expose(), Str("shared_secret"), kem_context,
                       32);
}

X25519SecretKey ToX25519Secret(const SecretBytes& sk) {
  return X25519SecretKey::CopyFrom(sk.Expose().first<kX25519Size>());
}

Result<X25519SecretKey> DhkemDerive(ByteView ikm) {
  const Bytes suite = KemSuiteId(KemId::kX25519Sha256);
  SecretBytes dkp_prk = LabeledExtract(HashAlg::kSha256, suite, {}, Str("dkp_prk"), ikm);
  VEIL_ASSIGN_OR_RETURN(SecretBytes sk, LabeledExpand(HashAlg::kSha256, suite, dkp_prk.Expose(),
                                                      Str("sk"), {}, kX25519Size));
  return ToX25519Secret(sk);
}

// Encap / AuthEncap (section 4.1). With a sender key it is the authenticated variant.
Result<Encapsulated> DhkemEncap(ByteView pk_r_bytes, const SecretBytes* sk_s,
                                ByteView derandomize) {
  VEIL_ASSIGN_OR_RETURN(X25519PublicKey pk_r, X25519PublicKeyFromBytes(pk_r_bytes));
  X25519SecretKey sk_e;
  if (derandomize.empty()) {
    sk_e = RandomSecret<kX25519Size>();
  } else {
    VEIL_ASSIGN_OR_RETURN(sk_e, DhkemDerive(derandomize));
  }
  const X25519PublicKey pk_e = X25519PublicFromSecret(sk_e);
  Secret<64> dh;
  VEIL_ASSIGN_OR_RETURN(Secret<32> dh1, X25519(sk_e, pk_r));
  std::copy(dh1.Expose().begin(), dh1.Expose().end(), dh.ExposeMutable().begin());
  std::size_t dh_len = 32;
  Bytes kem_context = Concat({pk_e, pk_r});
  if (sk_s != nullptr) {
    if (sk_s->size() != kX25519Size) return InvalidArgument("HPKE: sender key must be 32 bytes");
    const X25519SecretKey s = ToX25519Secret(*sk_s);
    VEIL_ASSIGN_OR_RETURN(Secret<32> dh2, X25519(s, pk_r));
    std::copy(dh2.Expose().begin(), dh2.Expose().end(), dh.ExposeMutable().begin() + 32);
    dh_len = 64;
    const X25519PublicKey pk_s = X25519PublicFromSecret(s);
    kem_context.insert(kem_context.end(), pk_s.begin(), pk_s.end());
  }
  VEIL_ASSIGN_OR_RETURN(SecretBytes ss,
                        DhkemExtractAndExpand(dh.Expose().first(dh_len), kem_context));
  return Encapsulated{std::move(ss), Bytes(pk_e.begin(), pk_e.end())};
}

Result<SecretBytes> DhkemDecap(ByteView enc, const SecretBytes& sk_r_bytes, ByteView pk_s_bytes,
                               bool auth) {
  if (sk_r_bytes.size() != kX25519Size)
    return InvalidArgument("HPKE: private key must be 32 bytes");
  VEIL_ASSIGN_OR_RETURN(X25519PublicKey pk_e, X25519PublicKeyFromBytes(enc));
  const X25519SecretKey sk_r = ToX25519Secret(sk_r_bytes);
  const X25519PublicKey pk_r = X25519PublicFromSecret(sk_r);
  Secret<64> dh;
  VEIL_ASSIGN_OR_RETURN(Secret<32> dh1, X25519(sk_r, pk_e));
  std::copy(dh1.Expose().begin(), dh1.Expose().end(), dh.ExposeMutable().begin());
  std::size_t dh_len = 32;
  Bytes kem_context = Concat({pk_e, pk_r});
  if (auth) {
    VEIL_ASSIGN_OR_RETURN(X25519PublicKey pk_s, X25519PublicKeyFromBytes(pk_s_bytes));
    VEIL_ASSIGN_OR_RETURN(Secret<32> dh2, X25519(sk_r, pk_s));
    std::copy(dh2.Expose().begin(), dh2.Expose().end(), dh.ExposeMutable().begin() + 32);
    dh_len = 64;
    kem_context.insert(kem_context.end(), pk_s.begin(), pk_s.end());
  }
  return DhkemExtractAndExpand(dh.Expose().first(dh_len), kem_context);
}

// ---- AEAD parameters ----

std::size_t AeadKeyLen(AeadId a) { return a == AeadId::kAes128Gcm ? 16 : 32; }
constexpr std::size_t kNonceLen = 12;

AeadAlg ToAeadAlg(AeadId a) {
  switch (a) {
    case AeadId::kAes128Gcm:
      return AeadAlg::kAes128Gcm;
    case AeadId::kAes256Gcm:
      return AeadAlg::kAes256Gcm;
    default:
      return AeadAlg::kChaCha20Poly1305;
  }
}

bool IsAuth(Mode m) { return m == Mode::kAuth || m == Mode::kAuthPsk; }
bool IsPsk(Mode m) { return m == Mode::kPsk || m == Mode::kAuthPsk; }

// VerifyPSKInputs (section 5.1) and the auth inputs of the mode.
Status CheckOptions(const Suite& suite, const SetupOptions& o, bool sender) {
  const bool got_psk = !o.psk.empty(), got_id = !o.psk_id.empty();
  if (got_psk != got_id) return InvalidArgument("HPKE: psk and psk_id must be given together");
  if (got_psk != IsPsk(o.mode)) {
    return InvalidArgument(IsPsk(o.mode) ? "HPKE: this mode needs a psk"
                                         : "HPKE: a psk was given to a mode without one");
  }
  if (IsPsk(o.mode) && o.psk.size() < 32) {
    return InvalidArgument("HPKE: a psk must have at least 32 bytes of entropy");
  }
  const bool got_auth = sender ? o.sender_private_key != nullptr : !o.sender_public_key.empty();
  if (got_auth != IsAuth(o.mode)) {
    return InvalidArgument(IsAuth(o.mode) ? "HPKE: this mode needs the sender's key"
                                          : "HPKE: a sender key was given to a mode without auth");
  }
  if (IsAuth(o.mode) && suite.kem == KemId::kXWing) {
    return InvalidArgument("HPKE: X-Wing does not support the auth modes");
  }
  return Status::Ok();
}

}  // namespace

// ---- Context ----

struct Context::State {
  Suite suite;
  Bytes suite_id;
  std::optional<Aead> aead;  // absent for export-only
  SecretBytes base_nonce;
  SecretBytes exporter_secret;
  std::uint64_t seq = 0;
  bool sender = false;

  // nonce = base_nonce XOR I2OSP(seq, Nn) (section 5.2). Kept secret like base_nonce: the
  // caller wipes it.
  Secret<kNonceLen> Nonce() const {
    Secret<kNonceLen> n = Secret<kNonceLen>::CopyFrom(base_nonce.Expose().first<kNonceLen>());
    for (std::size_t i = 0; i < 8; ++i) {
      n.ExposeMutable()[kNonceLen - 1 - i] ^= static_cast<std::uint8_t>(seq >> (8 * i));
    }
    return n;
  }
};

struct ContextFactory {
  // KeySchedule (section 5.1).
  static Result<Context> Make(const Suite& suite, const SetupOptions& o,
                              const SecretBytes& shared_secret, bool sender) {
    auto st = std::make_unique<Context::State>();
    st->suite = suite;
    st->suite_id = HpkeSuiteId(suite);
    st->sender = sender;
    const HashAlg h = KdfHash(suite.kdf);
    const ByteView sid = st->suite_id;
    SecretBytes psk_id_hash = LabeledExtract(h, sid, {}, Str("psk_id_hash"), o.psk_id);
    SecretBytes info_hash = LabeledExtract(h, sid, {}, Str("info_hash"), o.info);
    Bytes ksc;
    ksc.push_back(static_cast<std::uint8_t>(o.mode));
    ksc.insert(ksc.end(), psk_id_hash.Expose().begin(), psk_id_hash.Expose().end());
    ksc.insert(ksc.end(), info_hash.Expose().begin(), info_hash.Expose().end());
    SecretBytes secret = LabeledExtract(h, sid, shared_secret.Expose(), Str("secret"), o.psk);
    if (suite.aead != AeadId::kExportOnly) {
      VEIL_ASSIGN_OR_RETURN(SecretBytes key, LabeledExpand(h, sid, secret.Expose(), Str("key"), ksc,
                                                           AeadKeyLen(suite.aead)));
      VEIL_ASSIGN_OR_RETURN(st->base_nonce, LabeledExpand(h, sid, secret.Expose(),
                                                          Str("base_nonce"), ksc, kNonceLen));
      VEIL_ASSIGN_OR_RETURN(Aead aead, Aead::Create(ToAeadAlg(suite.aead), key.Expose()));
      st->aead.emplace(std::move(aead));
    }
    VEIL_ASSIGN_OR_RETURN(st->exporter_secret,
                          LabeledExpand(h, sid, secret.Expose(), Str("exp"), ksc, DigestSize(h)));
    return Context(std::move(st));
  }
};

Context::Context(std::unique_ptr<State> state) : state_(std::move(state)) {}
Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

Context::State& Context::Live() const {
  VEIL_CHECK_MSG(state_ != nullptr, "HPKE: use of a moved-from context");
  return *state_;
}

std::uint64_t Context::sequence_number() const { return Live().seq; }

Result<Bytes> Context::Seal(ByteView aad, ByteView plaintext) {
  State& s = Live();
  if (!s.sender) return FailedPrecondition("HPKE: Seal on a recipient context");
  if (!s.aead) return FailedPrecondition("HPKE: export-only context cannot seal");
  if (s.seq == std::numeric_limits<std::uint64_t>::max()) {
    return ResourceExhausted("HPKE: message limit reached");
  }
  VEIL_ASSIGN_OR_RETURN(Bytes ct, s.aead->Seal(s.Nonce().Expose(), aad, plaintext));
  ++s.seq;
  return ct;
}

Result<SecretBytes> Context::Open(ByteView aad, ByteView ciphertext) {
  State& s = Live();
  if (s.sender) return FailedPrecondition("HPKE: Open on a sender context");
  if (!s.aead) return FailedPrecondition("HPKE: export-only context cannot open");
  if (s.seq == std::numeric_limits<std::uint64_t>::max()) {
    return ResourceExhausted("HPKE: message limit reached");
  }
  VEIL_ASSIGN_OR_RETURN(SecretBytes pt, s.aead->Open(s.Nonce().Expose(), aad, ciphertext));
  ++s.seq;
  return pt;
}

Result<SecretBytes> Context::Export(ByteView exporter_context, std::size_t length) const {
  const State& s = Live();
  const HashAlg h = KdfHash(s.suite.kdf);
  if (length == 0 || length > 255 * DigestSize(h)) {
    return InvalidArgument("HPKE: export length out of range");
  }
  return LabeledExpand(h, s.suite_id, s.exporter_secret.Expose(), Str("sec"), exporter_context,
                       length);
}

// ---- Keys ----

Result<Suite> SuiteFromIds(std::uint16_t kem, std::uint16_t kdf, std::uint16_t aead) {
  if (kem != 0x0020 && kem != 0x647A) return InvalidArgument("HPKE: unsupported KEM id");
  if (kdf < 1 || kdf > 3) return InvalidArgument("HPKE: unsupported KDF id");
  if ((aead < 1 || aead > 3) && aead != 0xFFFF) return InvalidArgument("HPKE: unsupported AEAD id");
  return Suite{static_cast<KemId>(kem), static_cast<KdfId>(kdf), static_cast<AeadId>(aead)};
}

KeyPair DeriveKeyPair(KemId kem, ByteView ikm) {
  if (kem == KemId::kXWing) return internal::XWingDeriveKeyPair(ikm);
  X25519SecretKey sk = DhkemDerive(ikm).value();  // only fails for absurd lengths
  const X25519PublicKey pk = X25519PublicFromSecret(sk);
  return {SecretBytes::CopyFrom(sk.Expose()), Bytes(pk.begin(), pk.end())};
}

KeyPair GenerateKeyPair(KemId kem) {
  SecretBytes ikm = RandomSecret(32);
  return DeriveKeyPair(kem, ikm.Expose());
}

Result<Bytes> PublicKeyOf(KemId kem, const SecretBytes& private_key) {
  if (kem == KemId::kXWing) return internal::XWingPublicKeyOf(private_key);
  if (private_key.size() != kX25519Size)
    return InvalidArgument("HPKE: private key must be 32 bytes");
  const X25519PublicKey pk = X25519PublicFromSecret(ToX25519Secret(private_key));
  return Bytes(pk.begin(), pk.end());
}

// ---- Setup (section 5.1.1 - 5.1.4) ----

namespace {

// SetupSender with a fresh ephemeral key (ikm_e empty) or, for test vectors, one from ikm_e.
Result<SenderContext> SetupSenderWith(const Suite& suite, ByteView recipient_public_key,
                                      const SetupOptions& o, ByteView ikm_e) {
  VEIL_RETURN_IF_ERROR(CheckOptions(suite, o, /*sender=*/true));
  Encapsulated e;
  if (suite.kem == KemId::kXWing) {
    VEIL_ASSIGN_OR_RETURN(auto x, internal::XWingEncap(recipient_public_key, ikm_e));
    e.shared_secret = std::move(x.first);
    e.enc = std::move(x.second);
  } else {
    VEIL_ASSIGN_OR_RETURN(e, DhkemEncap(recipient_public_key,
                                        IsAuth(o.mode) ? o.sender_private_key : nullptr, ikm_e));
  }
  VEIL_ASSIGN_OR_RETURN(Context ctx, ContextFactory::Make(suite, o, e.shared_secret, true));
  return SenderContext{std::move(e.enc), std::move(ctx)};
}

}  // namespace

Result<SenderContext> SetupSender(const Suite& suite, ByteView recipient_public_key,
                                  const SetupOptions& o) {
  return SetupSenderWith(suite, recipient_public_key, o, {});
}

Result<Context> SetupRecipient(const Suite& suite, ByteView enc,
                               const SecretBytes& recipient_private_key, const SetupOptions& o) {
  VEIL_RETURN_IF_ERROR(CheckOptions(suite, o, /*sender=*/false));
  SecretBytes ss;
  if (suite.kem == KemId::kXWing) {
    VEIL_ASSIGN_OR_RETURN(ss, internal::XWingDecap(enc, recipient_private_key));
  } else {
    VEIL_ASSIGN_OR_RETURN(
        ss, DhkemDecap(enc, recipient_private_key, o.sender_public_key, IsAuth(o.mode)));
  }
  return ContextFactory::Make(suite, o, ss, false);
}

Result<Sealed> Seal(const Suite& suite, ByteView recipient_public_key, const SetupOptions& options,
                    ByteView aad, ByteView plaintext) {
  VEIL_ASSIGN_OR_RETURN(SenderContext s, SetupSender(suite, recipient_public_key, options));
  VEIL_ASSIGN_OR_RETURN(Bytes ct, s.context.Seal(aad, plaintext));
  return Sealed{std::move(s.enc), std::move(ct)};
}

Result<SecretBytes> Open(const Suite& suite, ByteView enc, const SecretBytes& recipient_private_key,
                         const SetupOptions& options, ByteView aad, ByteView ciphertext) {
  VEIL_ASSIGN_OR_RETURN(Context ctx, SetupRecipient(suite, enc, recipient_private_key, options));
  return ctx.Open(aad, ciphertext);
}

}  // namespace veil::crypto::hpke

namespace veil::crypto::for_testing {

Result<hpke::SenderContext> HpkeSetupSenderDerand(const hpke::Suite& suite,
                                                  ByteView recipient_public_key,
                                                  const hpke::SetupOptions& options,
                                                  ByteView ikm_e) {
  if (ikm_e.empty()) return InvalidArgument("HPKE: a derandomized setup needs ikm_e");
  return hpke::SetupSenderWith(suite, recipient_public_key, options, ikm_e);
}

}  // namespace veil::crypto::for_testing
