#include "net/socket/client_socket_handle.h"

#include <utility>

#include "net/socket/client_socket_pool.h"

namespace netstack {

ClientSocketHandle::ClientSocketHandle() = default;

ClientSocketHandle::~ClientSocketHandle() { Reset(); }

int ClientSocketHandle::Init(const SchemeHostPort& group_id, RequestPriority priority,
                             CompletionCallback callback, ClientSocketPool* pool,
                             const NetLogWithSource& net_log, bool speculative,
                             TimeTicks request_start) {
  return pool->RequestSocket(group_id, priority, this, std::move(callback), net_log, speculative,
                             request_start);
}

void ClientSocketHandle::SetPriority(RequestPriority priority) {
  if (!pending_) return;
  if (ClientSocketPool* pool = pool_.get()) pool->SetPriority(group_id_, this, priority);
}

void ClientSocketHandle::Reset() { ResetInternal(/*cancel_connect_job=*/false); }

void ClientSocketHandle::ResetAndCloseSocket() {
  if (is_initialized_ && socket_) socket_->Disconnect();
  ResetInternal(/*cancel_connect_job=*/true);
}

void ClientSocketHandle::ResetInternal(bool cancel_connect_job) {
  ClientSocketPool* pool = pool_.get();
  if (is_initialized_ && socket_) {
    if (pool) {
      pool->ReleaseSocket(group_id_, std::move(socket_), generation_, !unusable_);
    }
  } else if (pending_ && pool) {
    // Also covers a completed request whose callback has not run yet: the pool takes the
    // socket back from this handle.
    pool->CancelRequest(group_id_, this, cancel_connect_job);
  }
  socket_.reset();  // only left if the pool is gone
  pool_ = WeakPtr<ClientSocketPool>();
  group_id_ = SchemeHostPort();
  is_initialized_ = false;
  pending_ = false;
  unusable_ = false;
  socket_source_ = SocketSource::kNone;
  idle_time_ = TimeDelta::zero();
  connect_timing_ = ConnectTiming();
  dns_from_cache_ = false;
  dns_served_stale_ = false;
  connect_error_detail_.clear();
  generation_ = 0;
}

bool ClientSocketHandle::GetLoadTimingInfo(LoadTimingInfo* info) const {
  if (!socket()) return false;
  info->socket_reused = is_reused();
  info->socket_log_id = socket_->NetLog().source().id;
  // An idle socket's connect happened for someone else: no connect times, as in Chrome.
  info->connect_timing = IsConnectJobSocket(socket_source_) ? connect_timing_ : ConnectTiming();
  return true;
}

}  // namespace netstack
