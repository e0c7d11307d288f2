// The internals page's Sockets view (docs/internals.md, /api/sockets*): the socket pool's
// table in Chrome's socketPoolInfo shape, and the view's two buttons.
#ifndef TOOLS_INTERNALS_SOCKETS_VIEW_H_
#define TOOLS_INTERNALS_SOCKETS_VIEW_H_

#include <nlohmann/json.hpp>

#include "tools/internals/internals_host.h"

namespace netstack {

class UrlRequestContext;

// GET /api/sockets: ClientSocketPool::GetInfoAsJson() of `context`'s pool (groups keyed by
// "scheme://host:port", idle socket and connect job NetLog source ids).
nlohmann::json SocketsJson(const UrlRequestContext& context);

// POST /api/sockets/close-idle: closes every idle socket of the pool (handed-out sockets and
// connect jobs are untouched). {"closed": N}, N the idle sockets before minus after.
InternalsResult CloseIdleSockets(UrlRequestContext& context);

// POST /api/sockets/flush: FlushWithError(ERR_ABORTED), as Chrome's Flush button: connect jobs
// cancelled, idle sockets closed, pending requests failed (their callbacks posted), a new
// generation so sockets handed out now are closed on release. {"flushed": true,
// "pool_generation_number"}.
InternalsResult FlushSocketPools(UrlRequestContext& context);

}  // namespace netstack

#endif  // TOOLS_INTERNALS_SOCKETS_VIEW_H_
