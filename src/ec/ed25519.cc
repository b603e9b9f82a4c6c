// Ed25519 verification with libsodium 1.0.18's acceptance rules (include/veil/ec/ed25519.h).
//
// The rules, in libsodium's order (crypto_sign/ed25519/ref10/open.c there): S canonical, R not a
// listed small-order encoding, A canonical and not listed, A decodes; then the cofactorless
// equation with R compared as bytes. This file keeps each rule a separate test so that the
// correspondence can be read off.
//
// Thread safety: stateless functions on values.
#include "veil/ec/ed25519.h"

#include <algorithm>

#include "edwards.h"
#include "veil/crypto/hash.h"
#include "veil/ec/scalar.h"

namespace veil::ec {
namespace {

using Encoding = Ed25519VerifyingKey::Bytes;

// The encodings libsodium's ge25519_has_small_order lists, compared with bit 255 (x's sign)
// ignored: y = 0 (the two points of order 4), 1 (the identity), the two y of the four points of
// order 8, p - 1 (the point of order 2), p and p + 1 (non-canonical forms of 0 and 1). The
// order-8 values are the y of RFC 8032's curve points of order 8; tests/ec/ed25519_test.cc checks
// that each canonical entry decodes to a point of small order.
// The encoding {low, 0xff x 30, 0x7f}: p - 1, p and p + 1 for low = 0xec, 0xed, 0xee.
constexpr Encoding NearP(std::uint8_t low) {
  Encoding e{};
  e.fill(0xff);
  e[0] = low;
  e[31] = 0x7f;
  return e;
}

constexpr std::array<Encoding, 7> kSmallOrder = {{
    {0x00},
    {0x01},
    {0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4,
     0x89, 0xf2, 0xef, 0x98, 0xf0, 0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6,
     0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05},
    {0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b,
     0x76, 0x0d, 0x10, 0x67, 0x0f, 0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39,
     0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a},
    NearP(0xec),
    NearP(0xed),
    NearP(0xee),
}};

bool ListedSmallOrder(ByteView encoding) {
  Encoding masked;
  std::copy(encoding.begin(), encoding.begin() + 32, masked.begin());
  masked[31] &= 0x7f;
  return std::find(kSmallOrder.begin(), kSmallOrder.end(), masked) != kSmallOrder.end();
}

// y (bits 0..254) below p = 2^255 - 19: not (bytes 1..30 all 0xff, byte 31 masked 0x7f, and
// byte 0 >= 0xed).
bool CanonicalY(ByteView encoding) {
  if ((encoding[31] & 0x7f) != 0x7f) return true;
  for (std::size_t i = 1; i < 31; ++i) {
    if (encoding[i] != 0xff) return true;
  }
  return encoding[0] < 0xed;
}

// The key rules; the decoded A on success.
Result<EdwardsPoint> DecodeKey(ByteView public_key) {
  if (public_key.size() != Ed25519VerifyingKey::kSize) {
    return InvalidArgument("Ed25519: public key must be 32 bytes");
  }
  if (!CanonicalY(public_key) || ListedSmallOrder(public_key)) return VerificationFailed();
  // The strict decoder also refuses x = 0 with the sign bit set, which libsodium would decode,
  // but only y = 1 and y = p - 1 have x = 0, and both are listed above.
  auto a = EdwardsPoint::Decode(public_key);
  if (!a.ok()) return VerificationFailed();
  return *a;
}

// The signature rules and k = SHA-512(R || A || M) mod l; then `equation(k, S)` must return
// [S]B + [k](-A), whose encoding R must equal byte for byte. The point is negated, not k: with a
// torsion component in A, [l - k]A is not [k](-A) (l is 5 mod 8).
template <typename Equation>
Status VerifyWith(ByteView public_key, std::initializer_list<ByteView> message_parts,
                  ByteView signature, const Equation& equation) {
  if (signature.size() != Ed25519VerifyingKey::kSignatureSize) {
    return InvalidArgument("Ed25519: signature must be 64 bytes");
  }
  const ByteView r = signature.first(32);
  auto s = Scalar::FromCanonical(signature.subspan(32));
  if (!s.ok() || ListedSmallOrder(r)) return VerificationFailed();
  // A per-thread context: making one costs an allocation and a digest fetch's setup.
  thread_local crypto::Sha2 h(crypto::HashAlg::kSha512);
  h.Reset();
  h.Update(r).Update(public_key);
  for (const ByteView part : message_parts) h.Update(part);
  std::array<std::uint8_t, 64> digest;
  h.Final(digest);
  const EdwardsPoint r_check = equation(Scalar::FromBytesModOrderWide(digest), *s);
  const CompressedEdwardsY enc = r_check.Encode();
  if (!std::equal(enc.bytes().begin(), enc.bytes().end(), r.begin())) return VerificationFailed();
  return Status::Ok();
}

}  // namespace

Result<Ed25519VerifyingKey> Ed25519VerifyingKey::FromBytes(ByteView public_key) {
  VEIL_ASSIGN_OR_RETURN(const EdwardsPoint a, DecodeKey(public_key));
  Bytes bytes;
  std::copy(public_key.begin(), public_key.end(), bytes.begin());
  return Ed25519VerifyingKey(bytes, std::make_shared<const internal::HalvedBase>(
                                        internal::PrepareHalvedBase((-a).edwards())));
}

Status Ed25519VerifyingKey::Verify(std::initializer_list<ByteView> message_parts,
                                   ByteView signature) const {
  return VerifyWith(bytes_, message_parts, signature, [&](const Scalar& k, const Scalar& s) {
    return EdwardsPoint::FromEdwardsUnchecked(internal::DoubleBaseHalvedVartime(k, *neg_a_, s));
  });
}

Status Ed25519VerifyVartime(ByteView public_key, std::initializer_list<ByteView> message_parts,
                            ByteView signature) {
  VEIL_ASSIGN_OR_RETURN(const EdwardsPoint a, DecodeKey(public_key));
  const EdwardsPoint neg_a = -a;
  return VerifyWith(public_key, message_parts, signature, [&](const Scalar& k, const Scalar& s) {
    return EdwardsPoint::DoubleScalarMulBasepointVartime(k, neg_a, s);
  });
}

}  // namespace veil::ec
