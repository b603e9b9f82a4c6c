// Shared vector-runner helpers (see case_util.h).
#include "case_util.h"

#include <algorithm>

#include "veil/base/encoding.h"

namespace veil::vectors {

Result<Bytes> HexField(const nlohmann::json& obj, const char* field) {
  if (!obj.contains(field) || !obj[field].is_string()) {
    return InvalidArgument(std::string("missing hex field ") + field);
  }
  return HexDecode(obj[field].get<std::string>());
}

bool SameBytes(ByteView a, ByteView b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

Outcome Rejected(const Status& s) { return {false, "rejected: " + s.ToString()}; }

Outcome Compare(ByteView got, ByteView want) {
  if (SameBytes(got, want)) return {true, ""};
  return {false, "output mismatch: got " + HexEncode(got)};
}

std::string CaseId(const nlohmann::json& t) {
  if (!t.contains("tcId")) return "?";
  const auto& id = t["tcId"];
  return id.is_string() ? id.get<std::string>() : id.dump();
}

void JudgeWycheproof(Report& r, const nlohmann::json& t, const Outcome& o) {
  const std::string result = t.value("result", "");
  const bool rejected = !o.ok && o.why.rfind("rejected", 0) == 0;
  bool pass = false;
  if (result == "valid") {
    pass = o.ok;
  } else if (result == "invalid") {
    pass = rejected;
  } else if (result == "acceptable") {
    pass = o.ok || rejected;
  }
  r.Expect(pass, "tcId " + CaseId(t) + " (" + result + ") " + t.value("comment", "") + ": " +
                     (o.ok ? "accepted" : o.why));
}

}  // namespace veil::vectors
