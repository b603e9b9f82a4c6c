// The RFC 9180 vector runner (see hpke_vectors.h).
#include "hpke_vectors.h"

#include <string>

#include "case_util.h"
#include "veil/base/encoding.h"
#include "veil/crypto/hpke.h"
#include "veil/crypto/testing/hpke.h"

namespace veil::vectors {
namespace {

using nlohmann::json;
namespace hpke = crypto::hpke;

// One entry; returns an error only for a malformed entry.
Status RunEntry(const json& e, const hpke::Suite& suite, const std::string& tag, Report& r) {
  const auto mode = static_cast<hpke::Mode>(e.value("mode", 0));
  VEIL_ASSIGN_OR_RETURN(Bytes info, HexField(e, "info"));
  VEIL_ASSIGN_OR_RETURN(Bytes ikm_r, HexField(e, "ikmR"));
  VEIL_ASSIGN_OR_RETURN(Bytes ikm_e, HexField(e, "ikmE"));
  VEIL_ASSIGN_OR_RETURN(Bytes sk_rm, HexField(e, "skRm"));
  VEIL_ASSIGN_OR_RETURN(Bytes pk_rm, HexField(e, "pkRm"));
  VEIL_ASSIGN_OR_RETURN(Bytes enc_want, HexField(e, "enc"));
  Bytes psk, psk_id, ikm_s, pk_sm;
  const bool psk_mode = mode == hpke::Mode::kPsk || mode == hpke::Mode::kAuthPsk;
  const bool auth_mode = mode == hpke::Mode::kAuth || mode == hpke::Mode::kAuthPsk;
  if (psk_mode) {
    VEIL_ASSIGN_OR_RETURN(psk, HexField(e, "psk"));
    VEIL_ASSIGN_OR_RETURN(psk_id, HexField(e, "psk_id"));
  }
  if (auth_mode) {
    VEIL_ASSIGN_OR_RETURN(ikm_s, HexField(e, "ikmS"));
    VEIL_ASSIGN_OR_RETURN(pk_sm, HexField(e, "pkSm"));
  }

  // Key derivation.
  hpke::KeyPair recipient = hpke::DeriveKeyPair(suite.kem, ikm_r);
  bool keys_ok =
      SameBytes(recipient.private_key.Expose(), sk_rm) && SameBytes(recipient.public_key, pk_rm);
  std::optional<hpke::KeyPair> sender_keys;
  if (auth_mode) {
    sender_keys = hpke::DeriveKeyPair(suite.kem, ikm_s);
    keys_ok = keys_ok && SameBytes(sender_keys->public_key, pk_sm);
  }
  if (e.contains("pkEm") && suite.kem == hpke::KemId::kX25519Sha256) {
    VEIL_ASSIGN_OR_RETURN(Bytes pk_em, HexField(e, "pkEm"));
    keys_ok = keys_ok && SameBytes(hpke::DeriveKeyPair(suite.kem, ikm_e).public_key, pk_em);
  }
  r.Expect(keys_ok, tag + ": DeriveKeyPair does not reproduce the keys");

  hpke::SetupOptions so;
  so.mode = mode;
  so.info = info;
  so.psk = psk;
  so.psk_id = psk_id;
  if (auth_mode) so.sender_private_key = &sender_keys->private_key;
  auto sender = crypto::for_testing::HpkeSetupSenderDerand(suite, pk_rm, so, ikm_e);
  if (!sender.ok()) {
    r.Fail(tag + ": SetupSender: " + sender.status().ToString());
    return Status::Ok();
  }
  r.Expect(SameBytes(sender->enc, enc_want), tag + ": enc differs");

  hpke::SetupOptions ro = so;
  ro.sender_private_key = nullptr;
  ro.sender_public_key = pk_sm;
  const crypto::SecretBytes sk_r = crypto::SecretBytes::CopyFrom(sk_rm);
  auto recipient_ctx = hpke::SetupRecipient(suite, enc_want, sk_r, ro);
  if (!recipient_ctx.ok()) {
    r.Fail(tag + ": SetupRecipient: " + recipient_ctx.status().ToString());
    return Status::Ok();
  }

  int seq = 0;
  for (const json& x : e.value("encryptions", json::array())) {
    VEIL_ASSIGN_OR_RETURN(Bytes aad, HexField(x, "aad"));
    VEIL_ASSIGN_OR_RETURN(Bytes pt, HexField(x, "pt"));
    VEIL_ASSIGN_OR_RETURN(Bytes ct, HexField(x, "ct"));
    auto sealed = sender->context.Seal(aad, pt);
    auto opened = recipient_ctx->Open(aad, ct);
    const bool ok =
        sealed.ok() && SameBytes(*sealed, ct) && opened.ok() && SameBytes(opened->Expose(), pt);
    r.Expect(ok, tag + ": encryption " + std::to_string(seq) + " differs");
    ++seq;
  }
  for (const json& x : e.value("exports", json::array())) {
    VEIL_ASSIGN_OR_RETURN(Bytes ctx, HexField(x, "exporter_context"));
    VEIL_ASSIGN_OR_RETURN(Bytes want, HexField(x, "exported_value"));
    const auto len = x.value("L", std::size_t{0});
    auto a = sender->context.Export(ctx, len);
    auto b = recipient_ctx->Export(ctx, len);
    r.Expect(a.ok() && b.ok() && SameBytes(a->Expose(), want) && SameBytes(b->Expose(), want),
             tag + ": export of length " + std::to_string(len) + " differs");
  }
  return Status::Ok();
}

}  // namespace

Result<Report> RunHpkeVectors(const json& file) {
  if (!file.is_array()) return InvalidArgument("not an RFC 9180 test-vectors.json (no array)");
  Report r;
  r.algorithm = "HPKE";
  int index = 0;
  for (const json& e : file) {
    const auto kem = e.value("kem_id", 0), kdf = e.value("kdf_id", 0), aead = e.value("aead_id", 0);
    auto suite =
        hpke::SuiteFromIds(static_cast<std::uint16_t>(kem), static_cast<std::uint16_t>(kdf),
                           static_cast<std::uint16_t>(aead));
    const std::string tag = "entry " + std::to_string(index++) + " (mode " +
                            std::to_string(e.value("mode", -1)) + ", kem " + std::to_string(kem) +
                            ", kdf " + std::to_string(kdf) + ", aead " + std::to_string(aead) + ")";
    if (!suite.ok()) {
      ++r.skipped;
      continue;
    }
    VEIL_RETURN_IF_ERROR(RunEntry(e, *suite, tag, r));
  }
  if (r.passed + r.failed == 0) return InvalidArgument("no entry of a supported HPKE suite");
  return r;
}

}  // namespace veil::vectors
