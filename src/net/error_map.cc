// Status <-> HTTP and JSON-RPC code tables (docs/notes/net.md, "Error codes").
#include "veil/net/error_map.h"

namespace veil::net {

int JsonRpcCodeForStatus(Code code) {
  switch (code) {
    case Code::kOk:
      break;
    case Code::kInvalidArgument:
      return kJsonRpcInvalidParams;
    case Code::kNotFound:
      return kJsonRpcNotFound;
    case Code::kFailedPrecondition:
      return kJsonRpcFailedPrecondition;
    case Code::kUnauthenticated:
      return kJsonRpcUnauthenticated;
    case Code::kPermissionDenied:
      return kJsonRpcPermissionDenied;
    case Code::kResourceExhausted:
      return kJsonRpcResourceExhausted;
    case Code::kDataLoss:
      return kJsonRpcDataLoss;
    case Code::kUnavailable:
      return kJsonRpcUnavailable;
    case Code::kVerificationFailed:
      return kJsonRpcVerificationFailed;
    case Code::kInternal:
      return kJsonRpcInternalError;
  }
  CheckFailed(__FILE__, __LINE__, "code != kOk", "an ok status has no JSON-RPC error code");
}

Code StatusCodeForJsonRpc(int json_rpc_code) {
  switch (json_rpc_code) {
    case kJsonRpcParseError:
    case kJsonRpcInvalidRequest:
    case kJsonRpcInvalidParams:
      return Code::kInvalidArgument;
    case kJsonRpcMethodNotFound:
    case kJsonRpcNotFound:
      return Code::kNotFound;
    case kJsonRpcFailedPrecondition:
      return Code::kFailedPrecondition;
    case kJsonRpcUnauthenticated:
      return Code::kUnauthenticated;
    case kJsonRpcPermissionDenied:
      return Code::kPermissionDenied;
    case kJsonRpcResourceExhausted:
      return Code::kResourceExhausted;
    case kJsonRpcDataLoss:
      return Code::kDataLoss;
    case kJsonRpcUnavailable:
      return Code::kUnavailable;
    case kJsonRpcVerificationFailed:
      return Code::kVerificationFailed;
    default:
      return Code::kInternal;
  }
}

int HttpStatusForCode(Code code) {
  switch (code) {
    case Code::kOk:
      return 200;
    case Code::kInvalidArgument:
    case Code::kVerificationFailed:
      return 400;
    case Code::kUnauthenticated:
      return 401;
    case Code::kPermissionDenied:
      return 403;
    case Code::kNotFound:
      return 404;
    case Code::kFailedPrecondition:
      return 409;
    case Code::kResourceExhausted:
      return 429;
    case Code::kUnavailable:
      return 503;
    case Code::kDataLoss:
    case Code::kInternal:
      return 500;
  }
  return 500;
}

Code StatusCodeForHttp(int http_status) {
  switch (http_status) {
    case 400:
    case 405:
    case 411:
    case 415:
    case 431:
      return Code::kInvalidArgument;
    case 401:
      return Code::kUnauthenticated;
    case 403:
      return Code::kPermissionDenied;
    case 404:
      return Code::kNotFound;
    case 409:
      return Code::kFailedPrecondition;
    case 413:
    case 429:
      return Code::kResourceExhausted;
    case 502:
    case 503:
    case 504:
      return Code::kUnavailable;
    default:
      return http_status >= 200 && http_status < 300 ? Code::kOk : Code::kInternal;
  }
}

}  // namespace veil::net
