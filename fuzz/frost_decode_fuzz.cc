// Fuzzes every FROST wire decoder of both ciphersuites (zk/frost.h): the first byte picks the
// decoder and the suite, the rest is its input. No input may crash; a failure is kInvalidArgument;
// whatever decodes re-encodes to exactly the input (strict, canonical decoders); a decoded
// signature never verifies under a fixed group key and a decoded signature share never passes
// verify_signature_share in a fixed session unless it is that session's honest share.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "veil/zk/frost.h"

namespace {

using namespace veil;
using namespace veil::zk::frost;

void Check(bool ok) {
  if (!ok) std::abort();
}

template <class T>
void CheckFailure(const Result<T>& r) {
  Check(r.status().code() == Code::kInvalidArgument);
}

template <class Enc>
void CheckSame(const Enc& enc, ByteView in) {
  Check(enc.size() == in.size() && std::equal(enc.begin(), enc.end(), in.begin()));
}

// A fixed 2-of-3 group and one honest session, per suite.
template <class S>
struct Fixed {
  PublicKeyPackage<S> group;
  SigningPackage<S> package;
  std::vector<SignatureShare<S>> shares;
};

template <class S>
const Fixed<S>& GetFixed() {
  static const Fixed<S> fixed = [] {
    auto dealer = TrustedDealerKeygen<S>(2, 3).value();
    auto k1 = dealer.shares[0].Verify().value();
    auto k2 = dealer.shares[1].Verify().value();
    SigningNonces<S> n1 = Commit(k1), n2 = Commit(k2);
    auto package =
        SigningPackage<S>::Create({n1.commitments(), n2.commitments()}, AsBytes("fuzz")).value();
    std::vector<SignatureShare<S>> shares = {Sign(package, std::move(n1), k1).value(),
                                             Sign(package, std::move(n2), k2).value()};
    return Fixed<S>{std::move(dealer.public_key_package), std::move(package), std::move(shares)};
  }();
  return fixed;
}

template <class S>
void Run(std::uint8_t which, ByteView in) {
  switch (which % 11) {
    case 0: {
      auto r = GroupElement<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      CheckSame(r->Encode(), in);
      Check(GroupElement<S>::FromPoint(r->point()).ok());
      return;
    }
    case 1: {
      auto r = SigningCommitments<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      return CheckSame(r->Encode(), in);
    }
    case 2: {
      auto r = SigningPackage<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      return CheckSame(r->Encode(), in);
    }
    case 3: {
      auto r = SignatureShare<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      CheckSame(r->Encode(), in);
      const Fixed<S>& f = GetFixed<S>();
      const Status s = VerifySignatureShare(f.package, *r, f.group);
      if (s.ok()) {
        bool honest = false;
        for (const auto& h : f.shares) honest = honest || h.Encode() == r->Encode();
        Check(honest);
      }
      return;
    }
    case 4: {
      auto r = Signature<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      CheckSame(r->Encode(), in);
      Check(!Verify(GetFixed<S>().group.verifying_key(), AsBytes("fuzz"), *r).ok());
      return;
    }
    case 5: {
      auto r = KeyPackage<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      return CheckSame(r->Encode().Expose(), in);
    }
    case 6: {
      auto r = PublicKeyPackage<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      return CheckSame(r->Encode(), in);
    }
    case 7: {
      auto r = SecretShare<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      CheckSame(r->Encode().Expose(), in);
      const Result<KeyPackage<S>> k = r->Verify();
      Check(k.ok() || k.status().code() == Code::kVerificationFailed ||
            k.status().code() == Code::kInvalidArgument);
      return;
    }
    case 8: {
      auto r = dkg::Round1Package<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      return CheckSame(r->Encode(), in);
    }
    case 9: {
      auto r = dkg::Round2Package<S>::Decode(in);
      if (!r.ok()) return CheckFailure(r);
      return CheckSame(r->Encode().Expose(), in);
    }
    default: {
      auto id = Identifier::Decode(in);
      if (!id.ok()) return CheckFailure(id);
      CheckSame(id->Encode(), in);
      auto share = SigningShare::Decode(in);
      if (share.ok()) CheckSame(share->Encode().Expose(), in);
      return;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const ByteView in(data + 1, size - 1);
  if ((data[0] & 0x80) == 0) {
    Run<Ristretto255Sha512>(data[0], in);
  } else {
    Run<Ed25519Sha512>(data[0] & 0x7f, in);
  }
  return 0;
}
