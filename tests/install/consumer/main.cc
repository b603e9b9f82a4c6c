// A program outside Veil's tree, built against an installed Veil (tests/install/check): signs and
// verifies a message with Veil::crypto, then signs a ledger transaction with Veil::ledger, lands
// it in a block of a ledger on an in-memory SQLite store and reads the entity back. Exits 0 when
// every step gives what it must, and a forged signature is refused.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "veil/base/bytes.h"
#include "veil/crypto/ed25519.h"
#include "veil/ledger/ledger.h"
#include "veil/ledger/local.h"
#include "veil/ledger/store.h"
#include "veil/ledger/transaction.h"

namespace {

int Fail(const char* what, const veil::Status& s = veil::Status::Ok()) {
  std::fprintf(stderr, "consumer: %s %s\n", what, s.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  using namespace veil;
  const crypto::Ed25519SigningKey key = crypto::Ed25519SigningKey::Generate();
  const Bytes message = {'v', 'e', 'i', 'l'};
  crypto::Ed25519Signature signature = key.Sign(message);
  if (Status s = crypto::Ed25519Verify(key.public_key(), message, signature); !s.ok()) {
    return Fail("a signature does not verify:", s);
  }
  signature[0] ^= 1;
  if (crypto::Ed25519Verify(key.public_key(), message, signature).ok()) {
    return Fail("a forged signature verifies");
  }

  ledger::LedgerOptions options;
  auto store = ledger::OpenSqliteStore(ledger::SqliteOptions{});
  if (!store.ok()) return Fail("OpenSqliteStore:", store.status());
  auto chain = ledger::Ledger::Open(std::move(*store), options);
  if (!chain.ok()) return Fail("Ledger::Open:", chain.status());
  ledger::LocalLedger api(std::move(*chain));
  // A lifetime of a minute, on the chain's expiry clock.
  auto info = api.ChainInfo();
  if (!info.ok()) return Fail("ChainInfo:", info.status());
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  ledger::CreateOp create;
  create.expires_block = info->ExpiryFor(static_cast<std::uint64_t>(now.count()), 60'000);
  create.content_type = "text/plain";
  create.payload = message;
  create.attributes = {ledger::Attribute::Str("kind", "greeting")};
  ledger::Transaction tx;
  tx.chain_id = options.chain_id;
  tx.ops.push_back(std::move(create));
  auto encoded = ledger::SignEd25519(tx, key, options.limits);
  if (!encoded.ok()) return Fail("SignEd25519:", encoded.status());
  auto receipt = api.Submit(*encoded);
  if (!receipt.ok()) return Fail("Submit:", receipt.status());
  if (!receipt->status.ok() || receipt->created.size() != 1) {
    return Fail("the transaction failed:", receipt->status);
  }
  auto entity = api.Get(receipt->created[0]);
  if (!entity.ok()) return Fail("Get:", entity.status());
  if (!entity->has_value() || (*entity)->payload != message) {
    return Fail("the entity read back differs");
  }
  std::printf("consumer: signed, verified, landed in block %llu and read back\n",
              static_cast<unsigned long long>(receipt->block));
  return 0;
}
