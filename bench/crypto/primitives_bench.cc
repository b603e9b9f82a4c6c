// Benchmarks of the crypto/ floor, each beside its library baseline measured in the same run.
//
// Pairs: Veil's Aead vs a plain EVP call sequence that re-keys every message (what a naive wrapper
// does) and vs libsodium's AES-256-GCM; Veil's Ed25519/X25519 wrappers vs the bare libsodium calls
// (the wrapper's overhead); scrypt at the recovery-kit setting.
#include <benchmark/benchmark.h>
#include <openssl/evp.h>
#include <sodium.h>

#include "veil/crypto/aead.h"
#include "veil/crypto/ed25519.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/kdf.h"
#include "veil/crypto/mac.h"
#include "veil/crypto/pwhash.h"
#include "veil/crypto/random.h"
#include "veil/crypto/x25519.h"

namespace {

using namespace veil;
using namespace veil::crypto;

void BM_Aes256GcmSeal_Veil(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto aead = Aead::Create(AeadAlg::kAes256Gcm, RandomBytes(32));
  Bytes nonce = RandomBytes(12), pt = RandomBytes(n), out(n + 16);
  for (auto _ : state) {
    benchmark::DoNotOptimize(aead->SealInto(nonce, {}, pt, out));
    nonce[0]++;
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Aes256GcmSeal_Veil)->ArgsProduct({{256, 4096, 65536}});

// Baseline: one-shot EVP use that sets the key (and so the key schedule) for every message.
void BM_Aes256GcmSeal_OpenSSLRekeyEachCall(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  Bytes key = RandomBytes(32), nonce = RandomBytes(12), pt = RandomBytes(n), out(n + 16);
  for (auto _ : state) {
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    int len = 0;
    EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), nullptr, key.data(), nonce.data());
    EVP_EncryptUpdate(c, out.data(), &len, pt.data(), static_cast<int>(n));
    EVP_EncryptFinal_ex(c, out.data() + len, &len);
    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, out.data() + n);
    EVP_CIPHER_CTX_free(c);
    nonce[0]++;
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Aes256GcmSeal_OpenSSLRekeyEachCall)->ArgsProduct({{256, 4096, 65536}});

