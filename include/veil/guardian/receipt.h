// Destroy receipts: a guardian's signed statement that it destroyed a share.
//
// A receipt names the guardian (its fingerprint), the share id, the time of destruction (unix
// seconds) and SHA-256 of the share's commitment, where the commitment is
// SHA-256("veil-guardian commitment v1" || id || share) and was checked when the share was
// deposited; the owner kept it, so the receipt ties the destruction to exactly the bytes it put.
// The guardian signs the receipt's body with its composite key under the context
// kReceiptContext, so a receipt signature can never be taken for any other guardian signature.
//
// Binary form (base/codec.h): structure "GR" v1: fingerprint (32) || share id (32) ||
// destroyed_at (u64) || commitment hash (32), then the signature (3373) as fixed bytes. The signed
// body is everything before the signature. JSON form (in destroy responses):
//   {"guardian":HEX,"id":HEX,"destroyed_at":N,"commitment_hash":HEX,"signature":BASE64}
// Both decoders are strict (exact lengths, canonical hex and base64, no unknown members).
//
// VerifyDestroyReceipt checks that the receipt names `guardian` and that its signature verifies
// under the guardian's public key; anyone holding the pinned identity can run it.
//
// Errors: malformed encodings are kInvalidArgument; a receipt of another guardian or a bad
// signature is VerificationFailed().
//
// Thread safety: values and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/composite_sig.h"
#include "veil/crypto/hash.h"
#include "veil/guardian/identity.h"
#include "veil/guardian/types.h"

namespace veil::guardian {

inline constexpr std::uint16_t kReceiptTag = 0x4752;  // "GR"
inline constexpr std::uint8_t kReceiptVersion = 1;
inline constexpr std::string_view kReceiptContext = "veil-guardian destroy-receipt v1";

struct DestroyReceipt {
  Fingerprint guardian{};
  ShareId share_id{};
  std::int64_t destroyed_at = 0;
  crypto::Sha256Digest commitment_hash{};
  crypto::CompositeSignature signature{};

  friend bool operator==(const DestroyReceipt&, const DestroyReceipt&) = default;
};

// The bytes the signature covers.
Bytes DestroyReceiptBody(const DestroyReceipt& receipt);
Bytes EncodeDestroyReceipt(const DestroyReceipt& receipt);
Result<DestroyReceipt> DecodeDestroyReceipt(ByteView encoded);

nlohmann::json DestroyReceiptToJson(const DestroyReceipt& receipt);
Result<DestroyReceipt> DestroyReceiptFromJson(const nlohmann::json& value);

// SHA-256 of a commitment, as receipts carry it.
crypto::Sha256Digest CommitmentHash(const Commitment& commitment);

// Signs a receipt (the guardian side).
Result<DestroyReceipt> SignDestroyReceipt(const GuardianIdentity& identity, const ShareId& id,
                                          std::int64_t destroyed_at, const Commitment& commitment);

Status VerifyDestroyReceipt(const PublicIdentity& guardian, const DestroyReceipt& receipt);

}  // namespace veil::guardian
