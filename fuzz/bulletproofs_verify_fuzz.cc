// Fuzzes the range-proof decoder and verifier against fixed statements: the first byte picks the
// statement (n, m and fixed commitments) and the decoder (strict for the statement, or by length
// only), the rest is the proof. No input may crash; a proof that decodes must re-encode to exactly
// the input (canonical); a decoded proof of the wrong shape must be refused as kInvalidArgument;
// and nothing the fuzzer builds may verify, singly or in a batch (that would be a forgery).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "veil/zk/bulletproofs.h"

namespace {

using namespace veil;
using namespace veil::zk;

void Check(bool ok) {
  if (!ok) std::abort();
}

struct Statement {
  std::size_t n;
  std::vector<Commitment> commitments;
};

std::vector<Statement> MakeStatements() {
  const PedersenGens& pc = PedersenGens::Default();
  const auto commit = [&](std::uint64_t v, std::uint64_t r) {
    return pc.Commit(ec::Scalar::FromUint64(v), ec::Scalar::FromUint64(r));
  };
  return {
      {8, {commit(42, 7)}},
      {64, {commit(1234567, 99)}},
      {16, {commit(1, 2), commit(3, 4), commit(5, 6)}},
      {32, {commit(0, 1), Commitment()}},
      {40, {commit(5, 3)}},  // a width that is not a power of two (padded to 64)
  };
}

const std::vector<Statement>& Statements() {
  static const std::vector<Statement> s = MakeStatements();
  return s;
}

Transcript Context() {
  Transcript t("veil.fuzz.bulletproofs", 1);
  t.AppendMessage("ctx", AsBytes("fixed"));
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Statement& st = Statements()[data[0] % Statements().size()];
  const bool strict = (data[0] & 0x80) == 0;
  const ByteView in(data + 1, size - 1);
  const std::size_t m = st.commitments.size();
  auto proof = strict ? RangeProof::Decode(in, st.n, m) : RangeProof::Decode(in);
  if (!proof.ok()) {
    Check(proof.status().code() == Code::kInvalidArgument);
    return 0;
  }
  const Bytes again = proof->Encode();
  Check(again.size() == in.size() && std::equal(again.begin(), again.end(), in.begin()));
  Check(proof->size() == in.size());

  const bool shape_ok = in.size() == RangeProofSize(st.n, m);
  Check(!strict || shape_ok);
  Transcript t1 = Context();
  const Status single = VerifyRange(t1, st.n, st.commitments, *proof);
  Check(single.code() == (shape_ok ? Code::kVerificationFailed : Code::kInvalidArgument));

  RangeProofBatchVerifier batch;
  Transcript t2 = Context();
  const Status added = batch.Add(t2, st.n, st.commitments, *proof);
  Check(!added.ok() || batch.size() == 1);
  Check(!batch.Verify().ok());
  return 0;
}
