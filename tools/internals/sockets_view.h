// The internals page's Sockets view (docs/internals.md, /api/sockets*): the socket pool's
// table in Chrome's socketPoolInfo shape, with the sockets that carry HTTP/2 sessions marked,
// and the view's two buttons (which, as Chrome's, act on the HTTP/2 sessions too).
#ifndef TOOLS_INTERNALS_SOCKETS_VIEW_H_
#define TOOLS_INTERNALS_SOCKETS_VIEW_H_

#include <nlohmann/json.hpp>

#include "tools/internals/internals_host.h"

namespace netstack {

class UrlRequestContext;

// GET /api/sockets: ClientSocketPool::GetInfoAsJson() of `context`'s pool (groups keyed by
// "scheme://host:port", idle socket and connect job NetLog source ids), with the HTTP/2
// sessions joined on (AddHttp2SocketsJson: "http2_sockets", and each group's "http2_sessions").
nlohmann::json SocketsJson(const UrlRequestContext& context);

// POST /api/sockets/close-idle: closes every idle socket of the pool (handed-out sockets and
// connect jobs are untouched), and, as Chrome's CloseIdleConnections, sends GOAWAY on every
// HTTP/2 session with no stream (it closes, and its socket with it, once the GOAWAY is out).
// {"closed": N, "http2_sessions_closed": M}: N the idle sockets before minus after, M the
// sessions that stopped being available.
InternalsResult CloseIdleSockets(UrlRequestContext& context);

// POST /api/sockets/flush: FlushWithError(ERR_ABORTED), as Chrome's Flush button: connect jobs
// cancelled, idle sockets closed, pending requests failed (their callbacks posted), a new
// generation so sockets handed out now are closed on release. HTTP/2 sessions go away (GOAWAY:
// their open streams finish, new requests get new connections; Chrome closes them with
// ERR_ABORTED instead). {"flushed": true, "pool_generation_number",
// "http2_sessions_going_away": M}.
InternalsResult FlushSocketPools(UrlRequestContext& context);

}  // namespace netstack

#endif  // TOOLS_INTERNALS_SOCKETS_VIEW_H_
