// LedgerAdmin: a ledger as its operator sees it: every product call (LedgerApi) and the calls
// that explain a read's plan or check the whole chain, which products have no use for and a node
// may refuse. LocalLedger (local.h) and RemoteLedger (remote.h) implement it; the `veil-ledger`
// CLI and the node's method table (apps/veil-ledger) take it, products take a LedgerApi.
//
// Thread safety: as LedgerApi.
#pragma once

#include <string>
#include <string_view>

#include "veil/base/result.h"
#include "veil/ledger/api.h"

namespace veil::ledger {

class LedgerAdmin : public LedgerApi {
 public:
  // The compiled query, its SQL and parameters, and the database's plan.
  virtual Result<std::string> Explain(std::string_view query, const QueryOptions& options) = 0;
  // Count's plan: the counters for "*", else the count statement and the database's plan.
  virtual Result<std::string> ExplainCount(std::string_view query) = 0;
  // ok, or kDataLoss naming the first block or entity that does not match its hash. A scan of
  // the whole chain: a node (RemoteLedger) refuses it with kPermissionDenied unless it was
  // started with --operator-rpc; `veil-ledger verify-chain --store SPEC` runs it beside the
  // node. Writes go on while it runs (Ledger::VerifyChain).
  virtual Status VerifyChain() = 0;
};

}  // namespace veil::ledger
