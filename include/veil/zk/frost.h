// FROST threshold Schnorr signatures (RFC 9591) with two ciphersuites, trusted-dealer and
// distributed key generation (docs/notes/frost.md).
//
// A group signing key s is Shamir-shared as sk_i = f(i) over a degree t - 1 polynomial f with
// f(0) = s; any t of the n holders produce a signature that verifies as a single-signer Schnorr
// signature under PK = s B:
//   - FROST(ristretto255, SHA-512), "FROST-RISTRETTO255-SHA512-v1" (RFC 9591 sec. 6.2):
//     z B = R + c PK with c = H2(R || PK || msg);
//   - FROST(Ed25519, SHA-512), "FROST-ED25519-SHA512-v1" (RFC 9591 sec. 6.1): the signature is a
//     plain RFC 8032 Ed25519 signature (R || z) under the 32-byte public key PK, which any Ed25519
//     verifier (libsodium's crypto_sign_verify_detached) accepts.
// Every type and function is a template over the ciphersuite (Ristretto255Sha512, Ed25519Sha512),
// with one implementation for both, explicitly instantiated for these two. Both groups have the
// same scalar field (order l), so identifiers and scalars are ec::Scalar for both.
//
// Signing (RFC 9591 sec. 5): each signer calls Commit (round one) and keeps its SigningNonces; the
// coordinator collects the SigningCommitments into a SigningPackage with the message; each signer
// calls Sign (round two), which consumes its nonces; the coordinator calls Aggregate, which checks
// every signature share (sec. 5.4) and names a cheating signer. Key generation: TrustedDealerKeygen
// (RFC 9591 Appendix C, Shamir with Feldman VSS commitments) or the Pedersen DKG in namespace dkg
// (the FROST paper's Figure 1 with a Schnorr proof of knowledge of each constant term, bound to the
// run's dkg::Ceremony), whose every check names the participant that sent the faulty input.
//
// Errors: malformed input (a wrong length, a non-canonical scalar or point, the identity where the
// RFC forbids it, an unsorted or duplicated list, fewer than t signers) is kInvalidArgument; a
// failed share or signature check is VerificationFailed() and nothing else. When one participant's
// input is at fault, FrostResult::culprit() names the participant and the fault (ZF FROST's
// "culprit"); the Status stays as above, so the verification failure itself remains opaque.
//
// Secrets: SigningShare and SigningNonces (and the key packages and DKG states that hold them) are
// move-only and wipe their scalars when destroyed or moved from. One-use secrets (SigningNonces,
// dkg::Round1Secret, dkg::Round2Secret) also remember that they were used: the call that consumes
// one (Sign, Part2, Part3) marks it used whatever happens, a moved-from object counts as used, and
// a used one is refused with kFailedPrecondition, so a retry can never sign or deal with wiped
// (zero) secrets (docs/notes/frost.md, "One-use secrets"). Constant time: nonce generation,
// commitments, signing shares, key-package construction and the DKG's polynomial arithmetic on
// secret coefficients; everything else works on public data (variable-time verification).
//
// Wire formats (docs/notes/frost.md has the tables): fixed layouts from the RFC for identifiers
// (32), commitments (96: identifier || D || E), signature shares (64: identifier || z_i) and
// signatures (64: R || z); base/codec.h structures with a tag, version and suite byte for the
// packages. Every decoder is strict and canonical.
//
// Thread safety: values; const objects may be shared between threads.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"
#include "veil/ec/edwards25519.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"

namespace veil::zk::frost {

inline constexpr std::size_t kScalarSize = 32;
inline constexpr std::size_t kElementSize = 32;
inline constexpr std::size_t kIdentifierSize = 32;
inline constexpr std::size_t kCommitmentsSize = 96;     // identifier || D || E
inline constexpr std::size_t kSignatureShareSize = 64;  // identifier || z_i
inline constexpr std::size_t kSignatureSize = 64;       // R || z
inline constexpr std::size_t kMaxParticipants = 65535;
inline constexpr std::size_t kMaxMessageSize = std::size_t{1} << 24;

// The one friend of the types below (src/zk/frost_internal.h): builds them after its own checks.
template <class S>
struct Internal;

// ---- Ciphersuites (RFC 9591 sec. 6) ----

struct Ristretto255Sha512 {
  using Point = ec::RistrettoPoint;
  static constexpr std::string_view kContextString = "FROST-RISTRETTO255-SHA512-v1";
  static constexpr std::string_view kName = "FROST(ristretto255, SHA-512)";
  static constexpr std::uint8_t kWireId = 1;  // the suite byte of the package encodings
};

struct Ed25519Sha512 {
  using Point = ec::EdwardsPoint;
  static constexpr std::string_view kContextString = "FROST-ED25519-SHA512-v1";
  static constexpr std::string_view kName = "FROST(Ed25519, SHA-512)";
  static constexpr std::uint8_t kWireId = 2;
};

// ---- Identifiers ----

// A participant identifier: a non-zero scalar (RFC 9591 sec. 5), encoded as its canonical 32-byte
// little-endian value. Ordered as integers, which is the order commitment lists use.
class Identifier {
 public:
  // v != 0; kInvalidArgument for 0.
  static Result<Identifier> FromInteger(std::uint64_t v);
  // A canonical non-zero scalar; kInvalidArgument otherwise.
  static Result<Identifier> Decode(ByteView bytes);

