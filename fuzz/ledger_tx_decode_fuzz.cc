// Fuzzes the ledger transaction decoder.
//
// 1. Any input decodes or returns an error; a transaction that decodes re-encodes to exactly the
//    input (the encoding is canonical) and passes ValidateTransaction; verifying its signature
//    returns a status and never crashes.
// 2. The same under a small Limits profile, so the bounds checks are reached with short inputs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "veil/ledger/transaction.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void DecodeWith(veil::ByteView in, const veil::ledger::Limits& limits) {
  auto stx = veil::ledger::Decode(in, limits);
  if (!stx.ok()) return;
  const veil::Bytes again = veil::ledger::Encode(*stx);
  Check(again.size() == in.size() && std::memcmp(again.data(), in.data(), in.size()) == 0);
  Check(veil::ledger::ValidateTransaction(stx->tx, limits).ok());
  veil::ledger::VerifySignature(*stx).IgnoreError();
  (void)veil::ledger::TxGas(stx->tx, in, limits.gas);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const veil::ByteView in(data, size);
  DecodeWith(in, veil::ledger::Limits::Arkiv());
  veil::ledger::Limits small = veil::ledger::Limits::Arkiv();
  small.max_payload_bytes = 16;
  small.max_create_attributes = 2;
  small.max_entity_attributes = 3;
  small.max_attribute_name = 4;
  small.max_string_value = 8;
  small.max_content_type = 12;
  small.max_ops_per_tx = 3;
  DecodeWith(in, small);
  return 0;
}
