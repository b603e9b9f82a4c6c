// Destroy receipts (receipt.h).
#include "veil/guardian/receipt.h"

#include "veil/base/codec.h"
#include "veil/base/encoding.h"
#include "veil/base/json_object.h"

namespace veil::guardian {

Bytes DestroyReceiptBody(const DestroyReceipt& r) {
  Writer w(kReceiptTag, kReceiptVersion);
  w.Fixed(r.guardian)
      .Fixed(r.share_id)
      .U64(static_cast<std::uint64_t>(r.destroyed_at))
      .Fixed(r.commitment_hash);
  return std::move(w).Take();
}

Bytes EncodeDestroyReceipt(const DestroyReceipt& r) {
  Bytes out = DestroyReceiptBody(r);
  out.insert(out.end(), r.signature.begin(), r.signature.end());
  return out;
}

Result<DestroyReceipt> DecodeDestroyReceipt(ByteView encoded) {
  DestroyReceipt r;
  Reader rd(encoded);
  rd.Header(kReceiptTag, kReceiptVersion);
  rd.Fixed(r.guardian);
  rd.Fixed(r.share_id);
  const std::uint64_t t = rd.U64();
  rd.Fixed(r.commitment_hash);
  rd.Fixed(r.signature);
  if (rd.ok() && t > static_cast<std::uint64_t>(kMaxTimestamp)) {
    rd.Fail("receipt time out of range");
  }
  VEIL_RETURN_IF_ERROR(rd.Finish());
  r.destroyed_at = static_cast<std::int64_t>(t);
  return r;
}

nlohmann::json DestroyReceiptToJson(const DestroyReceipt& r) {
  return nlohmann::json{{"guardian", HexEncode(r.guardian)},
                        {"id", HexEncode(r.share_id)},
                        {"destroyed_at", r.destroyed_at},
                        {"commitment_hash", HexEncode(r.commitment_hash)},
                        {"signature", Base64Encode(r.signature)}};
}

Result<DestroyReceipt> DestroyReceiptFromJson(const nlohmann::json& v) {
  JsonObjectReader o(v, "receipt");
  DestroyReceipt r;
  Bytes sig;
  o.LowerHex("guardian", r.guardian);
  o.LowerHex("id", r.share_id);
  o.I64("destroyed_at", 0, kMaxTimestamp, &r.destroyed_at);
  o.LowerHex("commitment_hash", r.commitment_hash);
  o.Base64("signature", crypto::kCompositeSignatureSize, crypto::kCompositeSignatureSize, &sig);
  VEIL_RETURN_IF_ERROR(o.Finish());
  std::copy(sig.begin(), sig.end(), r.signature.begin());
  return r;
}

crypto::Sha256Digest CommitmentHash(const Commitment& commitment) {
  return crypto::Sha256(commitment);
}

Result<DestroyReceipt> SignDestroyReceipt(const GuardianIdentity& identity, const ShareId& id,
                                          std::int64_t destroyed_at, const Commitment& commitment) {
  DestroyReceipt r;
  r.guardian = identity.public_identity().fingerprint();
  r.share_id = id;
  r.destroyed_at = destroyed_at;
  r.commitment_hash = CommitmentHash(commitment);
  VEIL_ASSIGN_OR_RETURN(
      r.signature, identity.signing_key().Sign(DestroyReceiptBody(r), AsBytes(kReceiptContext)));
  return r;
}

Status VerifyDestroyReceipt(const PublicIdentity& guardian, const DestroyReceipt& receipt) {
  if (receipt.guardian != guardian.fingerprint()) return VerificationFailed();
  const Status s = guardian.signing_key().Verify(DestroyReceiptBody(receipt),
                                                 AsBytes(kReceiptContext), receipt.signature);
  return s.ok() ? s : VerificationFailed();
}

}  // namespace veil::guardian
