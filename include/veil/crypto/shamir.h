// Shamir t-of-n secret sharing over GF(2^8), with shares that detect corruption and mix-ups.
//
// ShamirSplit cuts a secret of 1 byte to 64 KiB into n shares (1 <= t <= n <= 255) such that any t
// of them give the secret back and any t - 1 reveal nothing about it, not even to an unbounded
// adversary. Each byte is shared with its own random polynomial of degree t - 1 whose constant
// term is that byte; share x holds the polynomials' values at x. Besides the secret S, the shared
// vector carries a random 16-byte check key K and a 16-byte tag T = SHA-256(label, split id, t, K,
// S) truncated. Every share of one split also carries the same public random split id, so shares
// of different splits are told apart with a clear error. t = 1 is allowed: every share is then a
// copy of S || K || T (replication, for callers that want one code path for any threshold).
// docs/notes/shamir.md has the math, the security argument and the byte format.
//
// What is detected (ShamirCombine refuses and returns no secret, never a wrong one): accidental
// corruption of any share; a mixture of shares from different splits (even under a rewritten or
// colliding split id); a changed header (index, threshold, length); and any change made by someone
// who does not know every share that combine uses, since at least one unknown share leaves K
// unpredictable (about 2^-128 to pass). Headers that disagree are InvalidArgument, the rest
// VerificationFailed. K also keeps a short, guessable secret from being confirmed by someone who
// alters a share and watches whether combining succeeds. With more than t shares, every extra share
// must lie on the same polynomials.
//
// What is not detected: the tag has no key outside the split, so it proves consistency, not
// origin. Whoever knows all t shares that combine uses can make them interpolate to any secret
// with a valid tag: by dealing a fresh set (the public split id, t and length copied from a
// header), or by computing the last share to fit t - 1 genuine ones they hold. ShamirCombine then
// returns the forger's secret. A caller that combines shares from parties it does not trust must
// authenticate them (a signature or MAC by the dealer under a key outside the split, or a
// commitment to the secret kept elsewhere), or add one genuine share the forger has not seen as an
// extra share beyond the t.
//
// Constant time: the arithmetic on secrets has no table lookup and no branch on secret data; the
// share indices, the threshold, the number of shares and the secret's length are public.
//
// Thread safety: the functions are safe from any thread; a ShamirShare is a move-only value.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

inline constexpr std::size_t kShamirMaxSecretSize = 64 * 1024;
inline constexpr std::size_t kShamirMaxShares = 255;  // indices are the nonzero field elements
inline constexpr std::size_t kShamirSplitIdSize = 8;
inline constexpr std::size_t kShamirCheckKeySize = 16;
inline constexpr std::size_t kShamirTagSize = 16;
// A share's value y is this much longer than the secret: y holds S || K || T.
inline constexpr std::size_t kShamirValueOverhead = kShamirCheckKeySize + kShamirTagSize;
// The codec structure tag ("SH") and version of an encoded share.
inline constexpr std::uint16_t kShamirShareTag = 0x5348;
inline constexpr std::uint8_t kShamirShareVersion = 1;

using ShamirSplitId = std::array<std::uint8_t, kShamirSplitIdSize>;

// Fills its whole argument with uniform random bytes that nobody else sees.
using ShamirRandomFn = std::function<void(MutableByteView)>;

// One share: the public header (threshold t, index x, split id) and the secret value y. Made only
// by ShamirSplit or Decode; a moved-from share may only be assigned to or destroyed.
class ShamirShare {
 public:
  // Strict and canonical: a wrong structure tag or version, t = 0, x = 0, a value shorter than
  // kShamirValueOverhead + 1 or longer than kShamirMaxSecretSize + kShamirValueOverhead, a
  // non-minimal length, a truncated buffer or trailing bytes are InvalidArgument. Decode(Encode(s))
  // gives s back and Encode(Decode(b)) == b.
  static Result<ShamirShare> Decode(ByteView encoded);

  // The share's bytes (format in docs/notes/shamir.md). They hold y, so they are a secret of their
  // own (with t = 1 they contain the secret itself) and come back as SecretBytes.
  SecretBytes Encode() const;

  ShamirShare(ShamirShare&&) noexcept = default;
  ShamirShare& operator=(ShamirShare&&) noexcept = default;
  ShamirShare(const ShamirShare&) = delete;
  ShamirShare& operator=(const ShamirShare&) = delete;
  ShamirShare Clone() const { return ShamirShare(threshold_, index_, split_id_, y_.Clone()); }

  std::uint8_t threshold() const { return threshold_; }
  std::uint8_t index() const { return index_; }  // x, in 1..255
  const ShamirSplitId& split_id() const { return split_id_; }
  std::size_t secret_size() const { return y_.size() - kShamirValueOverhead; }
  // The value at x of the sharing polynomials of S || K || T.
  const SecretBytes& y() const { return y_; }

 private:
  ShamirShare(std::uint8_t threshold, std::uint8_t index, const ShamirSplitId& split_id,
              SecretBytes y)
      : threshold_(threshold), index_(index), split_id_(split_id), y_(std::move(y)) {}

  friend Result<std::vector<ShamirShare>> ShamirSplit(const SecretBytes&, std::size_t, std::size_t,
                                                      const ShamirRandomFn&);

  std::uint8_t threshold_;
  std::uint8_t index_;
  ShamirSplitId split_id_;
  SecretBytes y_;
};

// Splits `secret` into `share_count` shares, any `threshold` of which recover it. Share i (0-based)
// has index x = i + 1. InvalidArgument if the secret is empty or longer than kShamirMaxSecretSize,
// or unless 1 <= threshold <= share_count <= kShamirMaxShares.
Result<std::vector<ShamirShare>> ShamirSplit(const SecretBytes& secret, std::size_t threshold,
                                             std::size_t share_count);

// As above with the caller's randomness instead of the system CSPRNG, for known-answer tests and
// repeatable checks; `random` is called once, for kShamirSplitIdSize + kShamirCheckKeySize +
// (threshold - 1) * (secret.size() + kShamirValueOverhead) bytes (their order is in the notes). The
// shares are only as secret as those bytes: production code uses the overload above.
Result<std::vector<ShamirShare>> ShamirSplit(const SecretBytes& secret, std::size_t threshold,
                                             std::size_t share_count, const ShamirRandomFn& random);

// Recovers the secret from at least `threshold` shares of one split, in any order.
//   InvalidArgument: no shares; shares of different splits; shares that disagree on the threshold
//     or the length; a repeated index; fewer shares than the threshold (all public facts).
//   VerificationFailed: the first `threshold` shares do not reconstruct a secret whose tag checks,
//     or a further share does not lie on the same polynomials. Nothing is returned then: a wrong
//     secret is never handed out. A consistent set forged in full is not noticed (see above).
Result<SecretBytes> ShamirCombine(std::span<const ShamirShare> shares);

}  // namespace veil::crypto
