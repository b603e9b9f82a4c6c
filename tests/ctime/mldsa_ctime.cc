// Constant-time check of ML-DSA-65 key generation and signing (see ctime.h).
//
// The seed xi, the encoded secret key and the signing randomness rnd are undefined to memcheck;
// key generation, secret-key decoding and signing (hedged and deterministic, pure and internal)
// must not branch on them or use them as an address. The library declassifies, on the line where
// each happens, the values that are public by design (docs/notes/mldsa.md): rho (a field of the
// public key), each rejection sampler's accept/reject verdicts (independent of the sampled
// values), the verdict of each signing iteration (signing time shows the number of iterations
// anyway), and skDecode's verdict. The test declassifies the outputs that are published: the public
// key and the signatures.
#include <cstdio>
#include <cstdlib>

#include "../../src/crypto/mldsa/simd.h"
#include "ctime.h"
#include "veil/crypto/mldsa65.h"
#include "veil/crypto/random.h"
#include "veil/crypto/testing/mldsa65.h"

namespace veil::crypto {
namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "mldsa ctime: %s\n", what);
  std::abort();
}

Secret<32> Filled(std::uint8_t x) {
  Secret<32> s;
  for (std::size_t i = 0; i < 32; ++i) s.ExposeMutable()[i] = static_cast<std::uint8_t>(x + 3 * i);
  return s;
}

// Public outputs: declassified, then checked in the clear.
void PublishSignature(const MlDsa65Signature& sig) { ctime::Declassify(sig.data(), sig.size()); }

void KeyGenAndSign() {
  Secret<32> xi = Filled(1);
  ctime::Classify(xi.Expose().data(), 32);
  const MlDsa65KeyPair kp = MlDsa65KeyGenFromSeed(xi);
  // The public key is published.
  const ByteView pk_view = kp.pk.bytes();
  ctime::Declassify(pk_view.data(), pk_view.size());
  auto pk = MlDsa65PublicKey::Decode(pk_view);  // a fresh object from the published bytes
  if (!pk.ok()) Fail("public key decode");

  // The secret key travels encoded; decoding it must be constant time too.
  const SecretBytes sk_bytes = kp.sk.Encode();
  ctime::Classify(sk_bytes.Expose().data(), sk_bytes.size());
  auto sk = MlDsa65SecretKey::Decode(sk_bytes.Expose());
  if (!sk.ok()) Fail("secret key decode");

  const Bytes msg = {'c', 't', 'i', 'm', 'e'};
  const Bytes ctx = {'v', 'e', 'i', 'l'};
  for (int round = 0; round < 3; ++round) {  // several messages: different rejection counts
    Bytes m = msg;
    m.push_back(static_cast<std::uint8_t>(round));

    auto det = MlDsa65Sign(*sk, m, ctx, MlDsaSigning::kDeterministic);
    if (!det.ok()) Fail("deterministic sign");
    PublishSignature(*det);
    if (!MlDsa65Verify(*pk, m, ctx, *det).ok()) Fail("deterministic signature does not verify");

    // Hedged through the public entry point (rnd from the CSPRNG) ...
    auto hedged = MlDsa65Sign(*sk, m, ctx, MlDsaSigning::kHedged);
    if (!hedged.ok()) Fail("hedged sign");
    PublishSignature(*hedged);
    if (!MlDsa65Verify(*pk, m, ctx, *hedged).ok()) Fail("hedged signature does not verify");

    // ... and with rnd marked secret, through Sign_internal and the external-mu form.
    Secret<32> rnd = Filled(static_cast<std::uint8_t>(40 + round));
    ctime::Classify(rnd.Expose().data(), 32);
    MlDsa65Signature internal = for_testing::MlDsa65SignInternal(*sk, m, rnd);
    PublishSignature(internal);
    if (!for_testing::MlDsa65VerifyInternal(*pk, m, internal).ok())
      Fail("internal signature does not verify");

    auto mu = for_testing::MlDsa65ComputeMu(*pk, m, ctx);
    if (!mu.ok()) Fail("mu");
    MlDsa65Signature ext = for_testing::MlDsa65SignExternalMu(*sk, *mu, rnd);
    PublishSignature(ext);
    if (!for_testing::MlDsa65VerifyExternalMu(*pk, *mu, ext).ok())
      Fail("external-mu signature does not verify");
  }

  // Signing with the key object from key generation (states built from undefined values).
  auto direct = MlDsa65Sign(kp.sk, msg, {}, MlDsaSigning::kDeterministic);
  if (!direct.ok()) Fail("sign with generated key");
  PublishSignature(*direct);
  if (!MlDsa65Verify(*pk, msg, {}, *direct).ok()) Fail("generated key's signature");
}

// With the AVX2 code where the CPU (as valgrind presents it) has it, and with the portable code.
VEIL_CTIME_CHECK(MlDsa65KeyGenAndSign) {
  KeyGenAndSign();
  if (mldsa::UseAvx2()) {
    mldsa::SetPortableOnlyForTesting(true);
    KeyGenAndSign();
    mldsa::SetPortableOnlyForTesting(false);
  } else {
    std::printf("ctime: (no AVX2 under valgrind: portable code only)\n");
  }
}

}  // namespace
}  // namespace veil::crypto
