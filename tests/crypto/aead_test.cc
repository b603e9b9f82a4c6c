// AEAD: published known answers, round trips, and that every tampering is rejected.
#include "veil/crypto/aead.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "../../src/crypto/gcm_long_iv.h"
#include "test_util.h"
#include "veil/crypto/random.h"

namespace veil::crypto {
namespace {

using test::H;
using test::Hx;

constexpr AeadAlg kAll[] = {AeadAlg::kAes128Gcm, AeadAlg::kAes256Gcm, AeadAlg::kChaCha20Poly1305,
                            AeadAlg::kXChaCha20Poly1305};

// RFC 8439 section 2.8.2.
TEST(Aead, ChaCha20Poly1305Rfc8439) {
  auto aead = Aead::Create(AeadAlg::kChaCha20Poly1305,
                           H("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"));
  ASSERT_TRUE(aead.ok());
  const std::string pt =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  auto sealed =
      aead->Seal(H("070000004041424344454647"), H("50515253c0c1c2c3c4c5c6c7"), AsBytes(pt));
  ASSERT_TRUE(sealed.ok());
  EXPECT_EQ(Hx(ByteView(*sealed).first(16)), "d31a8d34648e60db7b86afbc53ef7ec2");
  EXPECT_EQ(Hx(ByteView(*sealed).last(16)), "1ae10b594f09e26a7e902ecbd0600691");
}

// NIST GCM spec test case 2 (AES-128, zero key, zero IV, one zero block).
TEST(Aead, AesGcmNistCase2) {
  auto aead = Aead::Create(AeadAlg::kAes128Gcm, Bytes(16, 0));
  ASSERT_TRUE(aead.ok());
  auto sealed = aead->Seal(Bytes(12, 0), {}, Bytes(16, 0));
  ASSERT_TRUE(sealed.ok());
  EXPECT_EQ(Hx(*sealed), "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf");
}

TEST(Aead, RoundTripEveryAlgorithmAndLength) {
  for (AeadAlg alg : kAll) {
    auto aead = Aead::Create(alg, RandomBytes(AeadKeySize(alg)));
    ASSERT_TRUE(aead.ok());
    for (std::size_t len : {0u, 1u, 15u, 16u, 17u, 255u, 4096u}) {
      Bytes nonce = RandomBytes(aead->nonce_size());
      Bytes aad = RandomBytes(len % 40);
      Bytes pt = RandomBytes(len);
      auto ct = aead->Seal(nonce, aad, pt);
      ASSERT_TRUE(ct.ok());
      ASSERT_EQ(ct->size(), len + kAeadTagSize);
      auto back = aead->Open(nonce, aad, *ct);
      ASSERT_TRUE(back.ok()) << AeadName(alg);
      EXPECT_TRUE(ConstantTimeEquals(back->Expose(), pt));
    }
  }
}

TEST(Aead, EveryFlippedBitIsRejected) {
  for (AeadAlg alg : kAll) {
    auto aead = Aead::Create(alg, RandomBytes(AeadKeySize(alg)));
    ASSERT_TRUE(aead.ok());
    Bytes nonce = RandomBytes(aead->nonce_size());
    Bytes aad = test::B("header");
    auto ct = aead->Seal(nonce, aad, AsBytes("attack at dawn"));
    ASSERT_TRUE(ct.ok());
    for (std::size_t i = 0; i < ct->size() * 8; ++i) {
      Bytes bad = *ct;
      bad[i / 8] ^= static_cast<std::uint8_t>(1u << (i % 8));
      EXPECT_EQ(aead->Open(nonce, aad, bad).status().code(), Code::kVerificationFailed);
    }
    Bytes bad_nonce = nonce;
    bad_nonce[0] ^= 1;
    EXPECT_EQ(aead->Open(bad_nonce, aad, *ct).status().code(), Code::kVerificationFailed);
    EXPECT_EQ(aead->Open(nonce, test::B("headex"), *ct).status().code(), Code::kVerificationFailed);
    EXPECT_EQ(aead->Open(nonce, aad, ByteView(*ct).first(15)).status().code(),
              Code::kVerificationFailed);
  }
}

TEST(Aead, BadSizesAreInvalidArgument) {
  EXPECT_EQ(Aead::Create(AeadAlg::kAes256Gcm, Bytes(16)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Aead::Create(AeadAlg::kChaCha20Poly1305, Bytes(31)).status().code(),
            Code::kInvalidArgument);
  auto aead = Aead::Create(AeadAlg::kXChaCha20Poly1305, Bytes(32));
  ASSERT_TRUE(aead.ok());
  EXPECT_EQ(aead->Seal(Bytes(12), {}, {}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(aead->Open(Bytes(12), {}, Bytes(32)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(AesGcm::Create(Bytes(20)).status().code(), Code::kInvalidArgument);
  auto gcm = AesGcm::Create(Bytes(16));
  ASSERT_TRUE(gcm.ok());
  Bytes out(16);
  EXPECT_EQ(gcm->Seal({}, {}, {}, out).code(), Code::kInvalidArgument);
}

// The long-IV path: for IVs OpenSSL takes directly (up to 128 bytes), sealing under the computed
// 16-byte equivalent IV must give the same ciphertext and tag.
TEST(AesGcm, EquivalentIvMatchesDirectIv) {
  Bytes key = RandomBytes(32);
  internal::Block h{};
  {
    EVP_CIPHER_CTX* ecb = EVP_CIPHER_CTX_new();
    int len = 0;
    ASSERT_EQ(EVP_EncryptInit_ex(ecb, EVP_aes_256_ecb(), nullptr, key.data(), nullptr), 1);
    ASSERT_EQ(EVP_EncryptUpdate(ecb, h.data(), &len, h.data(), 16), 1);
    EVP_CIPHER_CTX_free(ecb);
  }
  auto gcm = AesGcm::Create(key);
  ASSERT_TRUE(gcm.ok());
  for (std::size_t iv_len : {1u, 13u, 16u, 17u, 64u, 100u, 128u}) {
    Bytes iv = RandomBytes(iv_len);
    internal::Block equivalent;
    internal::GcmEquivalentIv(h, iv, equivalent);
    Bytes pt = RandomBytes(50), aad = RandomBytes(7);
    Bytes direct(pt.size() + 16), mapped(pt.size() + 16), back(pt.size());
    ASSERT_TRUE(gcm->Seal(iv, aad, pt, direct).ok());
    ASSERT_TRUE(gcm->Seal(equivalent, aad, pt, mapped).ok());
    EXPECT_EQ(direct, mapped) << iv_len;
    ASSERT_TRUE(gcm->Open(iv, aad, mapped, back).ok());
    EXPECT_EQ(back, pt);
  }
  // A long IV round-trips and differs from its 128-byte truncation.
  Bytes long_iv = RandomBytes(300);
  Bytes pt = RandomBytes(40);
  Bytes c1(56), c2(56), back(40);
  ASSERT_TRUE(gcm->Seal(long_iv, {}, pt, c1).ok());
  ASSERT_TRUE(gcm->Open(long_iv, {}, c1, back).ok());
  EXPECT_EQ(back, pt);
  ASSERT_TRUE(gcm->Seal(ByteView(long_iv).first(128), {}, pt, c2).ok());
  EXPECT_NE(c1, c2);
}

TEST(AesGcm, GcmMulIdentityAndCommutes) {
  internal::Block one{};
  one[0] = 0x80;  // the field's 1 in GCM bit order
  Bytes a = RandomBytes(16), b = RandomBytes(16);
  internal::Block x, y;
  std::copy(a.begin(), a.end(), x.begin());
  std::copy(b.begin(), b.end(), y.begin());
  EXPECT_EQ(internal::GcmMul(x, one), x);
  EXPECT_EQ(internal::GcmMul(x, y), internal::GcmMul(y, x));
}

}  // namespace
}  // namespace veil::crypto
