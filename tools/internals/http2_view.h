// The internals page's HTTP/2 view (docs/internals.md, /api/http2), like net-internals' #http2:
// the session pool's sessions in Chrome's polledData "spdySessionInfo" shape and its
// "spdyStatus"; and the join of sessions onto the socket pool the Sockets view uses to mark the
// sockets that carry sessions (a session's socket is handed out for the session's life).
#ifndef TOOLS_INTERNALS_HTTP2_VIEW_H_
#define TOOLS_INTERNALS_HTTP2_VIEW_H_

#include <nlohmann/json.hpp>

namespace netstack {

class UrlRequestContext;

// GET /api/http2: {"status": Http2SessionPool::GetStatusAsJson ({enable_http2, alpn_protos,
// known_http2_servers, sessions}), "sessions": Http2SessionPool::GetInfoAsJson, each entry with
// "error_name" (ErrorToString of its "error") added}. Without a session pool (HTTP/2 off):
// {"status": {"enable_http2": false, "alpn_protos", "known_http2_servers": [], "sessions": 0},
// "sessions": []}. "alpn_protos" is what the stack's TLS offers, as in GetPolledData.
nlohmann::json Http2Json(const UrlRequestContext& context);

// The session pool's sessions (Http2SessionPool::GetInfoAsJson; [] when HTTP/2 is off).
nlohmann::json Http2SessionsJson(const UrlRequestContext& context);

// Adds `sessions` (Http2SessionsJson) to `pool_info` (ClientSocketPool::GetInfoAsJson of the
// same context):
// "http2_sockets": [{"socket_id", "session_id", "host_port_pair", "aliases", "active_streams",
// "queued_streams", "available", "goaway": bool}], one per session, in the pool's order; and in
// the group named like a session's host_port_pair (the group whose connect made it; a
// "host:port" without scheme is matched with the session's), "http2_sessions": [{"socket_id",
// "session_id"}]. Every group and the top level get the key
// (empty arrays when there is no session), so the page needs no special case.
void AddHttp2SocketsJson(const nlohmann::json& sessions, nlohmann::json& pool_info);

}  // namespace netstack

#endif  // TOOLS_INTERNALS_HTTP2_VIEW_H_
