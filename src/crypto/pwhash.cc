// scrypt and Argon2id over libsodium's crypto_pwhash family.
#include "veil/crypto/pwhash.h"

#include <sodium.h>

#include <cerrno>

#include "veil/crypto/random.h"

namespace veil::crypto {
namespace {

// libsodium declares its pointers non-null even for empty inputs.
const std::uint8_t* NonNull(ByteView b) {
  static const std::uint8_t kEmpty[1] = {0};
  return b.empty() ? kEmpty : b.data();
}

}  // namespace

Result<SecretBytes> Scrypt(ByteView password, ByteView salt, const ScryptParams& params,
                           std::size_t out_len) {
  EnsureInitialized();
  if (params.n < 2 || (params.n & (params.n - 1)) != 0) {
    return InvalidArgument("scrypt: N must be a power of two greater than 1");
  }
  if (params.r == 0 || params.p == 0 ||
      static_cast<std::uint64_t>(params.r) * params.p >= (1u << 30)) {
    return InvalidArgument("scrypt: r and p must be positive and r * p < 2^30");
  }
  if (out_len == 0 || out_len > 1024)
    return InvalidArgument("scrypt: output must be 1..1024 bytes");
  SecretBytes out(out_len);
  errno = 0;
  if (crypto_pwhash_scryptsalsa208sha256_ll(NonNull(password), password.size(), NonNull(salt),
                                            salt.size(), params.n, params.r, params.p,
                                            out.ExposeMutable().data(), out_len) != 0) {
    if (errno == ENOMEM) return ResourceExhausted("scrypt: not enough memory for these costs");
    return InvalidArgument("scrypt: parameters rejected");
  }
  return out;
}

Result<SecretBytes> Argon2id(ByteView password, ByteView salt, const Argon2idParams& params,
                             std::size_t out_len) {
  EnsureInitialized();
  if (salt.size() != kArgon2SaltSize) return InvalidArgument("Argon2id: salt must be 16 bytes");
  if (params.ops < crypto_pwhash_argon2id_OPSLIMIT_MIN ||
      params.ops > crypto_pwhash_argon2id_OPSLIMIT_MAX) {
    return InvalidArgument("Argon2id: ops out of range");
  }
  const std::size_t mem_bytes = params.memory_kib * 1024;
  if (params.memory_kib < 8 || mem_bytes / 1024 != params.memory_kib ||
      mem_bytes > crypto_pwhash_argon2id_MEMLIMIT_MAX) {
    return InvalidArgument("Argon2id: memory out of range");
  }
  if (out_len < crypto_pwhash_argon2id_BYTES_MIN || out_len > 1024) {
    return InvalidArgument("Argon2id: output must be 16..1024 bytes");
  }
  if (password.size() > crypto_pwhash_argon2id_PASSWD_MAX) {
    return InvalidArgument("Argon2id: password too long");
  }
  SecretBytes out(out_len);
  errno = 0;
  if (crypto_pwhash(out.ExposeMutable().data(), out_len,
                    reinterpret_cast<const char*>(NonNull(password)), password.size(), salt.data(),
                    params.ops, mem_bytes, crypto_pwhash_ALG_ARGON2ID13) != 0) {
    if (errno == ENOMEM) return ResourceExhausted("Argon2id: not enough memory for these costs");
    return InvalidArgument("Argon2id: parameters rejected");
  }
  return out;
}

}  // namespace veil::crypto