  const ec::Scalar::Bytes& Encode() const { return bytes_; }
  const ec::Scalar& scalar() const { return s_; }
  // Decimal when below 2^64, else hex: for messages that name a participant.
  std::string ToString() const;

  friend bool operator==(const Identifier& a, const Identifier& b) { return a.bytes_ == b.bytes_; }
  friend std::strong_ordering operator<=>(const Identifier& a, const Identifier& b);

 private:
  Identifier(const ec::Scalar& s, const ec::Scalar::Bytes& b) : s_(s), bytes_(b) {}
  ec::Scalar s_;
  ec::Scalar::Bytes bytes_;
};

// ---- Blame ----

enum class Fault : std::uint8_t {
  kBadSignatureShare,      // aggregation: the share fails verify_signature_share (sec. 5.4)
  kUnknownParticipant,     // a share or package from an identifier not in the group or session
  kDuplicateIdentifier,    // two inputs carry the same identifier (or someone else's own)
  kWrongCommitmentLength,  // DKG: a commitment with other than t elements
  kBadProofOfKnowledge,    // DKG: the Schnorr proof for the constant term does not verify
  kBadShare,               // DKG: f_j(i) B != sum_k C_jk i^k
  kMissingShare,           // no signature share, or no DKG package, from a participant
  kMisaddressedShare,      // DKG: a round-two package for another recipient
  kWrongIdentifier,        // DKG: a package carrying an identifier other than its sender's
};
std::string_view FaultName(Fault fault);

struct Culprit {
  Identifier participant;
  Fault fault;
  std::string ToString() const;  // "participant 3: bad proof of knowledge"
};

// A Result<T> that, when one participant's input caused the failure, also names it. status() is
// VerificationFailed() for failed checks (bad share, bad proof) and kInvalidArgument for
// structural faults, exactly as without blame; culprit() carries who and why.
template <class T>
class [[nodiscard]] FrostResult {
 public:
  FrostResult(T value) : r_(std::move(value)) {}         // NOLINT: implicit like Result<T>
  FrostResult(Status status) : r_(std::move(status)) {}  // NOLINT
  FrostResult(const Culprit& culprit, Status status) : r_(std::move(status)), culprit_(culprit) {}

  bool ok() const { return r_.ok(); }
  explicit operator bool() const { return ok(); }
  const Status& status() const { return r_.status(); }
  const std::optional<Culprit>& culprit() const { return culprit_; }

  T& value() & { return r_.value(); }
  const T& value() const& { return r_.value(); }
  T&& value() && { return std::move(r_).value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Result<T> r_;
  std::optional<Culprit> culprit_;
};

// ---- Public group elements ----

// An element that passed the suite's DeserializeElement checks (RFC 9591 sec. 6.1, 6.2): a
// canonical encoding, not the identity, and for Ed25519 in the prime-order subgroup. Kept with its
// encoding. Group keys, verifying shares, nonce commitments and VSS commitments are all of this
// type.
template <class S>
class GroupElement {
 public:
  using Point = typename S::Point;
  using Bytes = std::array<std::uint8_t, kElementSize>;

  static Result<GroupElement> Decode(ByteView bytes);
  // The same checks on a point (kInvalidArgument for the identity or, for Ed25519, a point
  // outside the prime-order subgroup).
  static Result<GroupElement> FromPoint(const Point& point);

  const Point& point() const { return point_; }
  const Bytes& Encode() const { return bytes_; }

  friend bool operator==(const GroupElement& a, const GroupElement& b) {
    return a.bytes_ == b.bytes_;
  }

