// Fuzzes the sigma-proof decoder and verifier against fixed statements (discrete log, DLEQ,
// Pedersen opening): the first byte picks the relation, the rest is the proof. No input may
// crash; a proof that decodes must re-encode to exactly the input (canonical), single and batch
// verification must agree, and an input that is not a real proof must not verify.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "veil/zk/sigma.h"

namespace {

using namespace veil;
using namespace veil::zk;

void Check(bool ok) {
  if (!ok) std::abort();
}

struct Statements {
  ec::RistrettoPoint g, h, p, q;
  Commitment c;
  Statements() {
    const ec::Scalar x = ec::Scalar::FromUint64(0x5eed);
    g = ec::BasepointMul(ec::Scalar::FromUint64(3));
    h = ec::BasepointMul(ec::Scalar::FromUint64(5));
    p = x * g;
    q = x * h;
    c = PedersenGens::Default().Commit(ec::Scalar::FromUint64(42), ec::Scalar::FromUint64(7));
  }
};

const Statements& S() {
  static const Statements s;
  return s;
}

LinearRelation Pick(std::uint8_t which) {
  switch (which % 3) {
    case 0:
      return DlogRelation(S().p);
    case 1:
      return DleqRelation(S().g, S().p, S().h, S().q);
    default:
      return OpeningRelation(PedersenGens::Default(), S().c);
  }
}

Transcript Context() {
  Transcript t("veil.fuzz.sigma", 1);
  t.AppendMessage("ctx", AsBytes("fixed"));
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const LinearRelation rel = Pick(data[0]);
  const ByteView in(data + 1, size - 1);
  auto proof = SigmaProof::Decode(in, rel);
  if (!proof.ok()) {
    Check(proof.status().code() == Code::kInvalidArgument);
    return 0;
  }
  const Bytes again = proof->Encode();
  Check(again.size() == in.size() && std::equal(again.begin(), again.end(), in.begin()));

  Transcript t1 = Context();
  const Status single = Verify(t1, rel, *proof);
  Check(single.code() == Code::kVerificationFailed);  // a forgery would be a break

  SigmaBatchVerifier batch;
  Transcript t2 = Context();
  Check(batch.Add(t2, rel, *proof).ok());
  Check(batch.Verify().code() == Code::kVerificationFailed);
  return 0;
}
