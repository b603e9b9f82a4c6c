// Internal: what differs between the two FROST ciphersuites (RFC 9591 sec. 6.1, 6.2), behind one
// interface, SuiteOps<S>: the element checks of DeserializeElement, SerializeElement, the
// multiplications, the hash functions H1..H5 (and ZF FROST's HDKG for the DKG proofs), and the
// final verification equation. Everything else in src/zk/frost*.cc is written once against it.
//
//   ristretto255: DeserializeElement = RFC 9496 Decode, then reject the identity.
//                 H2(m) = H(contextString || "chal" || m).
//   Ed25519:      DeserializeElement = RFC 8032 sec. 5.1.3 decode, then reject the identity and any
//                 point outside the prime-order subgroup ([l]P != identity).
//                 H2(m) = H(m), with no prefix, so that c is RFC 8032's challenge SHA-512(R || A ||
//                 M) and the signatures are plain Ed25519 signatures.
// Both: H1 "rho", H3 "nonce", H4 "msg", H5 "com", HDKG "dkg" and the DKG ceremony's digest
// "ceremony", each H(contextString || tag || m) with H = SHA-512 (no tag is a prefix of another),
// scalars by reducing the 64-byte digest as a little-endian integer mod l.
//
// Thread safety: stateless functions.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/secret.h"
#include "veil/ec/edwards25519.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/frost.h"

namespace veil::zk::frost {

using ElementBytes = std::array<std::uint8_t, kElementSize>;
using Digest = std::array<std::uint8_t, 64>;

// H(prefix || parts...) with SHA-512; the prefix is contextString || tag, or nothing.
// Into a digest the caller owns (and wipes, when it derives from a secret): a digest returned by
// value can leave a copy in the callee's frame (ASan builds do not construct it in place).
inline void Sha512PartsInto(std::string_view context, std::string_view tag,
                            std::initializer_list<ByteView> parts, Digest& out) {
  crypto::Sha2 h(crypto::HashAlg::kSha512);
  h.Update(AsBytes(context)).Update(AsBytes(tag));
  for (ByteView p : parts) h.Update(p);
  h.Final(out);
}
// For digests of public data only.
inline Digest Sha512Parts(std::string_view context, std::string_view tag,
                          std::initializer_list<ByteView> parts) {
  Digest d;
  Sha512PartsInto(context, tag, parts, d);
  return d;
}

// The digest read as a 512-bit little-endian integer mod l. The digest may derive from a secret
// (H3 of a signing share), so it is wiped.
inline ec::Scalar ReduceDigest(Digest& d) {
  const ec::Scalar s = ec::Scalar::FromBytesModOrderWide(d);
  crypto::SecureWipe(d.data(), d.size());
  return s;
}

template <class S>
struct SuiteOps;

template <>
struct SuiteOps<Ristretto255Sha512> {
  using Point = ec::RistrettoPoint;

  static ElementBytes Serialize(const Point& p) { return p.Encode().bytes(); }
  // RFC 9591 sec. 6.2 DeserializeElement.
  static Result<Point> Deserialize(ByteView b) {
    VEIL_ASSIGN_OR_RETURN(Point p, Point::Decode(b));
    if (p.IsIdentity()) return InvalidArgument("FROST: the identity element");
    return p;
  }
  // The same checks on a point already in memory (public).
  static bool Admissible(const Point& p) { return !p.IsIdentity(); }
  static Point BaseMul(const ec::Scalar& s) { return ec::BasepointMul(s); }
  static Point MulVartime(const Point& p, const ec::Scalar& s) { return p.MulVartime(s); }
  // a A + b B.
  static Point DoubleBaseVartime(const ec::Scalar& a, const Point& big_a, const ec::Scalar& b) {
    return ec::DoubleScalarMulBasepointVartime(a, big_a, b);
  }
  static Point MsmVartime(std::span<const ec::Scalar> s, std::span<const Point> p) {
    return ec::MultiScalarMulVartime(s, p);
  }
  static Point Generator() { return Point::Generator(); }
  static bool IsIdentity(const Point& p) { return p.IsIdentity(); }
  // z B == R + c PK, given lhs = z B - c PK (prime-order group: plain equality).
  static bool SignatureEquation(const Point& z_b_minus_c_pk, const Point& r) {
    return z_b_minus_c_pk == r;
  }
  static ec::Scalar H2(std::initializer_list<ByteView> parts) {
    Digest d = Sha512Parts(Ristretto255Sha512::kContextString, "chal", parts);
    return ReduceDigest(d);
  }
};

template <>
struct SuiteOps<Ed25519Sha512> {
  using Point = ec::EdwardsPoint;

  static ElementBytes Serialize(const Point& p) { return p.Encode().bytes(); }
  // RFC 9591 sec. 6.1 DeserializeElement.
  static Result<Point> Deserialize(ByteView b) {
    VEIL_ASSIGN_OR_RETURN(Point p, Point::Decode(b));
    if (!Admissible(p)) {
      return InvalidArgument("FROST: the identity or a point outside the prime-order subgroup");
    }
    return p;
  }
  static bool Admissible(const Point& p) { return !p.IsIdentity() && p.IsTorsionFreeVartime(); }
  static Point BaseMul(const ec::Scalar& s) { return Point::MulBase(s); }
  static Point MulVartime(const Point& p, const ec::Scalar& s) { return p.MulVartime(s); }
  static Point DoubleBaseVartime(const ec::Scalar& a, const Point& big_a, const ec::Scalar& b) {
    return Point::DoubleScalarMulBasepointVartime(a, big_a, b);
  }
  static Point MsmVartime(std::span<const ec::Scalar> s, std::span<const Point> p) {
    return Point::MultiScalarMulVartime(s, p);
  }
  static Point Generator() { return Point::Basepoint(); }
  static bool IsIdentity(const Point& p) { return p.IsIdentity(); }
  // The cofactored RFC 8032 sec. 5.1.7 equation [8](z B - c PK - R) = identity.
  static bool SignatureEquation(const Point& z_b_minus_c_pk, const Point& r) {
    return (z_b_minus_c_pk - r).MultiplyByCofactor().IsIdentity();
  }
  // No domain separator, for RFC 8032 compatibility (sec. 6.1).
  static ec::Scalar H2(std::initializer_list<ByteView> parts) {
    Digest d = Sha512Parts("", "", parts);
    return ReduceDigest(d);
  }
};

// The hash functions common to both suites.
template <class S>
struct Hashes {
  static ec::Scalar H1(std::initializer_list<ByteView> parts) {
    Digest d = Sha512Parts(S::kContextString, "rho", parts);
    return ReduceDigest(d);
  }
  // Of a signing share (nonce_generate), so into a digest that ReduceDigest wipes.
  static ec::Scalar H3(std::initializer_list<ByteView> parts) {
    Digest d;
    Sha512PartsInto(S::kContextString, "nonce", parts, d);
    return ReduceDigest(d);
  }
  static Digest H4(ByteView m) { return Sha512Parts(S::kContextString, "msg", {m}); }
  static Digest H5(ByteView m) { return Sha512Parts(S::kContextString, "com", {m}); }
  static ec::Scalar HDkg(std::initializer_list<ByteView> parts) {
    Digest d = Sha512Parts(S::kContextString, "dkg", parts);
    return ReduceDigest(d);
  }
  // The digest of a DKG ceremony's encoding, which every proof of knowledge of the run binds.
  static Digest HCeremony(ByteView encoded_ceremony) {
    return Sha512Parts(S::kContextString, "ceremony", {encoded_ceremony});
  }
};

}  // namespace veil::zk::frost