 private:
  template <class>
  friend struct Internal;
  GroupElement(const Point& p, const Bytes& b) : point_(p), bytes_(b) {}
  Point point_;
  Bytes bytes_;
};

// The group public key PK, and a participant's public key PK_i = sk_i B.
template <class S>
using VerifyingKey = GroupElement<S>;
template <class S>
using VerifyingShare = GroupElement<S>;

// ---- Secrets ----

// A participant's share sk_i of the group signing key. Non-zero (its public key must not be the
// identity). Move-only, wiped on destruction and on move.
class SigningShare {
 public:
  // A canonical non-zero scalar; kInvalidArgument otherwise. Constant time in the value.
  static Result<SigningShare> Decode(ByteView bytes);

  SigningShare(SigningShare&& o) noexcept : s_(o.s_) { o.s_.Wipe(); }
  SigningShare& operator=(SigningShare&& o) noexcept;
  SigningShare(const SigningShare&) = delete;
  SigningShare& operator=(const SigningShare&) = delete;
  ~SigningShare() { s_.Wipe(); }
  SigningShare Clone() const { return SigningShare(s_); }

  crypto::Secret<kScalarSize> Encode() const;
  // Every use is a place where the secret flows.
  const ec::Scalar& ExposeScalar() const { return s_; }

 private:
  template <class>
  friend struct Internal;
  explicit SigningShare(const ec::Scalar& s) : s_(s) {}
  ec::Scalar s_;
};

// ---- Key material ----

// What one participant needs to sign: its identifier and share, its verifying share, the group
// key and the threshold t (min_signers). Move-only (it holds the share).
//
// Encoding: codec header (tag "FK", version 1), suite byte, u16 min_signers, identifier (32),
// sk_i (32), PK_i (32), PK (32): 134 bytes, returned as SecretBytes.
template <class S>
class KeyPackage {
 public:
  // Builds the package, computing PK_i = sk_i B (constant time). kInvalidArgument unless
  // 2 <= min_signers.
  static Result<KeyPackage> Create(const Identifier& identifier, SigningShare signing_share,
                                   const VerifyingKey<S>& verifying_key, std::uint16_t min_signers);
  // Strict; also kInvalidArgument when PK_i != sk_i B.
  static Result<KeyPackage> Decode(ByteView bytes);
  crypto::SecretBytes Encode() const;

  KeyPackage(KeyPackage&&) noexcept = default;
  KeyPackage& operator=(KeyPackage&&) noexcept = default;
  KeyPackage Clone() const {
    return KeyPackage(identifier_, signing_share_.Clone(), verifying_share_, verifying_key_,
                      min_signers_);
  }

  const Identifier& identifier() const { return identifier_; }
  const SigningShare& signing_share() const { return signing_share_; }
  const VerifyingShare<S>& verifying_share() const { return verifying_share_; }
  const VerifyingKey<S>& verifying_key() const { return verifying_key_; }
  std::uint16_t min_signers() const { return min_signers_; }

 private:
  template <class>
  friend struct Internal;
  KeyPackage(const Identifier& id, SigningShare share, const VerifyingShare<S>& vs,
             const VerifyingKey<S>& vk, std::uint16_t t)
      : identifier_(id),
        signing_share_(std::move(share)),
        verifying_share_(vs),
        verifying_key_(vk),
        min_signers_(t) {}
  Identifier identifier_;
  SigningShare signing_share_;
  VerifyingShare<S> verifying_share_;
  VerifyingKey<S> verifying_key_;
  std::uint16_t min_signers_;
};

// The public group information (RFC 9591 sec. 5, "group info"): PK, every PK_i, and t. What a
// coordinator needs to check shares.
//
// Encoding: codec header (tag "FP", version 1), suite byte, u16 min_signers, PK (32), u16 n, then
// n times identifier (32) || PK_i (32) in strictly ascending identifier order: 40 + 64 n bytes.
template <class S>
class PublicKeyPackage {
 public:
  // Sorts by identifier; kInvalidArgument for a duplicate identifier, fewer than min_signers
  // entries, min_signers < 2, or more than kMaxParticipants entries.
  static Result<PublicKeyPackage> Create(
      const VerifyingKey<S>& verifying_key,
      std::vector<std::pair<Identifier, VerifyingShare<S>>> verifying_shares,
      std::uint16_t min_signers);
  static Result<PublicKeyPackage> Decode(ByteView bytes);
  Bytes Encode() const;

  const VerifyingKey<S>& verifying_key() const { return verifying_key_; }
  std::uint16_t min_signers() const { return min_signers_; }
  const std::vector<std::pair<Identifier, VerifyingShare<S>>>& verifying_shares() const {
    return shares_;
  }
  // PK_i, or null when i is not in the group.
  const VerifyingShare<S>* Find(const Identifier& id) const;

  friend bool operator==(const PublicKeyPackage& a, const PublicKeyPackage& b) {
    return a.min_signers_ == b.min_signers_ && a.verifying_key_ == b.verifying_key_ &&
           a.shares_ == b.shares_;
  }

