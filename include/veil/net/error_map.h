// The one place where veil::Status codes meet HTTP statuses and JSON-RPC error codes.
//
// Both tables are fixed: clients and operators may rely on them, so a change is a protocol change
// (docs/notes/net.md prints them). JSON-RPC 2.0 reserves -32768..-32000; the spec defines -32700,
// -32600, -32601, -32602 and -32603, and -32099..-32000 are left to the server, where we put one
// code per Status code so that a client recovers the exact code.
//
// Thread safety: pure functions.
#pragma once

#include "veil/base/status.h"

namespace veil::net {

// JSON-RPC 2.0 (section 5.1) codes.
inline constexpr int kJsonRpcParseError = -32700;
inline constexpr int kJsonRpcInvalidRequest = -32600;
inline constexpr int kJsonRpcMethodNotFound = -32601;
inline constexpr int kJsonRpcInvalidParams = -32602;
inline constexpr int kJsonRpcInternalError = -32603;
// Server-defined codes for the remaining Status codes.
inline constexpr int kJsonRpcNotFound = -32001;
inline constexpr int kJsonRpcFailedPrecondition = -32002;
inline constexpr int kJsonRpcUnauthenticated = -32003;
inline constexpr int kJsonRpcPermissionDenied = -32004;
inline constexpr int kJsonRpcResourceExhausted = -32005;
inline constexpr int kJsonRpcDataLoss = -32006;
inline constexpr int kJsonRpcUnavailable = -32007;
inline constexpr int kJsonRpcVerificationFailed = -32008;

// Status code of a handler's error -> JSON-RPC error code. kOk is a programming error.
int JsonRpcCodeForStatus(Code code);
// JSON-RPC error code received by a client -> Status code. -32700, -32600 and -32602 become
// kInvalidArgument, -32601 kNotFound, -32603 and any code outside the table kInternal.
Code StatusCodeForJsonRpc(int json_rpc_code);

// Status code -> HTTP status, for plain JSON endpoints (JSON-RPC errors travel in 200 responses).
int HttpStatusForCode(Code code);
// HTTP status received by a client (not 2xx) -> Status code.
Code StatusCodeForHttp(int http_status);

}  // namespace veil::net
