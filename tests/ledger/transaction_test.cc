// Tests for the transaction encoding, its strict decoder, validation and signatures.
#include "veil/ledger/transaction.h"

#include <gtest/gtest.h>

#include <optional>

#include "veil/base/codec.h"
#include "veil/crypto/hash.h"
#include "veil/ledger/store.h"

namespace veil::ledger {
namespace {

const Limits kLimits = Limits::Arkiv();

Transaction SampleTx() {
  Transaction tx;
  tx.chain_id = 7;
  tx.nonce = 3;
  CreateOp c;
  c.expires_block = 100;
  c.content_type = "application/json";
  c.payload = {1, 2, 3};
  c.attributes = {Attribute::Num("a", 5), Attribute::Str("b", "hello")};
  tx.ops.push_back(c);
  UpdateOp u;
  u.key[0] = 1;
  u.set = {Attribute::Str("x", "y")};
  u.unset = {"p", "q"};
  u.replace_payload = true;
  u.content_type = "text/plain";
  u.payload = {9};
  tx.ops.push_back(u);
  tx.ops.push_back(ExtendOp{u.key, 200});
  TransferOp t;
  t.key = u.key;
  t.new_owner[3] = 4;
  tx.ops.push_back(t);
  tx.ops.push_back(DeleteOp{u.key});
  return tx;
}

Status Validate(const Transaction& tx) { return ValidateTransaction(tx, kLimits); }

TEST(LedgerTx, EncodeDecodeRoundTrip) {
  const auto key = crypto::Ed25519SigningKey::Generate();
  auto enc = SignEd25519(SampleTx(), key, kLimits);
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  auto dec = Decode(*enc, kLimits);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(Encode(*dec), *enc);
  EXPECT_TRUE(VerifySignature(*dec).ok());
  EXPECT_EQ(dec->Sender(), AddressOf(SigScheme::kEd25519, key.public_key()));
  EXPECT_EQ(dec->tx.ops.size(), 5u);
  EXPECT_EQ(std::get<CreateOp>(dec->tx.ops[0]).attributes[1], Attribute::Str("b", "hello"));
}

TEST(LedgerTx, DecoderRejectsNonCanonical) {
  const auto key = crypto::Ed25519SigningKey::Generate();
  const Bytes enc = *SignEd25519(SampleTx(), key, kLimits);
  Bytes trailing = enc;
  trailing.push_back(0);
  EXPECT_FALSE(Decode(trailing, kLimits).ok());
  for (std::size_t n = 0; n < enc.size(); n += 7) {
    EXPECT_FALSE(Decode(ByteView(enc).first(n), kLimits).ok()) << n;
  }
  for (const std::uint8_t v : {std::uint8_t{0}, std::uint8_t{3}, std::uint8_t{255}}) {
    Bytes bad_version = enc;
    bad_version[2] = v;
    EXPECT_FALSE(Decode(bad_version, kLimits).ok()) << int{v};
  }
  Bytes bad_scheme = enc;
  bad_scheme[11] = 9;  // after tag(2) version(1) chain id(8)
  EXPECT_FALSE(Decode(bad_scheme, kLimits).ok());

  // Unsorted attributes encoded by hand must not decode.
  Transaction tx = SampleTx();
  auto& attrs = std::get<CreateOp>(tx.ops[0]).attributes;
  std::swap(attrs[0], attrs[1]);
  SignedTransaction stx;
  stx.tx = tx;
  stx.public_key.assign(key.public_key().begin(), key.public_key().end());
  stx.signature.assign(64, 0);
  EXPECT_FALSE(Decode(Encode(stx), kLimits).ok());
  // A wrong signature length is rejected.
  std::swap(attrs[0], attrs[1]);
  stx.tx = tx;
  stx.signature.assign(63, 0);
  EXPECT_FALSE(Decode(Encode(stx), kLimits).ok());
}

TEST(LedgerTx, EveryLimit) {
  auto with_create = [](auto mutate) {
    Transaction tx;
    tx.chain_id = 1;
    CreateOp c;
    c.expires_block = 10;
    c.content_type = "text/plain";
    mutate(c);
    tx.ops.push_back(c);
    return Validate(tx);
  };
  EXPECT_TRUE(with_create([](CreateOp&) {}).ok());
  EXPECT_EQ(with_create([](CreateOp& c) { c.payload.resize(131'073); }).code(),
            Code::kResourceExhausted);
  EXPECT_TRUE(with_create([](CreateOp& c) { c.payload.resize(131'072); }).ok());
  EXPECT_FALSE(with_create([](CreateOp& c) {
                 for (int i = 0; i < 31; ++i) {
                   c.attributes.push_back(Attribute::Num("a" + std::to_string(100 + i), 1));
                 }
               }).ok());
  EXPECT_TRUE(with_create([](CreateOp& c) {
                for (int i = 0; i < 30; ++i) {
                  c.attributes.push_back(Attribute::Num("a" + std::to_string(100 + i), 1));
                }
              }).ok());
  for (const char* bad : {"Abc", "1a", "a b", "_a", "", "key", "and", "a$"}) {
    EXPECT_FALSE(with_create([&](CreateOp& c) { c.attributes = {Attribute::Num(bad, 1)}; }).ok())
        << bad;
  }
  EXPECT_FALSE(with_create([](CreateOp& c) {
                 c.attributes = {Attribute::Num(std::string(33, 'a'), 1)};
               }).ok());
  EXPECT_TRUE(with_create([](CreateOp& c) {
                c.attributes = {Attribute::Num(std::string(32, 'a'), 1)};
              }).ok());
  EXPECT_FALSE(with_create([](CreateOp& c) {
                 c.attributes = {Attribute::Str("s", std::string(129, 'x'))};
               }).ok());
  EXPECT_TRUE(with_create([](CreateOp& c) {
                c.attributes = {Attribute::Str("s", std::string(128, 'x'))};
              }).ok());
  EXPECT_FALSE(
      with_create([](CreateOp& c) { c.attributes = {Attribute::Str("s", "a\x01")}; }).ok());
  EXPECT_FALSE(
      with_create([](CreateOp& c) { c.attributes = {Attribute::Str("s", "\xc0\x80")}; }).ok());
  EXPECT_TRUE(
      with_create([](CreateOp& c) { c.attributes = {Attribute::Str("s", "\xc3\xa9")}; }).ok());
  const Status dup = with_create([](CreateOp& c) {
    c.attributes = {Attribute::Num("a", 1), Attribute::Str("a", "x")};
  });
  EXPECT_NE(dup.message().find("duplicate"), std::string::npos) << dup.ToString();
  EXPECT_FALSE(with_create([](CreateOp& c) { c.content_type = "Text/Plain"; }).ok());
  EXPECT_FALSE(with_create([](CreateOp& c) { c.content_type = "text/plain; a=b"; }).ok());

  Transaction empty;
  EXPECT_FALSE(Validate(empty).ok());
  Transaction many;
  for (int i = 0; i < 201; ++i) many.ops.push_back(DeleteOp{});
  EXPECT_EQ(Validate(many).code(), Code::kResourceExhausted);
  Transaction patch;
  patch.ops.push_back(UpdateOp{});
  EXPECT_FALSE(Validate(patch).ok());  // empty patch
  UpdateOp both;
  both.set = {Attribute::Num("a", 1)};
  both.unset = {"a"};
  patch.ops = {both};
  EXPECT_FALSE(Validate(patch).ok());
}

TEST(LedgerTx, EncodedSizesMatchTheNote) {
  // docs/notes/ledger.md: a one-create transaction with a 1-byte payload, a 24-byte content type
  // and no attributes is 157 bytes; a numeric attribute adds 10 + name, a string 3 + name + value.
  const auto key = crypto::Ed25519SigningKey::Generate();
  Transaction tx;
  tx.chain_id = 1;
  CreateOp c;
  c.expires_block = 10;
  c.content_type = "application/octet-stream";
  c.payload = {1};
  tx.ops = {c};
  EXPECT_EQ(SignEd25519(tx, key, kLimits)->size(), 157u);
  c.attributes = {Attribute::Num("abc", 1)};
  tx.ops = {c};
  EXPECT_EQ(SignEd25519(tx, key, kLimits)->size(), 157u + 10 + 3);
  c.attributes = {Attribute::Str("abc", "hello")};
  tx.ops = {c};
  EXPECT_EQ(SignEd25519(tx, key, kLimits)->size(), 157u + 3 + 3 + 5);
}

// Creation flags travel in format 2; format 1 (no flags byte) is still decoded, verified and
// re-encoded byte for byte; unknown flag bits are refused.
TEST(LedgerTx, FormatsAndCreationFlags) {
  const auto key = crypto::Ed25519SigningKey::Generate();
  Transaction tx = SampleTx();
  std::get<CreateOp>(tx.ops[0]).flags = kFlagReadonly | kFlagPermissionlessExtension;
  const Bytes enc = *SignEd25519(tx, key, kLimits);
  EXPECT_EQ(enc[2], kTxFormat);
  auto dec = Decode(enc, kLimits);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(dec->format, kTxFormat);
  EXPECT_EQ(std::get<CreateOp>(dec->tx.ops[0]).flags, 3u);
  EXPECT_EQ(Encode(*dec), enc);
  EXPECT_TRUE(VerifySignature(*dec).ok());
  // The flags are signed: another value breaks the signature (the byte after expires u64).
  const std::size_t flags_at = 3 + 8 + 1 + 1 + 32 + 8 + 1 + 1 + 8;
  ASSERT_EQ(enc[flags_at], 3u);
  Bytes other = enc;
  other[flags_at] = kFlagReadonly;
  auto dec_other = Decode(other, kLimits);
  ASSERT_TRUE(dec_other.ok());
  EXPECT_FALSE(VerifySignature(*dec_other).ok());
  for (const std::uint8_t bad :
       {std::uint8_t{4}, std::uint8_t{8}, std::uint8_t{128}, std::uint8_t{255}}) {
    Bytes unknown = enc;
    unknown[flags_at] = bad;
    EXPECT_EQ(Decode(unknown, kLimits).status().code(), Code::kInvalidArgument) << int{bad};
  }

  // A format-1 transaction, signed over its format-1 body as a build before flags did.
  const Transaction plain = SampleTx();
  const Bytes body = EncodeBody(plain, SigScheme::kEd25519, key.public_key(), kTxFormatV1);
  ASSERT_EQ(body[2], kTxFormatV1);
  const auto sig = key.Sign(Concat({AsBytes("veil.ledger.tx.v1"), body}));
  Writer w;
  w.Fixed(body).VarBytes(sig);
  const Bytes v1 = std::move(w).Take();
  EXPECT_EQ(v1.size() + 1, SignEd25519(plain, key, kLimits)->size());  // one create, one byte
  auto old = Decode(v1, kLimits);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->format, kTxFormatV1);
  EXPECT_EQ(std::get<CreateOp>(old->tx.ops[0]).flags, 0u);
  EXPECT_TRUE(VerifySignature(*old).ok());
  EXPECT_EQ(Encode(*old), v1);
  EXPECT_EQ(old->tx.ops.size(), 5u);
  // The same body read as format 2 does not decode or does not verify.
  Bytes as_v2 = v1;
  as_v2[2] = kTxFormat;
  auto mis = Decode(as_v2, kLimits);
  EXPECT_TRUE(!mis.ok() || !VerifySignature(*mis).ok());
  // Format 1 cannot carry flags: a body asked for in format 1 with flags comes out in format 2,
  // so no format-1 signature ever covers a transaction with flags.
  EXPECT_EQ(EncodeBody(tx, SigScheme::kEd25519, key.public_key(), kTxFormatV1)[2], kTxFormat);
}

TEST(LedgerTx, SignatureBinding) {
  const auto key = crypto::Ed25519SigningKey::Generate();
  Bytes enc = *SignEd25519(SampleTx(), key, kLimits);
  enc[enc.size() - 5] ^= 1;  // in the signature
  auto dec = Decode(enc, kLimits);
  ASSERT_TRUE(dec.ok());
  EXPECT_EQ(VerifySignature(*dec).code(), Code::kVerificationFailed);
  Bytes enc2 = *SignEd25519(SampleTx(), key, kLimits);
  enc2[20] ^= 1;  // in the public key
  auto dec2 = Decode(enc2, kLimits);
  ASSERT_TRUE(dec2.ok());
  EXPECT_FALSE(VerifySignature(*dec2).ok());
}

// The verifier with its key cache gives VerifySignature's verdict on a sender's first sighting
// (one-shot), second (the key prepared) and later ones (the prepared key), for good signatures,
// a flipped signature bit and a changed body; a key that no signature can verify under is never
// cached; the cache holds at most its capacity.
TEST(LedgerTx, SignatureVerifierAgreesOnEverySighting) {
  SignatureVerifier verifier(/*capacity=*/2);
  const auto key = crypto::Ed25519SigningKey::Generate();
  for (int sighting = 0; sighting < 4; ++sighting) {
    Transaction tx = SampleTx();
    tx.nonce = static_cast<std::uint64_t>(sighting);
    const Bytes enc = *SignEd25519(tx, key, kLimits);
    const auto good = Decode(enc, kLimits);
    ASSERT_TRUE(good.ok());
    EXPECT_TRUE(verifier.Verify(*good).ok()) << sighting;
    // The very first check is one-shot: nothing is prepared for a key seen once.
    if (sighting == 0) {
      EXPECT_EQ(verifier.prepared_keys(), 0u);
    }
    Bytes flipped = enc;
    flipped[flipped.size() - 40] ^= 0x10;  // in S
    EXPECT_EQ(verifier.Verify(*Decode(flipped, kLimits)).code(), Code::kVerificationFailed);
    SignedTransaction other_body = *good;
    other_body.tx.nonce += 100;
    EXPECT_EQ(verifier.Verify(other_body).code(), Code::kVerificationFailed);
    EXPECT_EQ(VerifySignature(other_body).code(), Code::kVerificationFailed);
  }
  EXPECT_EQ(verifier.prepared_keys(), 1u);
  // A small-order key (the identity's encoding) with a signature that the cofactorless equation
  // would accept (R = identity, S = 0): refused on every sighting, never prepared.
  SignedTransaction weak = *Decode(*SignEd25519(SampleTx(), key, kLimits), kLimits);
  std::fill(weak.public_key.begin(), weak.public_key.end(), 0);
  weak.public_key[0] = 1;
  std::fill(weak.signature.begin(), weak.signature.end(), 0);
  weak.signature[0] = 1;
  for (int sighting = 0; sighting < 3; ++sighting) {
    EXPECT_EQ(verifier.Verify(weak).code(), Code::kVerificationFailed);
  }
  EXPECT_EQ(verifier.prepared_keys(), 1u);
  // Five more senders, each signing twice: the cache stays at its capacity, and every check
  // still passes after evictions.
  for (int i = 0; i < 5; ++i) {
    const auto k = crypto::Ed25519SigningKey::Generate();
    for (int j = 0; j < 3; ++j) {
      Transaction tx = SampleTx();
      tx.nonce = static_cast<std::uint64_t>(j);
      EXPECT_TRUE(verifier.Verify(*Decode(*SignEd25519(tx, k, kLimits), kLimits)).ok());
    }
  }
  EXPECT_EQ(verifier.prepared_keys(), 2u);
  // The composite scheme goes through as VerifySignature.
  const auto ck = crypto::CompositeSigningKey::Generate();
  const auto composite = Decode(*SignComposite(SampleTx(), ck, kLimits), kLimits);
  ASSERT_TRUE(composite.ok());
  EXPECT_TRUE(verifier.Verify(*composite).ok());
}

// The composite ML-DSA-65 + Ed25519 scheme (SigScheme 2): the same transaction format with a
// 1984-byte key and a 3373-byte signature, each part bound, neither component usable alone.
TEST(LedgerTx, CompositeSignature) {
  const auto key = crypto::CompositeSigningKey::Generate();
  const auto& pk = key.verifying_key().bytes();
  auto enc = SignComposite(SampleTx(), key, kLimits);
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  auto dec = Decode(*enc, kLimits);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(Encode(*dec), *enc);
  EXPECT_EQ(dec->scheme, SigScheme::kCompositeMlDsa65Ed25519);
  EXPECT_TRUE(VerifySignature(*dec).ok());
  EXPECT_EQ(dec->Sender(), AddressOf(SigScheme::kCompositeMlDsa65Ed25519, pk));
  // Sizes: the key and signature grow by 1952 and 3309 bytes, each length's varint by one.
  const auto ed = crypto::Ed25519SigningKey::Generate();
  EXPECT_EQ(enc->size(), SignEd25519(SampleTx(), ed, kLimits)->size() + 1952 + 3309 + 2);
  // Hedged: a second signature differs and verifies too.
  const Bytes again = *SignComposite(SampleTx(), key, kLimits);
  EXPECT_NE(again, *enc);
  EXPECT_TRUE(VerifySignature(*Decode(again, kLimits)).ok());

  // A flipped bit in the ML-DSA part, the Ed25519 part, the key or the body (the chain id, 8
  // bytes after the tag and version) still decodes, and is refused by the signature.
  const std::size_t sig_at = enc->size() - crypto::kCompositeSignatureSize;
  for (const std::size_t at : {sig_at + 100, enc->size() - 5, sig_at - 3 - 500, std::size_t{5}}) {
    Bytes bad = *enc;
    bad[at] ^= 1;
    auto d = Decode(bad, kLimits);
    ASSERT_TRUE(d.ok()) << "byte " << at << ": " << d.status().ToString();
    EXPECT_EQ(VerifySignature(*d).code(), Code::kVerificationFailed) << "byte " << at;
  }
  // The Ed25519 component lifted out as a plain Ed25519 transaction does not verify: it signed
  // the composite's message representative, not the Ed25519 scheme's message.
  SignedTransaction lifted = *dec;
  lifted.scheme = SigScheme::kEd25519;
  lifted.public_key.assign(pk.end() - 32, pk.end());
  lifted.signature.assign(dec->signature.end() - 64, dec->signature.end());
  auto relifted = Decode(Encode(lifted), kLimits);
  ASSERT_TRUE(relifted.ok());
  EXPECT_EQ(VerifySignature(*relifted).code(), Code::kVerificationFailed);
  // A signature under the other scheme's tag has the wrong sizes: refused by the decoder.
  SignedTransaction mixed = *dec;
  mixed.scheme = SigScheme::kEd25519;
  EXPECT_FALSE(Decode(Encode(mixed), kLimits).ok());
  // Validation runs before signing.
  Transaction empty = SampleTx();
  empty.ops.clear();
  EXPECT_EQ(SignComposite(empty, key, kLimits).status().code(), Code::kInvalidArgument);
}

TEST(LedgerTx, GasAndKeys) {
  const auto key = crypto::Ed25519SigningKey::Generate();
  const Transaction tx = SampleTx();
  const Bytes enc = *SignEd25519(tx, key, kLimits);
  const GasSchedule g;
  const std::uint64_t gas = TxGas(tx, enc, g);
  EXPECT_GT(gas, g.tx_base + g.op_create + g.op_update + g.op_extend + g.op_transfer + g.op_delete);
  EXPECT_EQ(StoredBytes(tx), 3u + 16 + (1 + 8) + (1 + 5) + (1 + 1) + 1 + 10);
  const Address a = AddressOf(SigScheme::kEd25519, key.public_key());
  EXPECT_NE(DeriveEntityKey(1, a, 0), DeriveEntityKey(1, a, 1));
  EXPECT_NE(DeriveEntityKey(1, a, 0), DeriveEntityKey(2, a, 0));
}

// The entity hash is the documented layout (docs/notes/ledger.md, "Hashing"), rebuilt here from
// the note: without flags the v1 form every entity had before flags existed (so old chains keep
// verifying), with flags the v2 label and the flags byte after the creator.
TEST(LedgerTx, EntityHashFollowsTheNote) {
  Entity e;
  for (std::size_t i = 0; i < e.key.size(); ++i) e.key[i] = static_cast<std::uint8_t>(i);
  e.owner.fill(0xAA);
  e.creator.fill(0xBB);
  e.content_type = "text/plain";
  e.payload = {1, 2, 3};
  e.attributes = {Attribute::Num("a", 5), Attribute::Str("b", "x")};
  e.created_block = 7;
  e.updated_block = 8;
  e.expires_block = 9;
  e.last_change = 99;  // not hashed
  auto expected = [&](std::string_view label, std::optional<std::uint8_t> flags) {
    Writer w;
    w.Fixed(AsBytes(label)).Fixed(e.key).Fixed(e.owner).Fixed(e.creator);
    if (flags) w.U8(*flags);
    w.U64(7).U64(8).U64(9).String("text/plain").Fixed(crypto::Sha256(e.payload));
    w.Varint(2).String("a").U8(3).U64(5).String("b").U8(8).String("x");
    const auto d = crypto::Sha256(w.bytes());
    return Hash32(d);
  };
  EXPECT_EQ(EntityHash(e), expected("veil.ledger.entity.v1", std::nullopt));
  e.flags = kFlagReadonly;
  EXPECT_EQ(EntityHash(e), expected("veil.ledger.entity.v2", kFlagReadonly));
  const Hash32 readonly = EntityHash(e);
  e.flags = kFlagPermissionlessExtension;
  EXPECT_NE(EntityHash(e), readonly);
}

// A block row's packed transactions and changes (store.h): a round trip numbers them from the
// block and first sequence number; a wrong count, an unknown kind, a short or long buffer are
// kDataLoss naming the block.
TEST(BlockRowTest, TransactionsAndChangesRoundTripStrictly) {
  std::vector<StoredTx> txs(2);
  for (std::uint32_t i = 0; i < 2; ++i) {
    txs[i].block = 9;
    txs[i].index = i;
    txs[i].hash.fill(static_cast<std::uint8_t>(i + 1));
    txs[i].gas = 1000 + i;
    txs[i].encoded = Bytes(5 + i, static_cast<std::uint8_t>(0xa0 + i));
  }
  const Bytes packed = EncodeBlockTxs(txs);
  auto back = DecodeBlockTxs(packed, 9, 2);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*back)[i].block, 9u);
    EXPECT_EQ((*back)[i].index, i);
    EXPECT_EQ((*back)[i].hash, txs[i].hash);
    EXPECT_EQ((*back)[i].gas, txs[i].gas);
    EXPECT_EQ((*back)[i].encoded, txs[i].encoded);
  }
  EXPECT_EQ(DecodeBlockTxs(EncodeBlockTxs({}), 9, 0)->size(), 0u);
  Bytes longer = packed;
  longer.push_back(0);
  const Bytes shorter(packed.begin(), packed.end() - 1);
  for (const auto& [bytes, count] : std::vector<std::pair<Bytes, std::uint32_t>>{
           {packed, 1}, {packed, 3}, {longer, 2}, {shorter, 2}, {Bytes{}, 0}}) {
    auto bad = DecodeBlockTxs(bytes, 9, count);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), Code::kDataLoss);
    EXPECT_NE(bad.status().message().find("block 9: stored transactions"), std::string::npos)
        << bad.status().ToString();
  }

  std::vector<Change> changes(3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    changes[i].seq = 40 + i;
    changes[i].block = 9;
    changes[i].kind = static_cast<ChangeKind>(i + 1);
    changes[i].key.fill(static_cast<std::uint8_t>(0x10 + i));
    changes[i].entity_hash.fill(static_cast<std::uint8_t>(0x20 + i));
  }
  const Bytes packed_changes = EncodeBlockChanges(changes);
  auto changes_back = DecodeBlockChanges(packed_changes, 9, 40, 3);
  ASSERT_TRUE(changes_back.ok()) << changes_back.status().ToString();
  EXPECT_EQ(*changes_back, changes);
  Bytes unknown_kind = packed_changes;
  unknown_kind[4] = 6;  // after the count: the first change's kind
  Bytes zero_kind = packed_changes;
  zero_kind[4] = 0;
  for (const auto& [bytes, count] : std::vector<std::pair<Bytes, std::uint32_t>>{
           {packed_changes, 2},
           {unknown_kind, 3},
           {zero_kind, 3},
           {Bytes(packed_changes.begin(), packed_changes.end() - 1), 3}}) {
    auto bad = DecodeBlockChanges(bytes, 9, 40, count);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), Code::kDataLoss);
    EXPECT_NE(bad.status().message().find("block 9: stored changes"), std::string::npos)
        << bad.status().ToString();
  }
}

}  // namespace
}  // namespace veil::ledger
