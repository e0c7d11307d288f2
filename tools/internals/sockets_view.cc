#include "tools/internals/sockets_view.h"

#include "net/base/net_error.h"
#include "net/http/url_request_context.h"
#include "net/http2/http2_session_pool.h"
#include "net/socket/client_socket_pool.h"
#include "tools/internals/http2_view.h"

namespace netstack {
namespace {

// Sessions a new request could use now.
int AvailableSessions(const UrlRequestContext& context) {
  int available = 0;
  for (const nlohmann::json& session : Http2SessionsJson(context)) {
    available += session.value("available", false) ? 1 : 0;
  }
  return available;
}

}  // namespace

nlohmann::json SocketsJson(const UrlRequestContext& context) {
  nlohmann::json info = context.socket_pool()->GetInfoAsJson();
  AddHttp2SocketsJson(Http2SessionsJson(context), info);
  return info;
}

InternalsResult CloseIdleSockets(UrlRequestContext& context) {
  ClientSocketPool* pool = context.socket_pool();
  const int before = pool->IdleSocketCount();
  pool->CloseIdleSockets();
  const int sessions_before = AvailableSessions(context);
  if (Http2SessionPool* sessions = context.http2_session_pool()) sessions->CloseIdleSessions();
  return InternalsResult::Ok(
      {{"closed", before - pool->IdleSocketCount()},
       {"http2_sessions_closed", sessions_before - AvailableSessions(context)}});
}

InternalsResult FlushSocketPools(UrlRequestContext& context) {
  ClientSocketPool* pool = context.socket_pool();
  // ERR_ABORTED as Chrome's net-internals Flush does (the stack has no ERR_NETWORK_CHANGED).
  pool->FlushWithError(ERR_ABORTED);
  const int sessions_before = AvailableSessions(context);
  if (Http2SessionPool* sessions = context.http2_session_pool()) sessions->MakeSessionsGoingAway();
  return InternalsResult::Ok(
      {{"flushed", true},
       {"pool_generation_number", pool->generation()},
       {"http2_sessions_going_away", sessions_before - AvailableSessions(context)}});
}

}  // namespace netstack
