#include "net/http2/http2_session_pool.h"

#include <algorithm>
#include <utility>

#include "net/base/time.h"

namespace netstack {

Http2SessionPool::Http2SessionPool(Scheduler& scheduler, NetLog* net_log, const Params& params)
    : scheduler_(scheduler), net_log_(net_log), params_(params) {}

Http2SessionPool::~Http2SessionPool() {
  weak_factory_.InvalidateWeakPtrs();
  waiters_.clear();
  by_key_.clear();
  // Sessions go one by one; a stream's delegate told of the abort must not find a half-torn
  // pool, so the list is moved out first.
  std::vector<std::unique_ptr<Entry>> sessions = std::move(sessions_);
  sessions.clear();
}

Http2Session* Http2SessionPool::FindAvailableSession(const SchemeHostPort& key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return nullptr;
  Http2Session* session = it->second->session.get();
  return session->IsAvailable() ? session : nullptr;
}

Http2Session* Http2SessionPool::FindSessionByAddresses(const SchemeHostPort& key,
                                                       const std::vector<IPAddress>& addresses) {
  if (!params_.enable_ip_pooling || key.scheme != "https") return nullptr;
  for (const std::unique_ptr<Entry>& entry : sessions_) {
    if (entry->key.scheme != "https" || entry->peer_port != key.port) continue;
    if (!entry->session->IsAvailable()) continue;
    if (std::find(addresses.begin(), addresses.end(), entry->peer) == addresses.end()) continue;
    const StreamSocket* socket = entry->session->socket();
    if (!socket || !socket->CertificateCoversHost(key.host)) continue;
    entry->aliases.insert(key);
    by_key_[key] = entry.get();
    RememberKnownHttp2(key);
    return entry->session.get();
  }
  return nullptr;
}

Http2Session* Http2SessionPool::CreateSession(const SchemeHostPort& key,
                                              std::unique_ptr<ClientSocketHandle> handle) {
  auto entry = std::make_unique<Entry>();
  entry->key = key;
  IPEndPoint peer;
  if (handle->socket() && handle->socket()->GetPeerAddress(&peer) == OK) {
    entry->peer = peer.address();
    entry->peer_port = peer.port();
  }
  Entry* raw = entry.get();
  entry->session =
      std::make_unique<Http2Session>(scheduler_, std::move(handle), params_.session, net_log_,
                                     [this, raw](int) { OnSessionClosed(raw->session.get()); });
  sessions_.push_back(std::move(entry));
  // A previous session of the key (going away) stays until it closes but is no longer found.
  by_key_[key] = raw;
  RememberKnownHttp2(key);
  NotifyWaiters(key);
  return raw->session.get();
}

void Http2SessionPool::OnSessionClosed(Http2Session* session) {
  auto it = std::find_if(sessions_.begin(), sessions_.end(),
                         [session](const auto& e) { return e->session.get() == session; });
  if (it == sessions_.end()) return;
  Entry* entry = it->get();
  for (auto k = by_key_.begin(); k != by_key_.end();) {
    k = k->second == entry ? by_key_.erase(k) : std::next(k);
  }
  // Called from the session's own task (Http2Session's on_closed may destroy it).
  std::unique_ptr<Entry> owned = std::move(*it);
  sessions_.erase(it);
}

uint64_t Http2SessionPool::AddWaiter(const SchemeHostPort& key, std::function<void()> callback,
                                     std::function<void()> stop_connecting) {
  if (waiters_.size() >= params_.max_waiters) return 0;
  const uint64_t id = next_waiter_id_++;
  waiters_.emplace(id, Waiter{key, std::move(callback), std::move(stop_connecting)});
  return id;
}

void Http2SessionPool::RemoveWaiter(uint64_t id) { waiters_.erase(id); }

void Http2SessionPool::NotifyWaiters(const SchemeHostPort& key) {
  std::vector<uint64_t> ids;
  for (const auto& [id, waiter] : waiters_) {
    if (waiter.key == key) ids.push_back(id);
  }
  for (uint64_t id : ids) {
    auto it = waiters_.find(id);
    if (it != waiters_.end() && it->second.stop_connecting) {
      std::function<void()> stop = std::move(it->second.stop_connecting);
      stop();
    }
  }
  for (uint64_t id : ids) {
    // One task each: a waiter's callback may remove or add others.
    scheduler_.PostTask([weak = weak_factory_.GetWeakPtr(), id] {
      if (!weak) return;
      auto it = weak->waiters_.find(id);
      if (it == weak->waiters_.end()) return;
      std::function<void()> callback = std::move(it->second.callback);
      weak->waiters_.erase(it);
      callback();
    });
  }
}

bool Http2SessionPool::IsKnownHttp2(const SchemeHostPort& key) const {
  return known_http2_.count(key) != 0;
}

void Http2SessionPool::RememberKnownHttp2(const SchemeHostPort& key) {
  if (!known_http2_.insert(key).second) return;
  known_order_.push_back(key);
  while (known_order_.size() > params_.max_known_servers) {
    known_http2_.erase(known_order_.front());
    known_order_.pop_front();
  }
}

void Http2SessionPool::OnConnectFinished(const SchemeHostPort& key) {
  auto it = connecting_.find(key);
  if (it == connecting_.end()) return;
  if (--it->second <= 0) connecting_.erase(it);
}

int Http2SessionPool::ConnectsInFlight(const SchemeHostPort& key) const {
  auto it = connecting_.find(key);
  return it == connecting_.end() ? 0 : it->second;
}

void Http2SessionPool::MakeSessionsGoingAway() {
  by_key_.clear();
  for (const std::unique_ptr<Entry>& entry : sessions_) entry->session->Shutdown();
}

void Http2SessionPool::CloseIdleSessions() {
  for (const std::unique_ptr<Entry>& entry : sessions_) {
    if (entry->session->connection().IsIdle()) entry->session->Shutdown();
  }
}

nlohmann::json Http2SessionPool::GetInfoAsJson() const {
  nlohmann::json list = nlohmann::json::array();
  const TimeTicks now = scheduler_.Now();
  for (const std::unique_ptr<Entry>& entry : sessions_) {
    const Http2Session& session = *entry->session;
    const Http2Connection& c = session.connection();
    const Http2Connection::Stats& stats = c.stats();
    nlohmann::json aliases = nlohmann::json::array();
    for (const SchemeHostPort& alias : entry->aliases) {
      aliases.push_back(alias.host + ":" + std::to_string(alias.port));
    }
    nlohmann::json goaway = nullptr;
    if (stats.last_goaway_stream_id >= 0) {
      goaway = {{"last_stream_id", stats.last_goaway_stream_id},
                {"error_code", nghttp2_http2_strerror(stats.goaway_error_code)}};
    }
    list.push_back({
        {"host_port_pair", entry->key.host + ":" + std::to_string(entry->key.port)},
        {"proxy", "DIRECT"},
        {"aliases", std::move(aliases)},
        {"source_id", session.net_log().source().id},
        {"socket_id", session.socket() ? session.socket()->NetLog().source().id : 0},
        {"negotiated_protocol", "h2"},
        {"is_secure", entry->key.scheme == "https"},
        {"error", session.IsClosed() ? session.close_error() : c.error()},
        {"active_streams", c.active_streams()},
        {"queued_streams", c.queued_requests()},
        {"max_concurrent_streams", stats.max_concurrent_streams},
        {"streams_initiated_count", stats.streams_started},
        {"streams_queued_count", stats.streams_queued},
        // Chrome's fields the netlog viewer prints; push is refused, so its counts stay 0.
        {"streams_abandoned_count", 0},
        {"unclaimed_pushed_streams", 0},
        {"streams_pushed_count", 0},
        {"streams_pushed_and_claimed_count", 0},
        {"sent_settings", true},
        {"received_settings", stats.received_settings},
        {"unacked_recv_window_bytes", 0},
        {"frames_received", stats.frames_received},
        {"frames_sent", stats.frames_sent},
        {"send_window_size", c.send_window()},
        {"recv_window_size", c.recv_window()},
        {"goaway", std::move(goaway)},
        {"available", session.IsAvailable()},
        {"age_ms", RoundMsForJson(ToMilliseconds(now - session.created()))},
    });
  }
  return list;
}

nlohmann::json Http2SessionPool::GetStatusAsJson(const std::vector<std::string>& alpn) const {
  nlohmann::json known = nlohmann::json::array();
  for (const SchemeHostPort& key : known_order_) known.push_back(key.ToString());
  std::string protos;
  for (const std::string& p : alpn) protos += (protos.empty() ? "" : ",") + p;
  return {{"enable_http2", params_.enabled},
          {"alpn_protos", protos},
          {"known_http2_servers", std::move(known)},
          {"sessions", sessions_.size()}};
}

}  // namespace netstack
