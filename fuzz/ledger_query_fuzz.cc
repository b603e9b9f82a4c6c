// Fuzzes the ledger query parser (tokenizer, parser and type checker; no SQL).
//
// 1. Any input either parses or returns an InvalidArgument whose offset lies within the input
//    (or at its end), never crashes, and never recurses past the depth limit.
// 2. A query that parses prints (ToString) to a canonical text that parses again to the same
//    AST (and so the same canonical text), which ToCheckedString accepts as it is.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "veil/ledger/query.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  veil::ledger::QueryLimits limits;
  veil::ledger::query::ParseError error;
  auto e = veil::ledger::query::Parse(text, limits, &error);
  if (!e.ok()) {
    Check(e.status().code() == veil::Code::kInvalidArgument);
    Check(error.offset <= size || error.offset == limits.max_query_bytes);
    return 0;
  }
  const std::string canonical = veil::ledger::query::ToString(*e);
  veil::ledger::QueryLimits loose = limits;
  loose.max_query_bytes = 1 << 20;  // printing may lengthen the text
  loose.max_depth = 2 * limits.max_depth + 2;
  auto again = veil::ledger::query::Parse(canonical, loose);
  Check(again.ok());
  Check(*again == *e);
  Check(veil::ledger::query::ToString(*again) == canonical);
  auto checked = veil::ledger::query::ToCheckedString(*e);
  Check(checked.ok() && *checked == canonical);
  return 0;
}
