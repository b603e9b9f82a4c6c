// Fuzzes ring-signature decoding and verification against fixed rings of 8 keys (base 3 with two
// digits, and base 2 with three) and a fixed message. The first byte picks the ring (bit 0) and
// the mode (bit 7): the rest of the input is either the signature itself or a difference XORed
// onto a valid signature, so that the fuzzer also explores signatures that decode. No input may
// crash; what decodes must re-encode to the same bytes; single and batch verification must agree;
// only the valid signature itself may verify; a decoded key image is never the identity.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "veil/zk/ring_signature.h"

namespace {

using namespace veil;
using namespace veil::zk;

void Check(bool ok) {
  if (!ok) std::abort();
}

constexpr std::string_view kMessage = "fixed message";

struct Fixture {
  Ring ring;
  Bytes valid;
};

Fixture Make(std::size_t base) {
  const RingSigningKey key =
      std::move(RingSigningKey::FromBytes(ec::Scalar::FromUint64(0xfeed).ToBytes())).value();
  std::vector<ec::RistrettoPoint> keys;
  for (std::uint64_t k = 0; k < 8; ++k)
    keys.push_back(ec::BasepointMul(ec::Scalar::FromUint64(7 + k)));
  keys[2] = key.public_key();
  Ring ring = std::move(Ring::FromPoints(keys, base)).value();
  Bytes valid = std::move(RingSign(key, ring, AsBytes(kMessage))).value().Encode();
  return {std::move(ring), std::move(valid)};
}

const std::array<Fixture, 2>& Fixtures() {
  static const std::array<Fixture, 2> f = {Make(0), Make(2)};
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Fixture& fx = Fixtures()[data[0] & 1];
  const ByteView in(data + 1, size - 1);
  Bytes bytes(in.begin(), in.end());
  if ((data[0] & 0x80) != 0) {
    bytes = fx.valid;
    for (std::size_t i = 0; i < std::min(in.size(), bytes.size()); ++i) bytes[i] ^= in[i];
  }
  auto sig = RingSignature::Decode(bytes, fx.ring.params());
  if (!sig.ok()) {
    Check(sig.status().code() == Code::kInvalidArgument);
    return 0;
  }
  Check(sig->Encode() == bytes);
  Check(!sig->key_image().point().IsIdentity());

  const Status single = RingVerify(fx.ring, AsBytes(kMessage), *sig);
  Check(single.ok() == (bytes == fx.valid));
  Check(single.ok() || single.code() == Code::kVerificationFailed);

  const RingBatchItem item{&fx.ring, AsBytes(kMessage), &*sig};
  Check(RingBatchVerify(std::span<const RingBatchItem>(&item, 1)).ok() == single.ok());
  return 0;
}