 private:
  PublicKeyPackage(const VerifyingKey<S>& vk,
                   std::vector<std::pair<Identifier, VerifyingShare<S>>> shares, std::uint16_t t)
      : verifying_key_(vk), shares_(std::move(shares)), min_signers_(t) {}
  VerifyingKey<S> verifying_key_;
  std::vector<std::pair<Identifier, VerifyingShare<S>>> shares_;
  std::uint16_t min_signers_;
};

// ---- Trusted dealer (RFC 9591 Appendix C) ----

// The dealer's message to one participant: its identifier and share, and the VSS commitment
// [a_0 B, ..., a_{t-1} B] to the dealer's polynomial (Appendix C.2), against which the share is
// checked. Move-only.
//
// Encoding: codec header (tag "FD", version 1), suite byte, identifier (32), sk_i (32), u16 t,
// t elements (32 each): 70 + 32 t bytes, returned as SecretBytes.
template <class S>
class SecretShare {
 public:
  static Result<SecretShare> Decode(ByteView bytes);
  crypto::SecretBytes Encode() const;

  SecretShare(SecretShare&&) noexcept = default;
  SecretShare& operator=(SecretShare&&) noexcept = default;

  const Identifier& identifier() const { return identifier_; }
  const SigningShare& signing_share() const { return signing_share_; }
  const std::vector<GroupElement<S>>& commitment() const { return commitment_; }

  // vss_verify (Appendix C.2): sk_i B = sum_j C_j i^j; then the participant's KeyPackage with
  // PK = C_0 and t = len(C). VerificationFailed() when the share does not match the commitment.
  Result<KeyPackage<S>> Verify() const;

 private:
  template <class>
  friend struct Internal;
  SecretShare(const Identifier& id, SigningShare share, std::vector<GroupElement<S>> commitment)
      : identifier_(id), signing_share_(std::move(share)), commitment_(std::move(commitment)) {}
  Identifier identifier_;
  SigningShare signing_share_;
  std::vector<GroupElement<S>> commitment_;
};

template <class S>
struct DealerOutput {
  std::vector<SecretShare<S>> shares;  // for identifiers 1..n, in order
  PublicKeyPackage<S> public_key_package;
};

// trusted_dealer_keygen with a random secret and polynomial: t-of-n shares for identifiers 1..n.
// kInvalidArgument unless 2 <= min_signers <= max_signers.
template <class S>
Result<DealerOutput<S>> TrustedDealerKeygen(std::uint16_t min_signers, std::uint16_t max_signers);
// The same with the polynomial given (coefficients[0] is the group secret, t =
// coefficients.size()): for known-answer tests (RFC 9591 Appendix E) and for splitting an existing
// key. kInvalidArgument for a zero coefficient (its commitment would be the identity) or a zero
// share.
template <class S>
Result<DealerOutput<S>> TrustedDealerKeygenFromCoefficients(
    std::span<const ec::Scalar> coefficients, std::uint16_t max_signers);

// ---- Round one (RFC 9591 sec. 5.1) ----

// A signer's public commitments (D_i, E_i) = (d_i B, e_i B), with its identifier; RFC 9591's
// commitment-list entry, 96 bytes: identifier || D_i || E_i.
template <class S>
class SigningCommitments {
 public:
  static Result<SigningCommitments> Decode(ByteView bytes);
  std::array<std::uint8_t, kCommitmentsSize> Encode() const;

  const Identifier& identifier() const { return identifier_; }
  const GroupElement<S>& hiding() const { return hiding_; }    // D_i
  const GroupElement<S>& binding() const { return binding_; }  // E_i

  friend bool operator==(const SigningCommitments&, const SigningCommitments&) = default;

 private:
  template <class>
  friend struct Internal;
  SigningCommitments(const Identifier& id, const GroupElement<S>& d, const GroupElement<S>& e)
      : identifier_(id), hiding_(d), binding_(e) {}
  Identifier identifier_;
  GroupElement<S> hiding_;
  GroupElement<S> binding_;
};

// A signer's secret nonces (d_i, e_i) for one signing session, with their commitments. Move-only,
// wiped on destruction; there is no encoding, so they never leave the process (a stored nonce is
// a nonce that can be replayed).
//
// Used once: Sign marks them used (and wipes them) whatever its outcome, and a moved-from object
// is used too (its nonces went with the move). A used object keeps its commitments, which are
// public, but Sign refuses it: signing again would answer with z_i = lambda_i c sk_i, which
// reveals the share sk_i to anyone. After a failed Sign (say, a bad package from the coordinator),
// the signer commits again.
template <class S>
class SigningNonces {
 public:
  SigningNonces(SigningNonces&& o) noexcept;
  SigningNonces& operator=(SigningNonces&& o) noexcept;
  SigningNonces(const SigningNonces&) = delete;
  SigningNonces& operator=(const SigningNonces&) = delete;
  ~SigningNonces() { Wipe(); }

