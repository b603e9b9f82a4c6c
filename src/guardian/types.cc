// Protocol value types (types.h).
#include "veil/guardian/types.h"

#include "veil/crypto/hash.h"

namespace veil::guardian {

std::string_view ShareKindName(ShareKind kind) {
  return kind == ShareKind::kCollection ? "collection" : "record";
}

Result<ShareKind> ShareKindFromName(std::string_view name) {
  if (name == "record") return ShareKind::kRecord;
  if (name == "collection") return ShareKind::kCollection;
  return InvalidArgument("\"kind\" must be \"record\" or \"collection\"");
}

Commitment ShareCommitment(const ShareId& id, ByteView share) {
  crypto::Sha2 h(crypto::HashAlg::kSha256);
  h.Update(AsBytes("veil-guardian commitment v1")).Update(id).Update(share);
  Commitment c{};
  h.Final(c);
  return c;
}

}  // namespace veil::guardian
