// Fuzzes one-of-many proof decoding and verification against fixed sets (3 members in one digit,
// 8 in two, 5 in base 2 with three digits and padding). The first byte picks the set (low bits)
// and the mode (bit 7): the rest of the input is either the proof itself or a difference XORed
// onto a valid proof, so that the fuzzer also explores proofs that decode. No input may crash;
// what decodes must re-encode to the same bytes; single and batch verification must agree; and
// only the valid proof itself may verify.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "veil/zk/one_of_many.h"
#include "veil/zk/pedersen.h"

namespace {

using namespace veil;
using namespace veil::zk;

void Check(bool ok) {
  if (!ok) std::abort();
}

Transcript Context() {
  Transcript t("veil.fuzz.one-of-many", 1);
  t.AppendMessage("ctx", AsBytes("fixed"));
  return t;
}

struct Fixture {
  OneOfManySet set;
  Bytes valid;
};

Fixture Make(std::size_t N, std::size_t base, std::size_t l) {
  std::vector<ec::RistrettoPoint> members;
  for (std::size_t k = 0; k < N; ++k) {
    members.push_back(ec::BasepointMul(ec::Scalar::FromUint64(1000 + k)));
  }
  const ec::Scalar r = ec::Scalar::FromUint64(0x5eed);
  members[l] = r * PedersenGens::Default().H();
  OneOfManySet set = std::move(OneOfManySet::FromPoints(members, base)).value();
  Transcript t = Context();
  Bytes valid = std::move(OneOfManyProve(t, set, l, r)).value().Encode();
  return {std::move(set), std::move(valid)};
}

const std::array<Fixture, 3>& Fixtures() {
  static const std::array<Fixture, 3> f = {Make(3, 0, 1), Make(8, 0, 6), Make(5, 2, 4)};
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Fixture& fx = Fixtures()[data[0] % 3];
  const ByteView in(data + 1, size - 1);
  Bytes bytes(in.begin(), in.end());
  if ((data[0] & 0x80) != 0) {
    bytes = fx.valid;
    for (std::size_t i = 0; i < std::min(in.size(), bytes.size()); ++i) bytes[i] ^= in[i];
  }
  auto proof = OneOfManyProof::Decode(bytes, fx.set.params());
  if (!proof.ok()) {
    Check(proof.status().code() == Code::kInvalidArgument);
    return 0;
  }
  const Bytes again = proof->Encode();
  Check(again == bytes);

  Transcript t1 = Context();
  const Status single = OneOfManyVerify(t1, fx.set, *proof);
  // Only the valid proof may verify: anything else accepted would be a forgery.
  Check(single.ok() == (bytes == fx.valid));
  Check(single.ok() || single.code() == Code::kVerificationFailed);

  OneOfManyBatchVerifier batch;
  Transcript t2 = Context();
  Check(batch.Add(t2, fx.set, *proof).ok());
  Check(batch.Verify().ok() == single.ok());
  return 0;
}
