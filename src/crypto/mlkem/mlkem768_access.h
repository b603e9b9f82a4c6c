// The implementation's way into the ML-KEM-768 key types (veil/crypto/mlkem768.h): the internal
// algorithms of FIPS 203 sec. 6 on the public types, for the crypto floor's own code. X-Wing's key
// expansion and its EncapsulateDerand are ML-KEM's KeyGen_internal and Encaps_internal underneath
// (draft-connolly-cfrg-xwing-kem sec. 5.2, 5.4.1), and the testing functions
// (veil/crypto/testing/mlkem768.h) are thin wrappers. Nothing outside src/crypto includes this.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <span>

#include "veil/crypto/mlkem768.h"

namespace veil::crypto {

class MlKem768Access {
 public:
  // ML-KEM.KeyGen_internal (Algorithm 16).
  static MlKem768KeyPair KeyGen(std::span<const std::uint8_t, 32> d,
                                std::span<const std::uint8_t, 32> z);
  // ML-KEM.Encaps_internal (Algorithm 17): m must be fresh and secret for every call.
  static MlKem768Encapsulation Encaps(const MlKem768EncapsulationKey& ek,
                                      std::span<const std::uint8_t, 32> m);
  // The decapsulation key's bytes; aborts on a moved-from key.
  static ByteView DkBytes(const MlKem768DecapsulationKey& dk);
};

}  // namespace veil::crypto
