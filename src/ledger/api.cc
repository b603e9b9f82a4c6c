// LedgerApi's calls that take a query built in code (api.h).
#include "veil/ledger/api.h"

#include <limits>
#include <string>

namespace veil::ledger {

std::uint64_t ChainInfo::ExpiryFor(std::uint64_t now_ms, std::uint64_t lifetime_ms) const {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t unit = expiry_clock_ms;
  std::uint64_t height = 0;
  if (unit != 0) {
    height = now_ms / unit;
  } else {
    unit = block_time_ms != 0 ? block_time_ms : nominal_block_time_ms;
    if (unit == 0) unit = 1;
    // A timed node seals a block every block time, empty or not, so its head is less than one
    // block old (after a stop it does not seal the blocks it missed: the head's number is then
    // the height the next block builds on).
    height = head_number;
  }
  std::uint64_t units = lifetime_ms / unit + (lifetime_ms % unit != 0 ? 1 : 0);
  if (units == 0) units = 1;
  return height > kMax - units ? kMax : height + units;
}

Result<QueryPage> LedgerApi::Query(const query::Expr& filter, const QueryOptions& options) {
  VEIL_ASSIGN_OR_RETURN(std::string text, query::ToCheckedString(filter));
  return Query(std::string_view(text), options);
}

Result<CountResult> LedgerApi::Count(const query::Expr& filter) {
  VEIL_ASSIGN_OR_RETURN(std::string text, query::ToCheckedString(filter));
  return Count(std::string_view(text));
}

}  // namespace veil::ledger
