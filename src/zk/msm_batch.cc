// Internal: the batch-verification accumulator (msm_batch.h).
#include "msm_batch.h"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "veil/crypto/random.h"

namespace veil::zk::internal {

static_assert(crypto_shorthash_KEYBYTES == 16 && crypto_shorthash_BYTES == 8);

std::size_t MsmBatch::KeyedHash::operator()(const ec::CompressedRistretto::Bytes& b) const {
  std::array<std::uint8_t, crypto_shorthash_BYTES> out;
  crypto_shorthash(out.data(), b.data(), b.size(), key.data());
  std::uint64_t h;
  std::memcpy(&h, out.data(), sizeof h);
  return static_cast<std::size_t>(h);
}

namespace {

std::array<std::uint8_t, 16> FreshKey() {
  std::array<std::uint8_t, 16> key;
  crypto::RandomBytes(key);
  return key;
}

}  // namespace

MsmBatch::MsmBatch() : shared_(0, KeyedHash{FreshKey()}) {}

ec::Scalar RandomWeight128() {
  std::array<std::uint8_t, 32> b{};
  crypto::RandomBytes(std::span<std::uint8_t>(b.data(), 16));
  return ec::Scalar::FromBytesModOrder(b);
}

const ec::CompressedRistretto& BasepointEncoding() {
  static const ec::CompressedRistretto enc = ec::RistrettoPoint::Generator().Encode();
  return enc;
}

void MsmBatch::AddShared(const ec::CompressedRistretto& encoding, const ec::RistrettoPoint& point,
                         const ec::Scalar& s) {
  auto [it, inserted] = shared_.try_emplace(encoding.bytes(), points_.size());
  if (inserted) {
    Add(point, s);
  } else {
    scalars_[it->second] += s;
  }
}

void MsmBatch::Add(const ec::RistrettoPoint& point, const ec::Scalar& s) {
  scalars_.push_back(s);
  points_.push_back(point);
}

bool MsmBatch::IsIdentityVartime() const {
  return ec::MultiScalarMulVartime(scalars_, points_).IsIdentity();
}

std::size_t MsmBatch::SharedHash(const ec::CompressedRistretto& encoding) const {
  return shared_.hash_function()(encoding.bytes());
}

std::size_t MsmBatch::LongestSharedBucket() const {
  std::size_t longest = 0;
  for (std::size_t b = 0; b < shared_.bucket_count(); ++b) {
    longest = std::max(longest, shared_.bucket_size(b));
  }
  return longest;
}

}  // namespace veil::zk::internal
