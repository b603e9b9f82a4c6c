// Constant-time checks for FROST (zk/frost.h), both ciphersuites: a key package loaded from bytes
// whose signing share is marked undefined, nonce generation from undefined randomness, the
// commitments, the signature share; the trusted dealer with an undefined polynomial (the same
// polynomial arithmetic as the DKG's round two) and each participant's VSS check; and the DKG's
// round three with the received shares undefined. The library declassifies what the protocol
// publishes (commitments, verifying shares, z_i, the verdicts "zero" and "matches"); anything
// else derived from a secret that reaches a branch or an index is reported by memcheck.
#include <array>
#include <vector>

#include "ctime.h"
#include "veil/crypto/random.h"
#include "veil/zk/frost.h"

namespace veil::zk::frost {
namespace {

using ctime::Classify;
using ctime::Declassify;

Identifier Id(std::uint64_t v) { return Identifier::FromInteger(v).value(); }

// KeyPackage encoding: header (3), suite (1), min_signers (2), identifier (32), then sk_i.
constexpr std::size_t kKeyPackageShareOffset = 38;

template <class S>
void SignWithSecretShares() {
  auto dealer = TrustedDealerKeygen<S>(2, 3).value();
  std::vector<KeyPackage<S>> keys;
  for (std::size_t i = 0; i < 2; ++i) {
    const crypto::SecretBytes enc = dealer.shares[i].Verify().value().Encode();
    Bytes b(enc.Expose().begin(), enc.Expose().end());
    Classify(b.data() + kKeyPackageShareOffset, kScalarSize);
    // Decode declassifies the verdicts (canonical, non-zero, matches PK_i) and nothing else.
    keys.push_back(KeyPackage<S>::Decode(b).value());
    crypto::SecureWipe(b.data(), b.size());
  }
  std::array<std::uint8_t, 32> hiding_rand{}, binding_rand{};
  crypto::RandomBytes(hiding_rand);
  crypto::RandomBytes(binding_rand);
  Classify(hiding_rand.data(), hiding_rand.size());
  Classify(binding_rand.data(), binding_rand.size());
  SigningNonces<S> n0 = CommitWithRandomness(keys[0], hiding_rand, binding_rand);
  SigningNonces<S> n1 = Commit(keys[1]);
  const Bytes msg(32, 0x5a);
  const auto package = SigningPackage<S>::Create({n0.commitments(), n1.commitments()}, msg).value();
  const std::vector<SignatureShare<S>> shares = {Sign(package, std::move(n0), keys[0]).value(),
                                                 Sign(package, std::move(n1), keys[1]).value()};
  auto sig = Aggregate<S>(package, shares, dealer.public_key_package);
  const auto enc = sig.value().Encode();
  Declassify(enc.data(), enc.size());
}

template <class S>
void DealerWithSecretPolynomial() {
  std::vector<ec::Scalar> coefficients = {ec::Scalar::Random(), ec::Scalar::Random(),
                                          ec::Scalar::Random()};
  for (ec::Scalar& a : coefficients) Classify(&a, sizeof a);
  auto dealer = TrustedDealerKeygenFromCoefficients<S>(coefficients, 5);
  for (const SecretShare<S>& share : dealer.value().shares) {
    const crypto::SecretBytes enc = share.Encode();
    auto key = share.Verify();
    (void)key.value();
  }
}

template <class S>
void DkgRoundThreeWithSecretShares() {
  const std::uint16_t n = 3;
  const dkg::Ceremony ceremony =
      dkg::Ceremony::Create(AsBytes("ctime"), {Id(1), Id(2), Id(3)}, 2).value();
  std::vector<dkg::Round1Secret<S>> r1;
  std::vector<dkg::Round1Package<S>> packages;
  for (std::uint16_t i = 1; i <= n; ++i) {
    auto out = dkg::Part1<S>(ceremony, Id(i)).value();
    r1.push_back(std::move(out.secret));
    packages.push_back(std::move(out.package));
  }
  std::vector<dkg::Round2Secret<S>> r2;
  std::vector<dkg::Received<dkg::Round2Package<S>>> to_first;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<dkg::Received<dkg::Round1Package<S>>> others;
    for (std::size_t j = 0; j < n; ++j) {
      if (j != i) others.push_back({packages[j].identifier(), packages[j]});
    }
    auto out = dkg::Part2<S>(std::move(r1[i]), others);
    r2.push_back(std::move(out.value().secret));
    for (auto& p : out.value().packages) {
      if (!(p.recipient() == Id(1))) continue;
      // The received share, undefined: Round2Package encoding ends with the 32-byte share.
      const crypto::SecretBytes enc = p.Encode();
      Bytes b(enc.Expose().begin(), enc.Expose().end());
      Classify(b.data() + b.size() - 32, 32);
      to_first.push_back({p.sender(), dkg::Round2Package<S>::Decode(b).value()});
      crypto::SecureWipe(b.data(), b.size());
    }
  }
  // A moved round-two secret (its share copied, the source wiped) runs round three as well.
  dkg::Round2Secret<S> moved = std::move(r2[0]);
  r2[0] = std::move(moved);
  auto out = dkg::Part3<S>(std::move(r2[0]), to_first);
  const Bytes pub = out.value().public_key_package.Encode();
  Declassify(pub.data(), pub.size());
}

VEIL_CTIME_CHECK(FrostRistretto255Signing) { SignWithSecretShares<Ristretto255Sha512>(); }
VEIL_CTIME_CHECK(FrostEd25519Signing) { SignWithSecretShares<Ed25519Sha512>(); }
VEIL_CTIME_CHECK(FrostRistretto255Dealer) { DealerWithSecretPolynomial<Ristretto255Sha512>(); }
VEIL_CTIME_CHECK(FrostEd25519Dealer) { DealerWithSecretPolynomial<Ed25519Sha512>(); }
VEIL_CTIME_CHECK(FrostRistretto255DkgRoundThree) {
  DkgRoundThreeWithSecretShares<Ristretto255Sha512>();
}
VEIL_CTIME_CHECK(FrostEd25519DkgRoundThree) { DkgRoundThreeWithSecretShares<Ed25519Sha512>(); }

}  // namespace
}  // namespace veil::zk::frost