  const SigningCommitments<S>& commitments() const { return commitments_; }
  // Whether these nonces were given to Sign or moved from: Sign would refuse them.
  bool used() const { return used_; }
  // For known-answer tests; every use is a place where a secret flows.
  const ec::Scalar& ExposeHidingNonce() const { return hiding_; }
  const ec::Scalar& ExposeBindingNonce() const { return binding_; }

 private:
  template <class>
  friend struct Internal;
  SigningNonces(const ec::Scalar& d, const ec::Scalar& e, const SigningCommitments<S>& c)
      : hiding_(d), binding_(e), commitments_(c) {}
  void Wipe() {
    hiding_.Wipe();
    binding_.Wipe();
  }
  ec::Scalar hiding_;
  ec::Scalar binding_;
  SigningCommitments<S> commitments_;
  bool used_ = false;
};

// commit(sk_i): two hedged nonces, nonce_generate = H3(32 random bytes || sk_i) (sec. 4.1), and
// their commitments. Constant time.
template <class S>
SigningNonces<S> Commit(const KeyPackage<S>& key);
// With the 32 random bytes of each nonce given (known-answer tests).
template <class S>
SigningNonces<S> CommitWithRandomness(const KeyPackage<S>& key,
                                      std::span<const std::uint8_t, 32> hiding_randomness,
                                      std::span<const std::uint8_t, 32> binding_randomness);

// ---- The coordinator's request ----

// The commitment list (sorted by identifier, no duplicates) and the message: what the
// coordinator sends every signer in round two.
//
// Encoding: codec header (tag "FS", version 1), suite byte, u16 count, count commitments (96 each,
// strictly ascending identifiers), the message as varint-length bytes.
template <class S>
class SigningPackage {
 public:
  // Sorts; kInvalidArgument for an empty list, a duplicate identifier, more than
  // kMaxParticipants entries or a message over kMaxMessageSize.
  static Result<SigningPackage> Create(std::vector<SigningCommitments<S>> commitments,
                                       ByteView message);
  static Result<SigningPackage> Decode(ByteView bytes);
  Bytes Encode() const;

  const std::vector<SigningCommitments<S>>& commitments() const { return commitments_; }
  const Bytes& message() const { return message_; }
  const SigningCommitments<S>* Find(const Identifier& id) const;

 private:
  SigningPackage(std::vector<SigningCommitments<S>> c, Bytes m)
      : commitments_(std::move(c)), message_(std::move(m)) {}
  std::vector<SigningCommitments<S>> commitments_;
  Bytes message_;
};

// ---- Round two (RFC 9591 sec. 5.2) ----

// z_i with the signer's identifier: identifier || z_i, 64 bytes.
template <class S>
class SignatureShare {
 public:
  static Result<SignatureShare> Decode(ByteView bytes);
  std::array<std::uint8_t, kSignatureShareSize> Encode() const;

  const Identifier& identifier() const { return identifier_; }
  const ec::Scalar& z() const { return z_; }

 private:
  template <class>
  friend struct Internal;
  SignatureShare(const Identifier& id, const ec::Scalar& z) : identifier_(id), z_(z) {}
  Identifier identifier_;
  ec::Scalar z_;
};

// sign(): z_i = d_i + e_i rho_i + lambda_i sk_i c. Consumes the nonces whatever happens: they are
// wiped and marked used (SigningNonces). kFailedPrecondition for nonces already used or moved
// from (or zero); kInvalidArgument when the package has fewer than t signers, lacks this signer,
// or carries commitments other than the nonces'. Constant time in sk_i and the nonces.
template <class S>
Result<SignatureShare<S>> Sign(const SigningPackage<S>& package, SigningNonces<S>&& nonces,
                               const KeyPackage<S>& key);

// ---- Aggregation (RFC 9591 sec. 5.3, 5.4) ----

// The final signature (R, z); 64 bytes R || z. Decoding applies the suite's element checks to R
// (for Ed25519: canonical, in the prime-order subgroup, not the identity) and requires z < l.
template <class S>
class Signature {
 public:
  static Result<Signature> Decode(ByteView bytes);
  std::array<std::uint8_t, kSignatureSize> Encode() const;

  const GroupElement<S>& R() const { return r_; }
  const ec::Scalar& z() const { return z_; }

