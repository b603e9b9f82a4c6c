// Differential fuzzing of the page reader without a DOM (ledger/json.h, ReadPageWithoutDom)
// against the strict DOM decoder (QueryPageFromJson), which defines what a page is.
//
// Input: one byte choosing the projection (its 8 bits, one column per bit; 0 means all),
// then the JSON text. Checks: nothing crashes; whatever the reader without a DOM returns, the DOM
// decoder returns too, value for value (it may decline what the DOM decoder accepts, never the
// reverse); QueryPageFromJsonText succeeds exactly when the DOM decoder does.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "veil/ledger/json.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

bool SamePage(const veil::ledger::QueryPage& a, const veil::ledger::QueryPage& b) {
  return a.entities == b.entities && a.cursor == b.cursor && a.block == b.block &&
         a.cost.query_units == b.cost.query_units && a.cost.rows_scanned == b.cost.rows_scanned &&
         a.cost.rows_returned == b.cost.rows_returned &&
         a.cost.bytes_returned == b.cost.bytes_returned;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  namespace lj = veil::ledger::json;
  const unsigned mask = data[0];
  veil::ledger::Projection p;
  if (mask != 0) {
    p = veil::ledger::Projection{(mask & 1) != 0,  (mask & 2) != 0,  (mask & 4) != 0,
                                 (mask & 8) != 0,  (mask & 16) != 0, (mask & 32) != 0,
                                 (mask & 64) != 0, (mask & 128) != 0};
  }
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto fast = lj::ReadPageWithoutDom(text, p);
  const nlohmann::json j =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  const bool dom_ok = !j.is_discarded() && lj::QueryPageFromJson(j, p).ok();
  if (fast) {
    Check(dom_ok);
    Check(SamePage(*fast, *lj::QueryPageFromJson(j, p)));
  }
  Check(lj::QueryPageFromJsonText(text, p).ok() == dom_ok);
  return 0;
}
