// Constant-time check for Bulletproofs range proving (zk/bulletproofs.h): one 8-bit and one 64-bit
// proof, with the values and the blindings marked undefined. Everything the prover derives from
// them (bits, nonces, the polynomial coefficients, the inner-product vectors) stays undefined until
// the library declassifies what the proof publishes (the commitments, A, S, T_1, T_2, t_hat, tau_x,
// mu, each L and R, a and b) and the one verdict "every value in range"; memcheck reports any
// branch or memory index on the rest. Two values per width test both extremes of the bit pattern.
#include <vector>

#include "ctime.h"
#include "veil/zk/bulletproofs.h"
#include "veil/zk/transcript.h"

namespace veil::zk {
namespace {

using ctime::Classify;
using ctime::Declassify;

void ProveWithSecrets(std::size_t n, std::vector<ec::Scalar> values) {
  std::vector<ec::Scalar> blindings;
  for (std::size_t j = 0; j < values.size(); ++j) blindings.push_back(ec::Scalar::Random());
  Classify(values.data(), values.size() * sizeof(ec::Scalar));
  Classify(blindings.data(), blindings.size() * sizeof(ec::Scalar));
  Transcript t("veil.ctime", 1);
  auto out = ProveRange(t, n, values, blindings);
  Bytes proof = out->proof.Encode();
  Declassify(proof.data(), proof.size());
  for (const Commitment& c : out->commitments) {
    ec::CompressedRistretto e = c.Encode();
    Declassify(&e, sizeof e);
  }
}

VEIL_CTIME_CHECK(BulletproofsProve) {
  // 8 bits, one proof for 0 and 255 aggregated (m = 2); 64 bits, one value with mixed bits.
  ProveWithSecrets(8, {ec::Scalar::Zero(), ec::Scalar::FromUint64(255)});
  ProveWithSecrets(64, {ec::Scalar::FromUint64(0x8000'0000'0000'0001)});
}

}  // namespace
}  // namespace veil::zk