 private:
  template <class>
  friend struct Internal;
  Signature(const GroupElement<S>& r, const ec::Scalar& z) : r_(r), z_(z) {}
  GroupElement<S> r_;
  ec::Scalar z_;
};

// verify_signature_share (sec. 5.4): z_i B = D_i + rho_i E_i + (c lambda_i) PK_i. Ok or
// VerificationFailed(); kInvalidArgument when the signer is not in the package or the group, or
// the package has fewer than t signers.
template <class S>
Status VerifySignatureShare(const SigningPackage<S>& package, const SignatureShare<S>& share,
                            const PublicKeyPackage<S>& group);

// aggregate(): the shares must come from exactly the package's signers (kInvalidArgument
// otherwise, naming an unknown or duplicated signer). Every share is checked (one batched
// multi-scalar multiplication with random weights over all shares and the final equation; on
// failure, share by share): a bad share is VerificationFailed() with culprit() naming the signer;
// a signature that fails although every share verifies (an inconsistent PublicKeyPackage) is
// VerificationFailed() without a culprit.
template <class S>
FrostResult<Signature<S>> Aggregate(const SigningPackage<S>& package,
                                    std::span<const SignatureShare<S>> shares,
                                    const PublicKeyPackage<S>& group);

// The single-signer check: ristretto255 z B = R + c PK; Ed25519 the cofactored RFC 8032 equation
// [8] z B = [8] R + [8] c PK (sec. 6.1; on the prime-order points decoding admits, the same as the
// cofactorless one). Ok or VerificationFailed().
template <class S>
Status Verify(const VerifyingKey<S>& key, ByteView message, const Signature<S>& signature);
// Decodes, then verifies; malformed inputs are kInvalidArgument.
template <class S>
Status Verify(ByteView key, ByteView message, ByteView signature);

// ---- RFC 9591 sec. 4 helper functions, for conformance checks and inspection ----
namespace spec {

// nonce_generate (sec. 4.1): H3(random_bytes || SerializeScalar(secret)).
template <class S>
ec::Scalar NonceGenerate(const SigningShare& secret, std::span<const std::uint8_t, 32> random);
// derive_interpolating_value (sec. 4.2): lambda_i for x_i in L. kInvalidArgument when x_i is not
// in L or L has a duplicate.
Result<ec::Scalar> InterpolatingValue(std::span<const Identifier> participants,
                                      const Identifier& x_i);
// encode_group_commitment_list (sec. 4.3).
template <class S>
Bytes EncodeCommitmentList(const SigningPackage<S>& package);
// rho_input of compute_binding_factors (sec. 4.4) for one signer:
// SerializeElement(PK) || H4(msg) || H5(encoded commitment list) || SerializeScalar(i).
template <class S>
Bytes BindingFactorInput(const VerifyingKey<S>& key, const SigningPackage<S>& package,
                         const Identifier& id);
// compute_binding_factors (sec. 4.4): rho_i = H1(rho_input_i), in the package's order.
template <class S>
std::vector<ec::Scalar> BindingFactors(const VerifyingKey<S>& key,
                                       const SigningPackage<S>& package);
// compute_group_commitment (sec. 4.5): R = sum D_i + rho_i E_i.
template <class S>
typename S::Point GroupCommitment(const SigningPackage<S>& package,
                                  std::span<const ec::Scalar> binding_factors);
// compute_challenge (sec. 4.6): H2(SerializeElement(R) || SerializeElement(PK) || msg).
template <class S>
ec::Scalar Challenge(const typename S::Point& group_commitment, const VerifyingKey<S>& key,
                     ByteView message);

}  // namespace spec

// ---- Distributed key generation (Pedersen DKG with proofs of knowledge) ----
namespace dkg {

// One run of the DKG: an identifier the caller chooses, the participants and the threshold t. Every
// round-one proof of knowledge is bound to it (docs/notes/frost.md, "The ceremony"), so a round-one
// package made for one run fails its proof, blamed on its sender, in any run that differs in id,
// participant set or threshold. The id must differ between runs with the same participants and
// threshold (a fresh random value agreed before round one, or a digest of an agreed session
// description); n is the number of participants. Every participant builds the same value.
class Ceremony {
 public:
  static constexpr std::size_t kMaxIdSize = 1024;

  // Sorts the participants. kInvalidArgument for an empty id or one over kMaxIdSize bytes, a
  // repeated identifier, more than kMaxParticipants participants, or unless 2 <= min_signers <= n.
  static Result<Ceremony> Create(ByteView id, std::vector<Identifier> participants,
                                 std::uint16_t min_signers);

