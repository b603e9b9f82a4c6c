// Shamir split and combine over GF(2^8) (see shamir.h; math, security argument and byte format in
// docs/notes/shamir.md, whose names this file uses: S the secret, K the check key, T the tag,
// V = S || K || T the shared vector, a_k the coefficient vectors, x a share index, y = V(x)).
#include "veil/crypto/shamir.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "gf256.h"
#include "veil/base/codec.h"
#include "veil/base/consttime.h"
#include "veil/base/status.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/random.h"

namespace veil::crypto {
namespace {

// Domain separation for the tag; a new format version gets a new label.
constexpr std::string_view kTagLabel = "veil.shamir.v1";

// A zero-initialised, wiped array of 64-bit words: the SWAR view of byte vectors. Byte vectors
// occupy whole words; the bytes past their end stay zero, and since no operation moves data
// between bytes, they stay zero and never reach an output. Small arrays (a split or combine of a
// key-sized secret) live inside the object, saving an allocation on the hot path.
class SecretWords {
 public:
  explicit SecretWords(std::size_t n) : size_(n) {
    if (n <= inline_.size()) {
      data_ = inline_.data();
      std::fill_n(data_, n, std::uint64_t{0});
    } else {
      heap_.reset(new std::uint64_t[n]());
      data_ = heap_.get();
    }
  }
  ~SecretWords() { SecureWipe(data_, size_ * sizeof(std::uint64_t)); }
  SecretWords(const SecretWords&) = delete;
  SecretWords& operator=(const SecretWords&) = delete;

  std::uint64_t* words(std::size_t offset) { return data_ + offset; }
  // Bytes may alias any object, so the words can be filled and read as bytes.
  std::uint8_t* bytes(std::size_t word_offset) {
    return reinterpret_cast<std::uint8_t*>(data_ + word_offset);
  }

