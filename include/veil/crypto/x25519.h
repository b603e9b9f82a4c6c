// X25519 Diffie-Hellman (RFC 7748) through libsodium.
//
// The fixed-base multiplication X25519(k, 9) (public keys, X-Wing's ephemeral) does not run the
// Montgomery ladder: it multiplies the Edwards base point with libsodium's precomputed table
// (crypto_scalarmult_ed25519_base, which clamps k exactly as RFC 7748 does) and maps the result to
// its Montgomery u-coordinate, u = (1 + y) / (1 - y) (RFC 7748 sec. 4.1), in our field arithmetic
// (fe25519.h). Same value, about twice as fast; tests compare it with crypto_scalarmult_base.
//
// The shared secret of a low-order public key is all zeros; Dh() rejects it with kInvalidArgument
// rather than hand a predictable "secret" to a KDF (RFC 7748 section 6.1 permits the check; HPKE's
// DHKEM requires it). Public keys whose u-coordinate is not reduced mod p are accepted and reduced,
// as RFC 7748 section 5 specifies.
//
// X25519SecretKey is a Secret<32>: a moved-from key aborts when used, rather than act as the
// all-zero key (which clamps to the public scalar 2^254).
//
// Thread safety: every function is safe from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

inline constexpr std::size_t kX25519KeySize = 32;
using X25519PublicKey = std::array<std::uint8_t, kX25519KeySize>;
using X25519SecretKey = Secret<kX25519KeySize>;

struct X25519KeyPair {
  X25519SecretKey secret_key;
  X25519PublicKey public_key;
};

X25519KeyPair X25519Generate();
// X25519(k, 9): the u-coordinate of [clamp(k)] times the base point, into u.
void X25519BaseMultiply(std::span<const std::uint8_t, 32> k, std::span<std::uint8_t, 32> u);
// The public key of a secret key (clamping is part of the function, as in RFC 7748).
X25519PublicKey X25519PublicFromSecret(const X25519SecretKey& sk);
Result<X25519PublicKey> X25519PublicKeyFromBytes(ByteView b);
// The shared secret; kInvalidArgument for a low-order peer key (all-zero result).
Result<Secret<32>> X25519(const X25519SecretKey& sk, const X25519PublicKey& peer);

}  // namespace veil::crypto