  const Bytes& id() const { return id_; }
  const std::vector<Identifier>& participants() const { return participants_; }  // ascending
  std::uint16_t min_signers() const { return min_signers_; }
  std::uint16_t max_signers() const { return static_cast<std::uint16_t>(participants_.size()); }
  bool Contains(const Identifier& id) const;
  // What the proofs are bound to, injectively: u16 len(id) || id || u16 t || u16 n || the n
  // identifiers ascending (32 bytes each), integers big-endian.
  Bytes Encode() const;

  friend bool operator==(const Ceremony&, const Ceremony&) = default;

 private:
  Ceremony(Bytes id, std::vector<Identifier> participants, std::uint16_t t)
      : id_(std::move(id)), participants_(std::move(participants)), min_signers_(t) {}
  Bytes id_;
  std::vector<Identifier> participants_;
  std::uint16_t min_signers_;
};

// A package as it arrived: `from` is the participant whose authenticated channel delivered it,
// which the transport knows and the package only claims. Every fault found in a package is blamed
// on `from`, so blame is only as good as the channels' authentication.
template <class P>
struct Received {
  Identifier from;
  P package;
};

// Round one broadcast of participant i: the commitment C_i = [a_i0 B, ..., a_i(t-1) B] to its
// polynomial and a Schnorr proof (R_i, mu_i) of knowledge of a_i0, with challenge
// c_i = HDKG(ctx || i || C_i0 || R_i) (ZF FROST's HDKG with the ceremony's digest
// ctx = SHA-512(contextString || "ceremony" || Ceremony::Encode()) in front).
//
// Encoding: codec header (tag "F1", version 2: version 1 proofs were bound to i only), suite byte,
// identifier (32), u16 length, the commitment elements (32 each), R_i (32), mu_i (32): 102 + 32 t
// bytes. The length is not checked against t here, so that a wrong length reaches Part2 and is
// blamed on its sender.
template <class S>
class Round1Package {
 public:
  static constexpr std::uint8_t kVersion = 2;

  static Result<Round1Package> Decode(ByteView bytes);
  Bytes Encode() const;

  const Identifier& identifier() const { return identifier_; }
  const std::vector<GroupElement<S>>& commitment() const { return commitment_; }
  const GroupElement<S>& proof_R() const { return proof_r_; }
  const ec::Scalar& proof_mu() const { return proof_mu_; }

 private:
  template <class>
  friend struct frost::Internal;
  Round1Package(const Identifier& id, std::vector<GroupElement<S>> c, const GroupElement<S>& r,
                const ec::Scalar& mu)
      : identifier_(id), commitment_(std::move(c)), proof_r_(r), proof_mu_(mu) {}
  Identifier identifier_;
  std::vector<GroupElement<S>> commitment_;
  GroupElement<S> proof_r_;
  ec::Scalar proof_mu_;
};

// Round two, sent privately from `sender` to `recipient`: f_sender(recipient). Secret.
//
// Encoding: codec header (tag "F2", version 1), suite byte, sender (32), recipient (32),
// share (32): 100 bytes, returned as SecretBytes.
template <class S>
class Round2Package {
 public:
  static Result<Round2Package> Decode(ByteView bytes);
  crypto::SecretBytes Encode() const;

  Round2Package(Round2Package&& o) noexcept;
  Round2Package& operator=(Round2Package&& o) noexcept;
  Round2Package(const Round2Package&) = delete;
  Round2Package& operator=(const Round2Package&) = delete;
  ~Round2Package() { share_.Wipe(); }

  const Identifier& sender() const { return sender_; }
  const Identifier& recipient() const { return recipient_; }
  const ec::Scalar& ExposeShare() const { return share_; }

 private:
  template <class>
  friend struct frost::Internal;
  Round2Package(const Identifier& from, const Identifier& to, const ec::Scalar& share)
      : sender_(from), recipient_(to), share_(share) {}
  Identifier sender_;
  Identifier recipient_;
  ec::Scalar share_;
};

// A participant's state between rounds one and two: its ceremony, its polynomial (secret) and its
// own commitment. Move-only; wiped on destruction and when moved from. Used once: Part2 marks it
// used whatever happens, a moved-from object is used too, and Part2 refuses a used one. No
// encoding: it lives only in the participant's memory.
template <class S>
class Round1Secret {
 public:
  Round1Secret(Round1Secret&& o) noexcept;
  Round1Secret& operator=(Round1Secret&& o) noexcept;  // wipes the polynomial it replaces
  Round1Secret(const Round1Secret&) = delete;
  Round1Secret& operator=(const Round1Secret&) = delete;
  ~Round1Secret() { Wipe(); }

