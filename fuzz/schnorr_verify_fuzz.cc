// Fuzzes Schnorr signature and public-key decoding and verification: the first byte picks a fixed
// public key or takes the key from the input, then 64 bytes of signature, the rest is the message.
// No input may crash; what decodes must re-encode to the same bytes; single and batch
// verification must agree; nothing the fuzzer makes may verify under the fixed key.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "veil/zk/schnorr.h"

namespace {

using namespace veil;
using namespace veil::zk;

void Check(bool ok) {
  if (!ok) std::abort();
}

const SchnorrSigningKey& FixedKey() {
  static const SchnorrSigningKey key =
      std::move(SchnorrSigningKey::FromBytes(ec::Scalar::FromUint64(0xfeed).ToBytes())).value();
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  ByteView in(data + 1, size - 1);
  const bool fixed_key = (data[0] & 1) == 0;
  ByteView pk_bytes = FixedKey().public_key().encoding().bytes();
  if (!fixed_key) {
    if (in.size() < 32) return 0;
    pk_bytes = in.first(32);
    in = in.subspan(32);
  }
  const std::size_t sig_len = std::min<std::size_t>(in.size(), 64);
  const ByteView sig_bytes = in.first(sig_len);
  const ByteView msg = in.subspan(sig_len);

  const Status direct = SchnorrVerify(pk_bytes, msg, sig_bytes);
  Check(direct.ok() || direct.code() == Code::kInvalidArgument ||
        direct.code() == Code::kVerificationFailed);

  auto pk = SchnorrPublicKey::Decode(pk_bytes);
  auto sig = SchnorrSignature::Decode(sig_bytes);
  if (!pk.ok() || !sig.ok()) {
    Check(direct.code() == Code::kInvalidArgument);
    return 0;
  }
  Check(std::equal(pk->Encode().begin(), pk->Encode().end(), pk_bytes.begin()));
  const auto enc = sig->Encode();
  Check(std::equal(enc.begin(), enc.end(), sig_bytes.begin()));
  if (fixed_key) Check(!direct.ok());  // a forgery under our key would be a break

  const SchnorrBatchItem item{&*pk, msg, &*sig};
  const Status batch = SchnorrBatchVerify(std::span<const SchnorrBatchItem>(&item, 1));
  Check(batch.ok() == direct.ok());
  return 0;
}
