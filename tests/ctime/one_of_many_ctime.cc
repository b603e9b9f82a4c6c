// Constant-time checks for one-of-many proofs and Triptych ring signatures: proving over 8 members
// with the index l and the opening r marked undefined (and with the base 2, whose digits are bits,
// and 3, whose digits need the reciprocal division), and ring signing with the secret key and the
// signer's position marked undefined (the key's copy of its public key encoding is classified, so
// that the constant-time search of the ring makes the position secret). The library declassifies
// A, B, C, D, G_d / X_j, Y_j and the responses where the protocol publishes them; memcheck reports
// any other secret-dependent branch or index.
#include <array>
#include <cstddef>
#include <vector>

#include "ctime.h"
#include "veil/zk/one_of_many.h"
#include "veil/zk/pedersen.h"
#include "veil/zk/ring_signature.h"
#include "veil/zk/transcript.h"

namespace veil::zk {
namespace {

using ctime::Classify;
using ctime::Declassify;

void ProveOver8(std::size_t base) {
  std::vector<ec::RistrettoPoint> members;
  for (int k = 0; k < 8; ++k) members.push_back(ec::BasepointMul(ec::Scalar::Random()));
  ec::Scalar r = ec::Scalar::Random();
  std::size_t l = 5;
  members[l] = r * PedersenGens::Default().H();
  auto set = OneOfManySet::FromPoints(members, base);
  Classify(&l, sizeof l);
  Classify(&r, sizeof r);
  Transcript t("veil.ctime", 1);
  auto proof = OneOfManyProve(t, *set, l, r);
  Bytes enc = proof->Encode();
  Declassify(enc.data(), enc.size());
  r.Wipe();
}

VEIL_CTIME_CHECK(OneOfManyProve) {
  ProveOver8(0);  // the default base (3, two digits)
  ProveOver8(2);
}

VEIL_CTIME_CHECK(RingSign) {
  ec::Scalar::Bytes sk = ec::Scalar::Random().ToBytes();
  Classify(sk.data(), sk.size());
  // FromBytes declassifies the public key and key image; the scalar stays secret.
  auto key = RingSigningKey::FromBytes(sk);
  std::vector<ec::RistrettoPoint> keys;
  for (int k = 0; k < 8; ++k) keys.push_back(ec::BasepointMul(ec::Scalar::Random()));
  keys[6] = key->public_key();
  auto ring = Ring::FromPoints(keys);
  // Which member is the signer is the secret of a ring signature.
  Classify(&key->public_key_encoding(), sizeof(ec::CompressedRistretto));
  auto sig = RingSign(*key, *ring, AsBytes("message"));
  Bytes enc = sig->Encode();
  Declassify(enc.data(), enc.size());

  // Key generation.
  RingSigningKey fresh = RingSigningKey::Generate();
  Declassify(&fresh.key_image(), sizeof(KeyImage));
}

}  // namespace
}  // namespace veil::zk