  const Identifier& identifier() const { return identifier_; }
  const Ceremony& ceremony() const { return ceremony_; }
  // Whether Part2 has taken this state or it was moved from: Part2 would refuse it.
  bool used() const { return used_; }

 private:
  template <class>
  friend struct frost::Internal;
  Round1Secret(const Identifier& id, Ceremony ceremony, std::vector<ec::Scalar> coefficients,
               std::vector<GroupElement<S>> commitment)
      : identifier_(id),
        ceremony_(std::move(ceremony)),
        coefficients_(std::move(coefficients)),
        commitment_(std::move(commitment)) {}
  void Wipe();
  Identifier identifier_;
  Ceremony ceremony_;
  std::vector<ec::Scalar> coefficients_;
  std::vector<GroupElement<S>> commitment_;
  bool used_ = false;
};

// The state between rounds two and three: f_i(i) (secret), t and every participant's verified
// commitment. Move-only; wiped on destruction and when moved from. Used once, as Round1Secret:
// Part3 marks it used and refuses a used or moved-from one.
template <class S>
class Round2Secret {
 public:
  Round2Secret(Round2Secret&& o) noexcept;
  Round2Secret& operator=(Round2Secret&& o) noexcept;
  Round2Secret(const Round2Secret&) = delete;
  Round2Secret& operator=(const Round2Secret&) = delete;
  ~Round2Secret() { own_share_.Wipe(); }

  const Identifier& identifier() const { return identifier_; }
  // Whether Part3 has taken this state or it was moved from: Part3 would refuse it.
  bool used() const { return used_; }

 private:
  template <class>
  friend struct frost::Internal;
  Round2Secret(const Identifier& id, const ec::Scalar& own_share, std::uint16_t t,
               std::vector<std::pair<Identifier, std::vector<GroupElement<S>>>> commitments)
      : identifier_(id),
        own_share_(own_share),
        min_signers_(t),
        commitments_(std::move(commitments)) {}
  Identifier identifier_;
  ec::Scalar own_share_;
  std::uint16_t min_signers_;
  // Every participant's commitment (this one's included), ascending by identifier.
  std::vector<std::pair<Identifier, std::vector<GroupElement<S>>>> commitments_;
  bool used_ = false;
};

template <class S>
struct Part1Output {
  Round1Secret<S> secret;
  Round1Package<S> package;  // broadcast to every other participant
};

template <class S>
struct Part2Output {
  Round2Secret<S> secret;
  std::vector<Round2Package<S>> packages;  // one per other participant, ascending by recipient
};

template <class S>
struct Part3Output {
  KeyPackage<S> key_package;
  PublicKeyPackage<S> public_key_package;  // the same for every honest participant
};

// Round one for participant `me` of `ceremony`: a random polynomial of degree t - 1, its
// commitment and the proof of knowledge, bound to the ceremony. kInvalidArgument unless `me` is one
// of the ceremony's participants.
template <class S>
Result<Part1Output<S>> Part1(const Ceremony& ceremony, const Identifier& me);

// Round two: checks the round-one packages of the ceremony's other participants, each with the
// participant whose channel delivered it, and blames that sender: for being outside the ceremony
// (kUnknownParticipant), for a second package (kDuplicateIdentifier), for a package carrying an
// identifier other than its own (kWrongIdentifier), for a commitment of other than t elements
// (kWrongCommitmentLength), for a proof that fails, including one made for another ceremony
// (kBadProofOfKnowledge); a participant who sent nothing is named with kMissingShare. A package
// given as from this participant itself is the caller's mistake: kInvalidArgument without a
// culprit. Then computes the shares f_i(j) for everyone else. Consumes the round-one secret:
// kFailedPrecondition if it was already used or moved from.
template <class S>
FrostResult<Part2Output<S>> Part2(Round1Secret<S>&& secret,
                                  std::span<const Received<Round1Package<S>>> round1_packages);

// Round three: checks the shares sent to this participant, blaming the sender as Part2 does (for
// being outside the ceremony, a second package, a package naming another sender, one for another
// recipient (kMisaddressedShare), or a share that does not match the sender's commitment
// (kBadShare); a participant who sent nothing is named with kMissingShare), then the signing share
// sk_i = sum_j f_j(i), the group key PK = sum_j C_j0 and every participant's verifying share
// sum_k (sum_j C_jk) l^k. Consumes the round-two secret as Part2 consumes the round-one secret.
template <class S>
FrostResult<Part3Output<S>> Part3(Round2Secret<S>&& secret,
                                  std::span<const Received<Round2Package<S>>> round2_packages);

}  // namespace dkg

}  // namespace veil::zk::frost
