// LedgerApi's calls that take a query built in code (api.h).
#include "veil/ledger/api.h"

#include <string>

namespace veil::ledger {

Result<QueryPage> LedgerApi::Query(const query::Expr& filter, const QueryOptions& options) {
  VEIL_ASSIGN_OR_RETURN(std::string text, query::ToCheckedString(filter));
  return Query(std::string_view(text), options);
}

Result<CountResult> LedgerApi::Count(const query::Expr& filter) {
  VEIL_ASSIGN_OR_RETURN(std::string text, query::ToCheckedString(filter));
  return Count(std::string_view(text));
}

}  // namespace veil::ledger
