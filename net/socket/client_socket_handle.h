// ClientSocketHandle: the requester's side of a pooled socket. The requester owns the handle;
// the handle owns the socket while it is handed out, and gives it back to the pool on Reset()
// or destruction.
#ifndef NET_SOCKET_CLIENT_SOCKET_HANDLE_H_
#define NET_SOCKET_CLIENT_SOCKET_HANDLE_H_

#include <cstdint>
#include <memory>

#include "net/base/load_timing_info.h"
#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/time.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/socket/socket_source.h"
#include "net/socket/stream_socket.h"

namespace netstack {

class ClientSocketPool;

class ClientSocketHandle {
 public:
  ClientSocketHandle();
  // Same as Reset(): a socket goes back to the pool, a pending request is cancelled.
  ~ClientSocketHandle();

  ClientSocketHandle(const ClientSocketHandle&) = delete;
  ClientSocketHandle& operator=(const ClientSocketHandle&) = delete;

  // Requests a socket of `group_id` from `pool`: same as
  // pool->RequestSocket(group_id, priority, this, callback, net_log, speculative,
  // request_start), see there. A handle still in use is Reset() first.
  int Init(const SchemeHostPort& group_id, RequestPriority priority, CompletionCallback callback,
           ClientSocketPool* pool, const NetLogWithSource& net_log, bool speculative = false,
           TimeTicks request_start = TimeTicks{});

  // Changes the priority of the pending request (reorders the group's queue and the connect
  // jobs' priorities). No effect once the request completed.
  void SetPriority(RequestPriority priority);

  // Ends the handle's use. With a socket: the socket returns to the pool, which keeps it idle
  // if it is still connected and idle, not marked unusable and of the current pool generation,
  // and closes it otherwise. With a request pending: the request is cancelled and its callback
  // never runs (the connect job it started may go on; see client_socket_pool.h). The handle can
  // be used again afterwards. Safe to call at any time, also after the pool was destroyed (the
  // socket is then closed).
  void Reset();

  // Reset(), but the socket is closed rather than kept idle, and a pending request's connect
  // job is cancelled when no other request of the group is waiting for it.
  void ResetAndCloseSocket();

  // The socket will be closed, not kept idle, when released (e.g. the HTTP response was
  // close-delimited or the stream is in an unknown state).
  void MarkUnusable() { unusable_ = true; }

  // True when the handle holds a socket its owner may use: RequestSocket returned OK, or its
  // callback ran with OK.
  bool is_initialized() const { return is_initialized_; }
  // True from RequestSocket returning ERR_IO_PENDING until the callback runs (or Reset).
  bool is_pending() const { return pending_; }

  // The socket; null unless is_initialized().
  StreamSocket* socket() const { return is_initialized_ ? socket_.get() : nullptr; }

  // Where the socket came from (socket_source.h), decided by the pool when it handed it out;
  // kNone while the handle holds no socket.
  SocketSource socket_source() const { return socket_source_; }
  // True if the socket carried an earlier request (an idle keep-alive socket).
  bool is_reused() const { return socket_source_ == SocketSource::kReused; }
  // How long the socket sat idle in the pool before this request got it (zero if fresh).
  TimeDelta idle_time() const { return idle_time_; }
  // DNS/connect/TLS times of the job that made the socket; all zero for an idle socket (the
  // pool keeps them only for a connect job's socket: IsConnectJobSocket(socket_source())).
  const ConnectTiming& connect_timing() const { return connect_timing_; }
  // Whether the job that made this socket got its addresses from the host cache.
  bool dns_from_cache() const { return dns_from_cache_; }
  // Whether that entry was stale (ConnectJob::dns_served_stale()).
  bool dns_served_stale() const { return dns_served_stale_; }
  // After the request failed: the connect job's error detail (ConnectJob::error_detail()).
  const std::string& connect_error_detail() const { return connect_error_detail_; }

  // Fills socket_reused, the socket's NetLog id and connect timing (left zero for idle sockets,
  // as Chrome does). Returns false (and leaves `info` alone) if the handle holds no socket.
  bool GetLoadTimingInfo(LoadTimingInfo* info) const;

  const SchemeHostPort& group_id() const { return group_id_; }
  // The pool of the current or last request; null if none or if it was destroyed.
  ClientSocketPool* pool() const { return pool_.get(); }
  // The pool generation the socket was handed out in (see ClientSocketPool::FlushWithError).
  int64_t generation() const { return generation_; }

 private:
  friend class ClientSocketPool;

  void ResetInternal(bool cancel_connect_job);

  std::unique_ptr<StreamSocket> socket_;
  WeakPtr<ClientSocketPool> pool_;
  SchemeHostPort group_id_;
  bool is_initialized_ = false;
  bool pending_ = false;
  bool unusable_ = false;
  SocketSource socket_source_ = SocketSource::kNone;
  TimeDelta idle_time_{};
  ConnectTiming connect_timing_;
  bool dns_from_cache_ = false;
  bool dns_served_stale_ = false;
  std::string connect_error_detail_;
  int64_t generation_ = 0;
};

}  // namespace netstack

#endif  // NET_SOCKET_CLIENT_SOCKET_HANDLE_H_
