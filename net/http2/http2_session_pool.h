// Http2SessionPool: the stack's HTTP/2 sessions, one per {scheme, host, port} (Chrome's
// SpdySessionPool, with the one fact of HttpServerProperties it needs). The network transaction
// asks it first; a session it finds carries the request as one more stream, with no socket of
// its own. The rules (../shared/REFERENCE.md, "HTTP/2 in Chrome"), each with a unit test:
//
// - One session per key. A transaction whose own connect ends with ALPN h2 while a session for
//   its key already exists uses that session (its socket goes back to the pool idle); otherwise
//   it turns its socket into the key's session (CreateSession).
// - Waiters: every transaction waiting on a connect for a key can also wait here (AddWaiter).
//   When a session for the key appears, each waiter is told, in a task of its own, and moves its
//   request onto the session (cancelling its socket request).
// - Known h2: a key whose server once chose h2 is remembered (bounded, oldest forgotten first).
//   For such a key a transaction that finds a connect already under way waits for its session
//   instead of connecting too (Chrome's throttle), for at most `throttle_delay`; so a group known
//   to speak h2 opens one socket, and a preconnect to it opens one.
// - Coalescing (IP pooling): a request for a host whose addresses include an existing HTTPS
//   session's peer (same port), and whose name that session's certificate covers, uses that
//   session (FindSessionByAddresses); the host becomes an alias of the session.
// - A session leaves the pool when it closes (transport error, GOAWAY once its streams are done,
//   the idle timeout); one that got a GOAWAY is no longer found, so retried requests get a new
//   connection.
//
// Lifetime: the pool owns its sessions; each session owns its socket's pool handle, so the pool
// must be destroyed before the socket pool (UrlRequestContext does). Callbacks to waiters run
// from posted tasks, never inside a pool method.
#ifndef NET_HTTP2_HTTP2_SESSION_POOL_H_
#define NET_HTTP2_HTTP2_SESSION_POOL_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/http2/http2_session.h"
#include "net/socket/client_socket_handle.h"

namespace netstack {

class Http2SessionPool {
 public:
  struct Params {
    // Off: no session is ever made (ALPN should not offer h2 then either).
    bool enabled = true;
    Http2Session::Params session;
    // How long a transaction for a known-h2 key waits on another's connect before connecting
    // itself (Chrome's kHTTP2ThrottleMs).
    TimeDelta throttle_delay = Milliseconds(300);
    // Coalescing of hosts onto sessions by address and certificate (Chrome's IP pooling).
    bool enable_ip_pooling = true;
    // Keys remembered as speaking h2.
    size_t max_known_servers = 1000;
    // Waiters in the whole pool; AddWaiter refuses more (the caller then just connects).
    size_t max_waiters = 10000;
  };

  // `scheduler` and `net_log` (may be null) must outlive the pool.
  Http2SessionPool(Scheduler& scheduler, NetLog* net_log, const Params& params);
  // Destroys every session (their streams end with ERR_ABORTED) and drops waiters uncalled.
  ~Http2SessionPool();
  Http2SessionPool(const Http2SessionPool&) = delete;
  Http2SessionPool& operator=(const Http2SessionPool&) = delete;

  const Params& params() const { return params_; }

  // An available session for `key` (its own or one it was coalesced onto), or null.
  Http2Session* FindAvailableSession(const SchemeHostPort& key);

  // Coalescing: an available HTTPS session whose peer address is one of `addresses` (with
  // key.port) and whose certificate covers key.host; the key becomes its alias. Null if none
  // (or IP pooling is off). `addresses` are the key's host's, as resolved.
  Http2Session* FindSessionByAddresses(const SchemeHostPort& key,
                                       const std::vector<IPAddress>& addresses);

