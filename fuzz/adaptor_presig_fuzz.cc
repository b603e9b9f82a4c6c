// Fuzzes the adaptor pre-signature decoder and the pre-signature checks against a fixed key,
// message and adaptor point T = t B. No input may crash; a pre-signature that decodes re-encodes
// to the same bytes; PreVerify accepts exactly when the adapted signature verifies (the two
// equations are equivalent); Extract from the adapted signature returns t; and nothing the fuzzer
// makes passes PreVerify.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "veil/zk/adaptor.h"

namespace {

using namespace veil;
using namespace veil::zk;

void Check(bool ok) {
  if (!ok) std::abort();
}

struct Fixed {
  SchnorrSigningKey key =
      std::move(SchnorrSigningKey::FromBytes(ec::Scalar::FromUint64(0xabcd).ToBytes())).value();
  ec::Scalar t = ec::Scalar::FromUint64(0x1234);
  ec::RistrettoPoint T = ec::BasepointMul(t);
};

const Fixed& F() {
  static const Fixed f;
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView in(data, size);
  const std::size_t pre_len = std::min<std::size_t>(size, kAdaptorPreSignatureSize);
  const ByteView msg = in.subspan(pre_len);
  auto pre = AdaptorPreSignature::Decode(in.first(pre_len));
  if (!pre.ok()) {
    Check(pre.status().code() == Code::kInvalidArgument);
    return 0;
  }
  const auto enc = pre->Encode();
  Check(std::equal(enc.begin(), enc.end(), in.begin()));

  const Status pv = AdaptorPreVerify(F().key.public_key(), msg, F().T, *pre);
  Check(pv.code() == Code::kVerificationFailed);
  const SchnorrSignature sig = AdaptorAdapt(*pre, F().t);
  Check(SchnorrVerify(F().key.public_key(), msg, sig).code() == Code::kVerificationFailed);
  auto t = AdaptorExtract(sig, *pre, F().T);
  Check(t.ok() && *t == F().t);
  return 0;
}
