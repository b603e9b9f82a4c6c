// JSON codecs for every ledger type that travels between a `veil-ledger` node and its clients
// (docs/notes/veil-ledger.md has the shapes). Binary values are 0x-prefixed lowercase hex, as in
// Arkiv's RPC; integers are JSON numbers (unsigned, full 64-bit range); names are lowerCamelCase.
//
// Decoders are strict: a value of the wrong JSON type, a missing required member, an unknown
// member, uppercase or odd-length hex, or a byte string of the wrong length is kInvalidArgument
// naming the member at fault (never echoing its value). Decoders never throw. Entities omit the
// store-internal id and last_change, and carry only the members of their projection.
//
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "veil/base/result.h"
#include "veil/ledger/entity.h"
#include "veil/ledger/limits.h"
#include "veil/ledger/types.h"

namespace veil::ledger::json {

using Json = nlohmann::json;

std::string HexOf(ByteView b);  // "0x..."
Result<Bytes> BytesFromHex(const Json& j, std::string_view what, std::size_t max_bytes);
Result<EntityKey> KeyFromJson(const Json& j, std::string_view what = "key");
Result<Address> AddressFromJson(const Json& j, std::string_view what = "address");
Result<Hash32> HashFromJson(const Json& j, std::string_view what = "hash");

Json ToJson(const Attribute& a);
Result<Attribute> AttributeFromJson(const Json& j);

// Arkiv's `select`: a list of column names among key, owner, creator, blocks (createdAt,
// updatedAt and expiresAt together), contentType, payload, attributes, creationFlags.
Json ToJson(const Projection& p);
Result<Projection> ProjectionFromJson(const Json& j);

// Only the projected members are written; the decoder requires exactly those members.
Json ToJson(const Entity& e, const Projection& p = Projection::All());
Result<Entity> EntityFromJson(const Json& j, const Projection& p = Projection::All());

// {"select": [...], "limit": N, "cursor": "hex", "atBlock": N}, every member optional.
Json ToJson(const QueryOptions& o);
Result<QueryOptions> QueryOptionsFromJson(const Json& j);

Json ToJson(const Status& s);  // {"code": "ok" | CodeName, "message": "..."}
// The decoded status goes to *out; the return value says whether `j` was well formed.
Status StatusFromJson(const Json& j, Status* out);

Json ToJson(const TxCost& c);
Result<TxCost> TxCostFromJson(const Json& j);
Json ToJson(const TxReceipt& r);
Result<TxReceipt> TxReceiptFromJson(const Json& j);

Json ToJson(const QueryCost& c);
Result<QueryCost> QueryCostFromJson(const Json& j);
// The page's entities follow `projection`.
Json ToJson(const QueryPage& page, const Projection& projection);
// The same page as JSON text, byte for byte what ToJson(page, projection).dump() writes (members
// in order, no spaces; a string that is not valid UTF-8 has its bad bytes replaced, as
// error_handler_t::replace does), written straight into one string: a page of 200 entities
// builds no DOM (docs/notes/veil-ledger.md, "Serving pages").
std::string ToJsonText(const QueryPage& page, const Projection& projection);
void AppendJsonText(const QueryPage& page, const Projection& projection, std::string* out);
// A page from its JSON text, read without a DOM when the text has ToJsonText's shape (attribute
// members in its order, no repeated member); anything else goes through the DOM and
// QueryPageFromJson, so every error, and every value, is that decoder's.
Result<QueryPage> QueryPageFromJsonText(std::string_view text, const Projection& projection);
// The reader without a DOM alone: the page, or nullopt where it declines. Exposed for the tests
// and the differential fuzz target (fuzz/ledger_page_json_fuzz.cc), which hold it to the DOM
// decoder: whatever it returns, QueryPageFromJson returns too.
std::optional<QueryPage> ReadPageWithoutDom(std::string_view text, const Projection& projection);
Result<QueryPage> QueryPageFromJson(const Json& j, const Projection& projection);
Json ToJson(const CountResult& c);
Result<CountResult> CountResultFromJson(const Json& j);

Json ToJson(const BlockHeader& h);
Result<BlockHeader> BlockHeaderFromJson(const Json& j);
// A header's members plus "transactions": [tx hashes].
Json ToJson(const BlockInfo& b);
Result<BlockInfo> BlockInfoFromJson(const Json& j);

Json ToJson(const Account& a);
Result<Account> AccountFromJson(const Json& j);

// Every field of Limits, lowerCamelCase, with "gas", "query" and "queue" as nested objects.
Json ToJson(const Limits& l);
Result<Limits> LimitsFromJson(const Json& j);
// {"chainId", "limits", "blockTimeMs", "nominalBlockTimeMs", "headNumber", "headTimestampMs"}.
Json ToJson(const ChainInfo& c);
Result<ChainInfo> ChainInfoFromJson(const Json& j);

}  // namespace veil::ledger::json
