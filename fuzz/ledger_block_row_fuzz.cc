// Fuzzes the decoders of a block row's packed transactions and changes (store.h, DecodeBlockTxs
// and DecodeBlockChanges: what a SQLite ledger file of format 4 keeps in `blocks.txs` and
// `blocks.changes`, read back from a file anyone with disk access could have edited).
//
// Any input decodes or returns kDataLoss; what decodes re-encodes to exactly the input (the
// encoding is canonical), has the count it was asked for, and numbers its items from the block
// and first sequence number given. The first input byte picks the decoder and the expected count.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "veil/ledger/store.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void Same(const veil::Bytes& again, veil::ByteView in) {
  Check(again.size() == in.size() &&
        (in.empty() || std::memcmp(again.data(), in.data(), in.size()) == 0));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint32_t count = data[0] & 0x7f;
  const veil::ByteView in(data + 1, size - 1);
  constexpr std::uint64_t kBlock = 7;
  if ((data[0] & 0x80) != 0) {
    auto txs = veil::ledger::DecodeBlockTxs(in, kBlock, count);
    if (!txs.ok()) {
      Check(txs.status().code() == veil::Code::kDataLoss);
      return 0;
    }
    Check(txs->size() == count);
    for (std::size_t i = 0; i < txs->size(); ++i) {
      Check((*txs)[i].block == kBlock && (*txs)[i].index == i);
    }
    Same(veil::ledger::EncodeBlockTxs(*txs), in);
    return 0;
  }
  constexpr std::uint64_t kFirstSeq = 40;
  auto changes = veil::ledger::DecodeBlockChanges(in, kBlock, kFirstSeq, count);
  if (!changes.ok()) {
    Check(changes.status().code() == veil::Code::kDataLoss);
    return 0;
  }
  Check(changes->size() == count);
  for (std::size_t i = 0; i < changes->size(); ++i) {
    Check((*changes)[i].block == kBlock && (*changes)[i].seq == kFirstSeq + i);
  }
  Same(veil::ledger::EncodeBlockChanges(*changes), in);
  return 0;
}
