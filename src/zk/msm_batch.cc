// Internal: the batch-verification accumulator (msm_batch.h).
#include "msm_batch.h"

#include <array>

#include "veil/crypto/random.h"

namespace veil::zk::internal {

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

}  // namespace veil::zk::internal