  // Makes `key`'s session over the socket `handle` holds (connected; ALPN chose h2, or prior
  // knowledge) and remembers the key as speaking h2. Waiters of the key are told (posted). The
  // returned session is owned by the pool; it stays valid until it closes (use its WeakPtr).
  Http2Session* CreateSession(const SchemeHostPort& key,
                              std::unique_ptr<ClientSocketHandle> handle);

  // Calls `callback` (from a task, once) when a session for `key` becomes available. Returns an
  // id for RemoveWaiter, or 0 if max_waiters are already waiting (nothing will be called).
  // `stop_connecting` (may be null) runs synchronously inside CreateSession, before the task:
  // it must only cancel the waiter's own socket request (ClientSocketHandle::Reset), so that a
  // slot the pool frees meanwhile does not start a connect for a request the session will carry.
  uint64_t AddWaiter(const SchemeHostPort& key, std::function<void()> callback,
                     std::function<void()> stop_connecting = nullptr);
  // Forgets a waiter; no-op for 0, an unknown id or one already called.
  void RemoveWaiter(uint64_t id);

  // Whether `key`'s server chose h2 before (Chrome's HttpServerProperties::GetSupportsSpdy).
  bool IsKnownHttp2(const SchemeHostPort& key) const;
  // Transactions connecting for `key` with h2 possible: the throttle counts them.
  void OnConnectStarted(const SchemeHostPort& key) { ++connecting_[key]; }
  void OnConnectFinished(const SchemeHostPort& key);
  int ConnectsInFlight(const SchemeHostPort& key) const;

  // Sends GOAWAY on every session (streams finish, then they close): for a network change or
  // a change of TLS settings. New requests get new sessions.
  void MakeSessionsGoingAway();
  // Closes sessions with no stream open (for "close idle sockets").
  void CloseIdleSessions();

  size_t session_count() const { return sessions_.size(); }
  size_t waiter_count() const { return waiters_.size(); }

  // Chrome's NetLog polledData "spdySessionInfo": one object per session {host_port_pair
  // ("host:port"), proxy ("DIRECT"), aliases ("host:port"), source_id, socket_id,
  // negotiated_protocol, is_secure, error, active_streams, queued_streams, max_concurrent_streams,
  // streams_initiated_count, streams_queued_count, frames_received, frames_sent, send_window_size,
  // recv_window_size, goaway (null or {last_stream_id, error_code}), available, age_ms}, plus the
  // fields Chrome's viewer prints that do not apply (push counts 0, streams_abandoned_count 0,
  // sent_settings, received_settings, unacked_recv_window_bytes 0).
  nlohmann::json GetInfoAsJson() const;
  // Chrome's "spdyStatus": {enable_http2, alpn_protos ("h2,http/1.1"), known_http2_servers,
  // sessions}.
  nlohmann::json GetStatusAsJson(const std::vector<std::string>& alpn) const;

 private:
  struct Entry {
    SchemeHostPort key;
    std::unique_ptr<Http2Session> session;
    std::set<SchemeHostPort> aliases;
    IPAddress peer;
    uint16_t peer_port = 0;
  };
  struct Waiter {
    SchemeHostPort key;
    std::function<void()> callback;
    std::function<void()> stop_connecting;
  };

  void OnSessionClosed(Http2Session* session);
  void RememberKnownHttp2(const SchemeHostPort& key);
  void NotifyWaiters(const SchemeHostPort& key);

  Scheduler& scheduler_;
  NetLog* const net_log_;
  const Params params_;
  std::vector<std::unique_ptr<Entry>> sessions_;
  // Key (own or alias) -> the session serving it. At most one per key.
  std::map<SchemeHostPort, Entry*> by_key_;
  std::map<uint64_t, Waiter> waiters_;
  uint64_t next_waiter_id_ = 1;
  std::set<SchemeHostPort> known_http2_;
  std::deque<SchemeHostPort> known_order_;  // oldest first, for the bound
  std::map<SchemeHostPort, int> connecting_;
  WeakPtrFactory<Http2SessionPool> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_HTTP2_HTTP2_SESSION_POOL_H_
