// Password-based key derivation: scrypt and Argon2id, through libsodium.
//
// Parameters are explicit and checked; out-of-range costs are kInvalidArgument, and running out of
// memory for the chosen cost is kResourceExhausted. Kalypso's recovery kit uses scrypt with
// N = 2^17, r = 8, p = 1 (kRecoveryKitScrypt).
//
// Thread safety: every function is safe from any thread.
#pragma once

#include <cstdint>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

struct ScryptParams {
  std::uint64_t n;  // CPU/memory cost, a power of two > 1
  std::uint32_t r;  // block size
  std::uint32_t p;  // parallelism
};
inline constexpr ScryptParams kRecoveryKitScrypt{1u << 17, 8, 1};

Result<SecretBytes> Scrypt(ByteView password, ByteView salt, const ScryptParams& params,
                           std::size_t out_len);

struct Argon2idParams {
  std::uint64_t ops;       // passes (t_cost), >= 1
  std::size_t memory_kib;  // memory in KiB, >= 8
};
inline constexpr Argon2idParams kInteractiveArgon2id{2, 64 * 1024};
inline constexpr std::size_t kArgon2SaltSize = 16;

// Argon2id v1.3 with parallelism 1 (libsodium's only setting); salt must be 16 bytes.
Result<SecretBytes> Argon2id(ByteView password, ByteView salt, const Argon2idParams& params,
                             std::size_t out_len);

}  // namespace veil::crypto
