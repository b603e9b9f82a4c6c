// Fuzzes the Shamir share decoder and combine with arbitrary bytes.
//
// 1. The whole input is decoded as one share; a share that decodes must re-encode to exactly the
//    input (the encoding is canonical).
// 2. The input is cut into pieces, each prefixed by a one-byte length, and every piece that decodes
//    goes to ShamirCombine, which must return a secret of the shares' length or an error, and never
//    crash, whatever mixture of thresholds, indices, split ids and lengths it receives.
// 3. The first bytes also choose a small split (t, n, secret) that must round-trip through
//    encode, decode and combine, with the rest of the input as the "randomness".
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "veil/crypto/shamir.h"

namespace {

using veil::ByteView;
using veil::crypto::SecretBytes;
using veil::crypto::ShamirShare;

void Check(bool ok) {
  if (!ok) std::abort();
}

void DecodeWhole(ByteView in) {
  auto share = ShamirShare::Decode(in);
  if (!share.ok()) return;
  const SecretBytes again = share->Encode();
  Check(again.size() == in.size());
  Check(std::memcmp(again.Expose().data(), in.data(), in.size()) == 0);
}

void CombinePieces(ByteView in) {
  std::vector<ShamirShare> shares;
  std::size_t pos = 0;
  while (pos < in.size() && shares.size() < 8) {
    const std::size_t len = std::min<std::size_t>(in[pos], in.size() - pos - 1);
    auto share = ShamirShare::Decode(in.subspan(pos + 1, len));
    if (share.ok()) shares.push_back(std::move(share).value());
    pos += 1 + len;
  }
  if (shares.empty()) return;
  auto secret = veil::crypto::ShamirCombine(shares);
  if (secret.ok()) Check(secret->size() == shares[0].secret_size());
}

void RoundTrip(ByteView in) {
  if (in.size() < 3) return;
  const std::size_t t = 1 + in[0] % 6;
  const std::size_t n = t + in[1] % 4;
  const std::size_t len = 1 + in[2] % 40;
  SecretBytes secret(len);
  for (std::size_t i = 0; i < len; ++i) secret.ExposeMutable()[i] = static_cast<std::uint8_t>(i);
  const ByteView rest = in.subspan(3);
  auto shares = veil::crypto::ShamirSplit(secret, t, n, [rest](veil::MutableByteView out) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = rest.empty() ? static_cast<std::uint8_t>(i) : rest[i % rest.size()];
    }
  });
  Check(shares.ok());
  std::vector<ShamirShare> decoded;
  for (std::size_t i = n - t; i < n; ++i) {  // the last t shares
    auto d = ShamirShare::Decode((*shares)[i].Encode().Expose());
    Check(d.ok());
    decoded.push_back(std::move(d).value());
  }
  auto back = veil::crypto::ShamirCombine(decoded);
  Check(back.ok() && back->ConstantTimeEquals(secret));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView in(data, size);
  DecodeWhole(in);
  CombinePieces(in);
  RoundTrip(in);
  return 0;
}
