// The guardian's network inputs: request bodies for every route (protocol.h's strict decoder),
// the Veil-Signature header and query forms, and the response decoder clients run on what a
// guardian sends back. The first byte picks the route (and the expected item count for
// responses); the rest is the input. Checks: no crash or sanitizer report, and a decoded request
// re-encodes to a body that decodes to the same request (the encoding is a fixed point).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "veil/base/status.h"
#include "veil/guardian/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace veil::guardian;
  if (size == 0) return 0;
  const Route route = kAllRoutes[data[0] % 4];
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  GuardianLimits limits;
  limits.max_items = 64;

  auto req = DecodeRequest(route, body, limits);
  if (req.ok()) {
    const std::string again = EncodeRequest(*req);
    auto back = DecodeRequest(route, again, limits);
    VEIL_CHECK_MSG(back.ok(), "a decoded request does not re-encode to a valid one");
    VEIL_CHECK_MSG(EncodeRequest(*back) == again, "request encoding is not a fixed point");
    VEIL_CHECK(back->item_count() == req->item_count());
  }

  (void)DecodeSignatureHeader(body);
  auto q = DecodeSignatureQuery(body);
  if (q.ok() && !q->empty()) {
    VEIL_CHECK_MSG(SignatureQuery(*q) == body.substr(body.find('?')), "query not canonical");
  }

  (void)DecodeResponse(route, body, data[0] >> 2);
  (void)DecodeErrorBody(400, body);
  (void)DecodeIdentityBody(body);
  return 0;
}