// Baseline: libsodium's AES-256-GCM with a precomputed key state.
void BM_Aes256GcmSeal_Libsodium(benchmark::State& state) {
  if (crypto_aead_aes256gcm_is_available() == 0) {
    state.SkipWithError("no AES-NI");
    return;
  }
  const auto n = static_cast<std::size_t>(state.range(0));
  Bytes key = RandomBytes(32), nonce = RandomBytes(12), pt = RandomBytes(n), out(n + 16);
  crypto_aead_aes256gcm_state st;
  crypto_aead_aes256gcm_beforenm(&st, key.data());
  for (auto _ : state) {
    crypto_aead_aes256gcm_encrypt_afternm(out.data(), nullptr, pt.data(), n, nullptr, 0, nullptr,
                                          nonce.data(), &st);
    nonce[0]++;
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Aes256GcmSeal_Libsodium)->ArgsProduct({{256, 4096, 65536}});

void BM_Aes256GcmOpen_Veil(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto aead = Aead::Create(AeadAlg::kAes256Gcm, RandomBytes(32));
  Bytes nonce = RandomBytes(12), pt = RandomBytes(n), ct(n + 16), back(n);
  (void)aead->SealInto(nonce, {}, pt, ct);
  for (auto _ : state) benchmark::DoNotOptimize(aead->OpenInto(nonce, {}, ct, back));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Aes256GcmOpen_Veil)->ArgsProduct({{256, 4096, 65536}});

void BM_ChaCha20Poly1305Seal_Veil(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto aead = Aead::Create(AeadAlg::kChaCha20Poly1305, RandomBytes(32));
  Bytes nonce = RandomBytes(12), pt = RandomBytes(n), out(n + 16);
  for (auto _ : state) benchmark::DoNotOptimize(aead->SealInto(nonce, {}, pt, out));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ChaCha20Poly1305Seal_Veil)->ArgsProduct({{256, 4096, 65536}});

void BM_XChaCha20Poly1305Seal_Veil(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto aead = Aead::Create(AeadAlg::kXChaCha20Poly1305, RandomBytes(32));
  Bytes nonce = RandomBytes(24), pt = RandomBytes(n), out(n + 16);
  for (auto _ : state) benchmark::DoNotOptimize(aead->SealInto(nonce, {}, pt, out));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_XChaCha20Poly1305Seal_Veil)->ArgsProduct({{256, 4096, 65536}});

void BM_Ed25519Sign_Veil(benchmark::State& state) {
  Ed25519SigningKey key = Ed25519SigningKey::Generate();
  Bytes msg = RandomBytes(64);
  for (auto _ : state) benchmark::DoNotOptimize(key.Sign(msg));
}
BENCHMARK(BM_Ed25519Sign_Veil);

void BM_Ed25519Sign_Libsodium(benchmark::State& state) {
  unsigned char pk[32], sk[64], sig[64];
  crypto_sign_keypair(pk, sk);
  Bytes msg = RandomBytes(64);
  for (auto _ : state) crypto_sign_detached(sig, nullptr, msg.data(), msg.size(), sk);
  benchmark::DoNotOptimize(sig);
}
BENCHMARK(BM_Ed25519Sign_Libsodium);

void BM_Ed25519Verify_Veil(benchmark::State& state) {
  Ed25519SigningKey key = Ed25519SigningKey::Generate();
  Bytes msg = RandomBytes(64);
  Ed25519Signature sig = key.Sign(msg);
  for (auto _ : state) benchmark::DoNotOptimize(Ed25519Verify(key.public_key(), msg, sig));
}
BENCHMARK(BM_Ed25519Verify_Veil);

void BM_Ed25519Verify_Libsodium(benchmark::State& state) {
  unsigned char pk[32], sk[64], sig[64];
  crypto_sign_keypair(pk, sk);
  Bytes msg = RandomBytes(64);
  crypto_sign_detached(sig, nullptr, msg.data(), msg.size(), sk);
  for (auto _ : state) {
    benchmark::DoNotOptimize(crypto_sign_verify_detached(sig, msg.data(), msg.size(), pk));
  }
}
BENCHMARK(BM_Ed25519Verify_Libsodium);

void BM_X25519_Veil(benchmark::State& state) {
  X25519KeyPair a = X25519Generate(), b = X25519Generate();
  for (auto _ : state) benchmark::DoNotOptimize(X25519(a.secret_key, b.public_key));
}
BENCHMARK(BM_X25519_Veil);

void BM_X25519_Libsodium(benchmark::State& state) {
  unsigned char sk[32], pk[32], out[32];
  randombytes_buf(sk, 32);
  crypto_scalarmult_base(pk, sk);
  for (auto _ : state) benchmark::DoNotOptimize(crypto_scalarmult(out, sk, pk));
}
BENCHMARK(BM_X25519_Libsodium);

// Fixed-base X25519(k, 9): our Edwards-table path (x25519.h) against libsodium's ladder.
void BM_X25519Base_Veil(benchmark::State& state) {
  X25519KeyPair a = X25519Generate();
  for (auto _ : state) benchmark::DoNotOptimize(X25519PublicFromSecret(a.secret_key));
}
BENCHMARK(BM_X25519Base_Veil);

void BM_X25519Base_Libsodium(benchmark::State& state) {
  unsigned char sk[32], pk[32];
  randombytes_buf(sk, 32);
  for (auto _ : state) benchmark::DoNotOptimize(crypto_scalarmult_base(pk, sk));
}
BENCHMARK(BM_X25519Base_Libsodium);

void BM_Sha256_Veil(benchmark::State& state) {
  Bytes msg = RandomBytes(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(Sha256(msg));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Sha256_Veil)->Arg(32)->Arg(4096);

// Baseline: OpenSSL's one-shot EVP_Digest, which looks the digest up and allocates per call.
void BM_Sha256_OpenSSLEvpDigest(benchmark::State& state) {
  Bytes msg = RandomBytes(static_cast<std::size_t>(state.range(0)));
  unsigned char out[32];
  for (auto _ : state) {
    EVP_Digest(msg.data(), msg.size(), out, nullptr, EVP_sha256(), nullptr);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Sha256_OpenSSLEvpDigest)->Arg(32)->Arg(4096);

void BM_Sha256_Libsodium(benchmark::State& state) {
  Bytes msg = RandomBytes(static_cast<std::size_t>(state.range(0)));
  unsigned char out[32];
  for (auto _ : state) {
    crypto_hash_sha256(out, msg.data(), msg.size());
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Sha256_Libsodium)->Arg(32)->Arg(4096);

void BM_HmacSha256_64B_Veil(benchmark::State& state) {
  Hmac mac(HashAlg::kSha256, RandomBytes(32));
  Bytes msg = RandomBytes(64), tag(32);
  for (auto _ : state) {
    mac.Update(msg);
    mac.Final(tag);
  }
}
BENCHMARK(BM_HmacSha256_64B_Veil);

void BM_HmacSha256_64B_Libsodium(benchmark::State& state) {
  Bytes key = RandomBytes(32), msg = RandomBytes(64);
  unsigned char tag[32];
  for (auto _ : state) {
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, key.data(), key.size());
    crypto_auth_hmacsha256_update(&st, msg.data(), msg.size());
    crypto_auth_hmacsha256_final(&st, tag);
    benchmark::DoNotOptimize(tag);
  }
}
BENCHMARK(BM_HmacSha256_64B_Libsodium);

void BM_HkdfSha256_32B_Veil(benchmark::State& state) {
  Bytes ikm = RandomBytes(32), salt = RandomBytes(16);
  for (auto _ : state) benchmark::DoNotOptimize(Hkdf(HashAlg::kSha256, salt, ikm, {}, 32));
}
BENCHMARK(BM_HkdfSha256_32B_Veil);

void BM_ScryptRecoveryKit_N2e17(benchmark::State& state) {
  Bytes salt = RandomBytes(16);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        Scrypt(AsBytes("correct horse battery staple"), salt, kRecoveryKitScrypt, 32));
  }
}
BENCHMARK(BM_ScryptRecoveryKit_N2e17)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_Argon2idInteractive_64MiB(benchmark::State& state) {
  Bytes salt = RandomBytes(16);
  for (auto _ : state) {
    benchmark::DoNotOptimize(Argon2id(AsBytes("pw"), salt, kInteractiveArgon2id, 32));
  }
}
BENCHMARK(BM_Argon2idInteractive_64MiB)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace

namespace {

void BM_RandomBytes_Veil(benchmark::State& state) {
  veil::Bytes out(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    veil::crypto::RandomBytes(out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_RandomBytes_Veil)->Arg(32)->Arg(88)->Arg(4096);

// Baseline: libsodium's default generator, one getrandom(2) per call.
void BM_RandomBytes_LibsodiumSysrandom(benchmark::State& state) {
  veil::Bytes out(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    randombytes_buf(out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_RandomBytes_LibsodiumSysrandom)->Arg(32)->Arg(88)->Arg(4096);

}  // namespace
