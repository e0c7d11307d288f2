#include "tools/internals/sockets_view.h"

#include "net/base/net_error.h"
#include "net/http/url_request_context.h"
#include "net/socket/client_socket_pool.h"

namespace netstack {

nlohmann::json SocketsJson(const UrlRequestContext& context) {
  return context.socket_pool()->GetInfoAsJson();
}

InternalsResult CloseIdleSockets(UrlRequestContext& context) {
  ClientSocketPool* pool = context.socket_pool();
  const int before = pool->IdleSocketCount();
  pool->CloseIdleSockets();
  return InternalsResult::Ok({{"closed", before - pool->IdleSocketCount()}});
}

InternalsResult FlushSocketPools(UrlRequestContext& context) {
  ClientSocketPool* pool = context.socket_pool();
  // ERR_ABORTED as Chrome's net-internals Flush does (the stack has no ERR_NETWORK_CHANGED).
  pool->FlushWithError(ERR_ABORTED);
  return InternalsResult::Ok({{"flushed", true}, {"pool_generation_number", pool->generation()}});
}

}  // namespace netstack
