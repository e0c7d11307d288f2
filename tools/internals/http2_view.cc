#include "tools/internals/http2_view.h"

#include <string>
#include <utility>
#include <vector>

#include "net/base/net_error.h"
#include "net/http/url_request_context.h"
#include "net/http2/http2_session_pool.h"

namespace netstack {
namespace {

using json = nlohmann::json;

// What the stack's TLS offers in ALPN (UrlRequestContext::GetPolledData's rule).
std::vector<std::string> OfferedAlpn(const UrlRequestContext& context) {
  if (context.config().http2.offered_in_alpn) return {"h2", "http/1.1"};
  return {"http/1.1"};
}

// The pool group a session's socket came from: the group named by its host_port_pair, which is
// "scheme://host:port" like the groups' names; a Chrome-style "host:port" is tried with the
// session's scheme too. Empty when no such group exists.
std::string GroupOf(const json& session, const json* groups) {
  if (!groups) return std::string();
  const std::string host = session.value("host_port_pair", "");
  if (host.empty()) return std::string();
  if (groups->contains(host)) return host;
  const std::string with_scheme =
      (session.value("is_secure", false) ? "https://" : "http://") + host;
  return groups->contains(with_scheme) ? with_scheme : std::string();
}

}  // namespace

json Http2SessionsJson(const UrlRequestContext& context) {
  const Http2SessionPool* pool = context.http2_session_pool();
  json sessions = pool ? pool->GetInfoAsJson() : json::array();
  return sessions.is_array() ? sessions : json::array();
}

json Http2Json(const UrlRequestContext& context) {
  const Http2SessionPool* pool = context.http2_session_pool();
  json status = pool ? pool->GetStatusAsJson(OfferedAlpn(context))
                     : json{{"enable_http2", false},
                            {"alpn_protos", "http/1.1"},
                            {"known_http2_servers", json::array()},
                            {"sessions", 0}};
  json sessions = Http2SessionsJson(context);
  for (json& session : sessions) {
    if (!session.is_object()) continue;
    const json& error = session.value("error", json(OK));
    session["error_name"] = ErrorToString(error.is_number_integer() ? error.get<int>() : OK);
  }
  return {{"status", std::move(status)}, {"sessions", std::move(sessions)}};
}

void AddHttp2SocketsJson(const json& sessions, json& pool_info) {
  json sockets = json::array();
  json* groups = pool_info.contains("groups") && pool_info["groups"].is_object()
                     ? &pool_info["groups"]
                     : nullptr;
  if (groups) {
    for (auto& [name, group] : groups->items()) group["http2_sessions"] = json::array();
  }
  for (const json& s : sessions) {
    if (!s.is_object()) continue;
    const json goaway = s.value("goaway", json());
    sockets.push_back({{"socket_id", s.value("socket_id", 0)},
                       {"session_id", s.value("source_id", 0)},
                       {"host_port_pair", s.value("host_port_pair", "")},
                       {"aliases", s.value("aliases", json::array())},
                       {"active_streams", s.value("active_streams", 0)},
                       {"queued_streams", s.value("queued_streams", 0)},
                       {"available", s.value("available", false)},
                       {"goaway", !goaway.is_null()}});
    const std::string group = GroupOf(s, groups);
    if (!group.empty()) {
      (*groups)[group]["http2_sessions"].push_back(
          {{"socket_id", s.value("socket_id", 0)}, {"session_id", s.value("source_id", 0)}});
    }
  }
  pool_info["http2_sockets"] = std::move(sockets);
}

}  // namespace netstack
