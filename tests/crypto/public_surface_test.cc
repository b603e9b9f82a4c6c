// The product-facing headers offer no testing-only entry point: the internal functions of FIPS 203
// and FIPS 204 (caller-chosen randomness, caller-formed M' or mu), X-Wing's EncapsulateDerand and
// HPKE's derandomized setup live in veil/crypto/testing/ only.
//
// The check is at compile time and fails if one of them comes back into veil::crypto. For each
// name, a catch-all function template of that name in `probe` is found by ordinary lookup, and a
// function of that name in veil::crypto, the namespace of the argument types, by argument-dependent
// lookup (a hidden friend included). Overload resolution prefers the non-template, so the call's
// type is probe::Absent exactly when veil::crypto declares no such function. Functions in
// veil::crypto::for_testing are not found that way (a nested namespace is not associated), which is
// why the testing headers may be included here too.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "veil/crypto/hpke.h"
#include "veil/crypto/mldsa65.h"
#include "veil/crypto/mlkem768.h"
#include "veil/crypto/secret.h"
#include "veil/crypto/testing/hpke.h"
#include "veil/crypto/testing/mldsa65.h"
#include "veil/crypto/testing/mlkem768.h"
#include "veil/crypto/testing/xwing.h"
#include "veil/crypto/xwing.h"

namespace probe {

struct Absent {};

#define VEIL_PROBE(name)                                          \
  template <class... A>                                           \
  Absent name(const A&...);                                       \
  template <class... A>                                           \
  using name##Call = decltype(name(std::declval<const A&>()...)); \
  template <class... A>                                           \
  inline constexpr bool k##name##InPublicNamespace = !std::is_same_v<name##Call<A...>, Absent>

VEIL_PROBE(MlKem768KeyGenInternal);
VEIL_PROBE(MlKem768EncapsInternal);
VEIL_PROBE(MlKem768Encaps);  // the control: declared in veil::crypto, so it must be found
VEIL_PROBE(MlDsa65SignInternal);
VEIL_PROBE(MlDsa65SignExternalMu);
VEIL_PROBE(MlDsa65VerifyInternal);
VEIL_PROBE(MlDsa65VerifyExternalMu);
VEIL_PROBE(MlDsa65ComputeMu);
VEIL_PROBE(XWingEncapsulateDerand);
VEIL_PROBE(HpkeSetupSenderDerand);
#undef VEIL_PROBE

template <class T>
inline constexpr bool kHasDerandomizeField = requires(T o) {
  o.derandomize;
};

}  // namespace probe

namespace veil::crypto {
namespace {

using Mu = std::span<const std::uint8_t, 64>;

static_assert(probe::kMlKem768EncapsInPublicNamespace<MlKem768EncapsulationKey>,
              "the probe must find a function that veil::crypto does declare");
static_assert(!probe::kMlKem768KeyGenInternalInPublicNamespace<Secret<32>, Secret<32>>);
static_assert(
    !probe::kMlKem768EncapsInternalInPublicNamespace<MlKem768EncapsulationKey, Secret<32>>);
static_assert(
    !probe::kMlDsa65SignInternalInPublicNamespace<MlDsa65SecretKey, ByteView, Secret<32>>);
static_assert(!probe::kMlDsa65SignExternalMuInPublicNamespace<MlDsa65SecretKey, Mu, Secret<32>>);
static_assert(
    !probe::kMlDsa65VerifyInternalInPublicNamespace<MlDsa65PublicKey, ByteView, ByteView>);
static_assert(!probe::kMlDsa65VerifyExternalMuInPublicNamespace<MlDsa65PublicKey, Mu, ByteView>);
static_assert(!probe::kMlDsa65ComputeMuInPublicNamespace<MlDsa65PublicKey, ByteView, ByteView>);
static_assert(!probe::kXWingEncapsulateDerandInPublicNamespace<ByteView, Secret<64>>);
static_assert(!probe::kHpkeSetupSenderDerandInPublicNamespace<hpke::Suite, ByteView,
                                                              hpke::SetupOptions, ByteView>);
static_assert(!probe::kHasDerandomizeField<hpke::SetupOptions>,
              "HPKE's product options must not take a caller-chosen ephemeral key");

// The testing headers do declare them, in veil::crypto::for_testing.
static_assert(
    std::is_same_v<decltype(for_testing::MlKem768KeyGenInternal(std::declval<const Secret<32>&>(),
                                                                std::declval<const Secret<32>&>())),
                   MlKem768KeyPair>);
static_assert(std::is_same_v<decltype(for_testing::XWingEncapsulateDerand(
                                 std::declval<ByteView>(), std::declval<const Secret<64>&>())),
                             Result<XWingEncapsulation>>);

TEST(PublicSurface, TestingOnlyFunctionsAreOutsideThePublicNamespace) {
  // The checks above are static; this test names them in the test list. The testing functions
  // still work through their own header.
  const auto kp = for_testing::MlKem768KeyGenInternal(Secret<32>(), Secret<32>());
  const auto enc = for_testing::MlKem768EncapsInternal(kp.ek, Secret<32>());
  auto k = MlKem768Decaps(kp.dk, enc.ciphertext);
  ASSERT_TRUE(k.ok());
  EXPECT_TRUE(k->ConstantTimeEquals(enc.shared_secret));
}

}  // namespace
}  // namespace veil::crypto