 private:
  std::array<std::uint64_t, 128> inline_;
  std::unique_ptr<std::uint64_t[]> heap_;
  std::uint64_t* data_;
  std::size_t size_;
};

constexpr std::size_t WordsFor(std::size_t n) { return (n + 7) / 8; }

// T = SHA-256(label || split id || t || K || S), first kShamirTagSize bytes. Every field but the
// last has a fixed length, so the input parses one way. K makes T unpredictable even when S is
// guessable (see the notes).
void ComputeTag(const ShamirSplitId& split_id, std::uint8_t threshold, ByteView check_key,
                ByteView secret, MutableByteView tag) {
  const std::size_t size =
      kTagLabel.size() + split_id.size() + 1 + check_key.size() + secret.size();
  // Short secrets (the usual keys) are hashed from the stack, saving an allocation per call.
  std::array<std::uint8_t, 256> small;
  SecretBytes large(size > small.size() ? size : 0);
  std::uint8_t* const input = size > small.size() ? large.ExposeMutable().data() : small.data();
  std::uint8_t* p = input;
  std::memcpy(p, kTagLabel.data(), kTagLabel.size());
  p += kTagLabel.size();
  std::memcpy(p, split_id.data(), split_id.size());
  p += split_id.size();
  *p++ = threshold;
  std::memcpy(p, check_key.data(), check_key.size());
  p += check_key.size();
  std::memcpy(p, secret.data(), secret.size());
  Sha256Digest digest;
  Hash(HashAlg::kSha256, ByteView(input, size), digest);
  std::memcpy(tag.data(), digest.data(), kShamirTagSize);
  SecureWipe(digest.data(), digest.size());
  SecureWipe(small.data(), std::min(size, small.size()));
}

// Lagrange basis polynomials of the nodes xs at each of `points`:
//   out[p * t + i] = L_i(z_p) = prod_{m != i} (z_p - x_m) / (x_i - x_m) = N(z_p) / E_{p,i}
// with N(z) = prod_m (z - x_m), D_i = prod_{m != i} (x_i - x_m) and E_{p,i} = (z_p - x_i) D_i.
// Subtraction is XOR. The nodes are distinct and no point is a node, so no E is zero. All the E
// are inverted with one field inversion (Montgomery's trick), the inversion being the longest
// chain of dependent steps here. `scratch` holds t * points.size() bytes. Everything is public
// (share indices); it still runs without branches on the values.
void LagrangeCoefficients(std::span<const std::uint8_t> xs, std::span<const std::uint8_t> points,
                          std::uint8_t* out, std::uint8_t* scratch) {
  const std::size_t t = xs.size();
  const std::size_t count = t * points.size();
  std::array<std::uint8_t, kShamirMaxShares> d;  // first t entries used
  for (std::size_t i = 0; i < t; ++i) {
    std::uint8_t product = 1;
    for (std::size_t m = 0; m < t; ++m) {
      if (m != i) product = gf256::Mul(product, static_cast<std::uint8_t>(xs[i] ^ xs[m]));
    }
    d[i] = product;
  }
  // out[k] = E_k, scratch[k] = E_0 * ... * E_k.
  std::uint8_t running = 1;
  for (std::size_t p = 0; p < points.size(); ++p) {
    for (std::size_t i = 0; i < t; ++i) {
      const std::size_t k = p * t + i;
      out[k] = gf256::Mul(static_cast<std::uint8_t>(points[p] ^ xs[i]), d[i]);
      running = gf256::Mul(running, out[k]);
      scratch[k] = running;
    }
  }
  // Walking back, inv = (E_0 * ... * E_k)^-1, so E_k^-1 = inv * (E_0 * ... * E_{k-1}).
  std::uint8_t inv = gf256::Inv(running);
  for (std::size_t k = count; k-- > 0;) {
    const std::uint8_t e = out[k];
    out[k] = k == 0 ? inv : gf256::Mul(inv, scratch[k - 1]);
    inv = gf256::Mul(inv, e);
  }
  for (std::size_t p = 0; p < points.size(); ++p) {
    std::uint8_t n = 1;
    for (std::size_t m = 0; m < t; ++m) {
      n = gf256::Mul(n, static_cast<std::uint8_t>(points[p] ^ xs[m]));
    }
    for (std::size_t i = 0; i < t; ++i) out[p * t + i] = gf256::Mul(n, out[p * t + i]);
  }
}

}  // namespace

Result<std::vector<ShamirShare>> ShamirSplit(const SecretBytes& secret, std::size_t threshold,
                                             std::size_t share_count) {
  return ShamirSplit(secret, threshold, share_count, [](MutableByteView out) { RandomBytes(out); });
}

Result<std::vector<ShamirShare>> ShamirSplit(const SecretBytes& secret, std::size_t threshold,
                                             std::size_t share_count,
                                             const ShamirRandomFn& random) {
  VEIL_CHECK_MSG(random != nullptr, "ShamirSplit needs a source of randomness");
  if (secret.empty()) return InvalidArgument("secret to split is empty");
  if (secret.size() > kShamirMaxSecretSize) {
    return InvalidArgument("secret to split is longer than " +
                           std::to_string(kShamirMaxSecretSize) + " bytes");
  }
  if (threshold < 1) return InvalidArgument("threshold must be at least 1");
  if (share_count < threshold) return InvalidArgument("fewer shares than the threshold");
  if (share_count > kShamirMaxShares) {
    return InvalidArgument("at most " + std::to_string(kShamirMaxShares) + " shares");
  }
  const auto t = static_cast<std::uint8_t>(threshold);
  const std::size_t secret_size = secret.size();
  const std::size_t value_size = secret_size + kShamirValueOverhead;
  const std::size_t words = WordsFor(value_size);

  // One call, in the documented order: split id, K, then a_1 .. a_{t-1}.
  SecretBytes randomness(kShamirSplitIdSize + kShamirCheckKeySize + (threshold - 1) * value_size);
  random(randomness.ExposeMutable());
  const std::uint8_t* rnd = randomness.Expose().data();
  ShamirSplitId split_id;
  std::memcpy(split_id.data(), rnd, kShamirSplitIdSize);
  // The split id goes in clear into every header: public from here on.
  VEIL_DECLASSIFY(split_id.data(), split_id.size());
  rnd += kShamirSplitIdSize;

  // Rows 0 .. t-1 hold a_0 .. a_{t-1} (a_0 = V = S || K || T); rows t .. t+n-1 the values y_x.
  SecretWords work((threshold + share_count) * words);
  std::uint8_t* v = work.bytes(0);
  std::memcpy(v, secret.Expose().data(), secret_size);
  std::memcpy(v + secret_size, rnd, kShamirCheckKeySize);
  rnd += kShamirCheckKeySize;
  ComputeTag(split_id, t, ByteView(v + secret_size, kShamirCheckKeySize), ByteView(v, secret_size),
             MutableByteView(v + secret_size + kShamirCheckKeySize, kShamirTagSize));
  for (std::size_t k = 1; k < threshold; ++k) {
    std::memcpy(work.bytes(k * words), rnd, value_size);
    rnd += value_size;
  }

  // y_x = a_0 + sum_k a_k x^k for x = 1..n: each coefficient meets all n powers x^k in one pass.
  const std::size_t ys = threshold * words;
  for (std::size_t j = 0; j < share_count; ++j) {
    std::memcpy(work.words(ys + j * words), work.words(0), words * sizeof(std::uint64_t));
  }
  std::array<std::uint8_t, kShamirMaxShares> powers;  // x^k for the first n x, public
  for (std::size_t j = 0; j < share_count; ++j) powers[j] = static_cast<std::uint8_t>(j + 1);
  for (std::size_t k = 1; k < threshold; ++k) {
    gf256::MulAccMany(work.words(k * words), words, powers.data(), share_count, work.words(ys));
    for (std::size_t j = 0; j < share_count; ++j) {
      powers[j] = gf256::Mul(powers[j], static_cast<std::uint8_t>(j + 1));
    }
  }

  std::vector<ShamirShare> shares;
  shares.reserve(share_count);
  for (std::size_t j = 0; j < share_count; ++j) {
    shares.push_back(
        ShamirShare(t, static_cast<std::uint8_t>(j + 1), split_id,
                    SecretBytes::CopyFrom(ByteView(work.bytes(ys + j * words), value_size))));
  }
  return shares;
}

Result<SecretBytes> ShamirCombine(std::span<const ShamirShare> shares) {
  if (shares.empty()) return InvalidArgument("no shares to combine");
  const ShamirShare& first = shares[0];
  std::bitset<256> seen;
  for (const ShamirShare& share : shares) {
    VEIL_CHECK_MSG(share.y().size() > kShamirValueOverhead, "combining a moved-from ShamirShare");
    if (share.split_id() != first.split_id()) {
      return InvalidArgument("shares come from different splits");
    }
    if (share.threshold() != first.threshold()) {
      return InvalidArgument("shares of one split disagree on the threshold");
    }
    if (share.y().size() != first.y().size()) {
      return InvalidArgument("shares of one split disagree on the secret length");
    }
    if (seen.test(share.index())) {
      return InvalidArgument("share index " + std::to_string(share.index()) + " given twice");
    }
    seen.set(share.index());
  }
  const std::size_t t = first.threshold();
  if (shares.size() < t) {
    return InvalidArgument("need at least " + std::to_string(t) + " shares to combine, got " +
                           std::to_string(shares.size()));
  }
  const std::size_t value_size = first.y().size();
  const std::size_t secret_size = value_size - kShamirValueOverhead;
  const std::size_t words = WordsFor(value_size);

  // Interpolate from the first t shares at 0 (giving V) and at the index of every further share
  // (giving what that share must hold if it lies on the same polynomials).
  const std::size_t point_count = 1 + shares.size() - t;
  std::array<std::uint8_t, kShamirMaxShares> xs;          // first t entries used
  std::array<std::uint8_t, kShamirMaxShares + 1> points;  // first point_count used
  points[0] = 0;
  for (std::size_t i = 0; i < t; ++i) xs[i] = shares[i].index();
  for (std::size_t p = 1; p < point_count; ++p) points[p] = shares[t + p - 1].index();
  // A point_count x t matrix and as much scratch space; the common small case lives on the stack.
  const std::size_t lagrange_size = t * point_count;
  std::array<std::uint8_t, 512> lagrange_small;
  std::vector<std::uint8_t> lagrange_large;
  std::uint8_t* lagrange = lagrange_small.data();
  if (2 * lagrange_size > lagrange_small.size()) {
    lagrange_large.resize(2 * lagrange_size);
    lagrange = lagrange_large.data();
  }
  LagrangeCoefficients(std::span(xs.data(), t), std::span(points.data(), point_count), lagrange,
                       lagrange + lagrange_size);

  // The first point_count rows receive the interpolated values; the t rows after them hold y_i.
  SecretWords work((point_count + t) * words);
  const std::size_t y_rows = point_count * words;
  for (std::size_t i = 0; i < t; ++i) {
    std::memcpy(work.bytes(y_rows + i * words), shares[i].y().Expose().data(), value_size);
  }
  for (std::size_t p = 0; p < point_count; ++p) {
    gf256::DotAcc(work.words(y_rows), words, &lagrange[p * t], t, work.words(p * words));
  }

  const std::uint8_t* v = work.bytes(0);
  const ByteView s(v, secret_size);
  const ByteView check_key(v + secret_size, kShamirCheckKeySize);
  const ByteView tag(v + secret_size + kShamirCheckKeySize, kShamirTagSize);
  std::array<std::uint8_t, kShamirTagSize> expected_tag;
  ComputeTag(first.split_id(), first.threshold(), check_key, s, expected_tag);
  // Fold every comparison in without branching, so the time does not tell which check failed.
  auto good = static_cast<unsigned>(ConstantTimeEquals(expected_tag, tag));
  for (std::size_t p = 1; p < point_count; ++p) {
    good &= static_cast<unsigned>(ConstantTimeEquals(ByteView(work.bytes(p * words), value_size),
                                                     shares[t + p - 1].y().Expose()));
  }
  SecureWipe(expected_tag.data(), expected_tag.size());
  // Whether the shares were consistent is the one fact combine tells its caller: public here.
  VEIL_DECLASSIFY(&good, sizeof(good));
  if (good != 1) return VerificationFailed();
  return SecretBytes::CopyFrom(s);
}

Result<ShamirShare> ShamirShare::Decode(ByteView encoded) {
  Reader r(encoded);
  r.Header(kShamirShareTag, kShamirShareVersion);
  const std::uint8_t t = r.U8();
  if (r.ok() && t == 0) r.Fail("share threshold must be at least 1");
  const std::uint8_t x = r.U8();
  if (r.ok() && x == 0) r.Fail("share index must not be 0 (x = 0 is where the secret sits)");
  ShamirSplitId split_id;
  r.Fixed(split_id);
  const ByteView y = r.VarBytes(kShamirMaxSecretSize + kShamirValueOverhead);
  if (r.ok() && y.size() <= kShamirValueOverhead) {
    r.Fail("share value must be longer than " + std::to_string(kShamirValueOverhead) + " bytes");
  }
  VEIL_RETURN_IF_ERROR(r.Finish());
  return ShamirShare(t, x, split_id, SecretBytes::CopyFrom(y));
}

SecretBytes ShamirShare::Encode() const {
  Writer header(kShamirShareTag, kShamirShareVersion);
  header.U8(threshold_).U8(index_).Fixed(split_id_).Varint(y_.size());
  const Bytes& h = header.bytes();
  SecretBytes out(h.size() + y_.size());
  std::uint8_t* p = out.ExposeMutable().data();
  std::memcpy(p, h.data(), h.size());
  std::memcpy(p + h.size(), y_.Expose().data(), y_.size());
  return out;
}

}  // namespace veil::crypto
