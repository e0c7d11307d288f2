// ClientSocketPool's idle sockets: sockets coming back from handles, the reuse order, the
// idle timeouts and closing idle sockets. The request and connect job side is in
// client_socket_pool.cc.
#include <cstring>
#include <utility>

#include "net/socket/client_socket_pool.h"
#include "net/socket/client_socket_pool_group.h"

namespace netstack {

namespace {

// SOCKET_POOL_CLOSING_SOCKET reasons (Chrome's wording where Chrome has one).
constexpr char kRemoteSideClosedConnection[] = "Remote side closed connection";
constexpr char kDataReceivedUnexpectedly[] = "Data received unexpectedly";
constexpr char kClosedConnectionReturnedToPool[] =
    "Connection was closed when it was returned to the pool";
constexpr char kSocketGenerationOutOfDate[] = "Socket generation out of date";
constexpr char kMarkedUnusable[] = "Socket marked unusable by its user";
constexpr char kIdleTimeLimitExpired[] = "Idle time limit expired";
constexpr char kClosedForPoolLimit[] = "Closed to make room at the pool's socket limit";
constexpr char kIdleSocketsClosed[] = "Idle sockets closed";
// FlushWithError's reason (client_socket_pool.cc), recognised here for the observer.
constexpr char kPoolFlushed[] = "Socket pool flushed";

// The Observer's short form of a SOCKET_POOL_CLOSING_SOCKET reason.
const char* ObserverReason(const char* reason) {
  if (!reason) return "broken";
  if (std::strcmp(reason, kIdleTimeLimitExpired) == 0) return "unused idle timeout";
  if (std::strcmp(reason, kPoolFlushed) == 0) return "flush";
  if (std::strcmp(reason, kIdleSocketsClosed) == 0) return "close idle sockets";
  if (std::strcmp(reason, kClosedForPoolLimit) == 0) return "pool limit";
  return "broken";  // closed by the peer, or data received unexpectedly
}

void LogClosingSocket(const StreamSocket& socket, const char* reason) {
  socket.NetLog().AddEvent(NetLogEventType::SOCKET_POOL_CLOSING_SOCKET, [reason] {
    return nlohmann::json{{"reason", reason}};
  });
}

// Chrome's IdleSocket::IsUsable: a used socket must be connected with nothing unread; a
// never-used one only connected (it may hold unread TLS session tickets).
bool IsUsable(const StreamSocket& socket, const char** reason) {
  if (socket.WasEverUsed()) {
    if (socket.IsConnectedAndIdle()) return true;
    *reason = socket.IsConnected() ? kDataReceivedUnexpectedly : kRemoteSideClosedConnection;
    return false;
  }
  if (socket.IsConnected()) return true;
  *reason = kRemoteSideClosedConnection;
  return false;
}

}  // namespace

void ClientSocketPool::ReleaseSocket(const SchemeHostPort& group_id,
                                     std::unique_ptr<StreamSocket> socket, int64_t generation,
                                     bool reusable) {
  Group* group = FindGroup(group_id);
  if (!group) return;  // cannot happen while the socket is counted; the socket just closes
  --handed_out_socket_count_;
  group->DecrementActiveSocketCount();
  socket->NetLog().AddEvent(NetLogEventType::SOCKET_POOL_SOCKET_RELEASED);

  const char* reason = nullptr;
  if (!reusable) {
    reason = kMarkedUnusable;
  } else if (!socket->IsConnectedAndIdle()) {
    reason = socket->IsConnected() ? kDataReceivedUnexpectedly : kClosedConnectionReturnedToPool;
  } else if (generation != generation_) {
    reason = kSocketGenerationOutOfDate;
  }
  if (!reason) {
    AddIdleSocket(std::move(socket), group);
    OnAvailableSocketSlot(group_id, group);
  } else {
    LogClosingSocket(*socket, reason);
    socket.reset();
    if (group->IsEmpty()) RemoveGroup(group_id);
  }
  CheckForStalledSocketGroups();
}

bool ClientSocketPool::AssignIdleSocketToRequest(const Request& request, Group* group) {
  std::list<IdleSocket>& idle = group->idle_sockets();
  auto chosen = idle.end();
  // Oldest to newest: drop unusable sockets; remember the newest used one (MRU).
  for (auto it = idle.begin(); it != idle.end();) {
    const char* reason = nullptr;
    if (!IsUsable(*it->socket, &reason)) {
      LogClosingSocket(*it->socket, reason);
      OnIdleSocketClosed(group->id(), it->socket.get(), reason);
      it = idle.erase(it);
      --idle_socket_count_;
      continue;
    }
    if (it->socket->WasEverUsed()) chosen = it;
    ++it;
  }
  // No used socket: the oldest never-used one (FIFO).
  if (chosen == idle.end() && !idle.empty()) chosen = idle.begin();
  if (chosen == idle.end()) return false;

  TimeDelta idle_time = scheduler_.Now() - chosen->start_time;
  std::unique_ptr<StreamSocket> socket = std::move(chosen->socket);
  idle.erase(chosen);
  --idle_socket_count_;
  ClientSocketHandle::ReuseType type = socket->WasEverUsed()
                                           ? ClientSocketHandle::ReuseType::kReusedIdle
                                           : ClientSocketHandle::ReuseType::kUnusedIdle;
  HandOutSocket(std::move(socket), type, nullptr, request.handle, idle_time, group,
                request.net_log);
  return true;
}

void ClientSocketPool::AddIdleSocket(std::unique_ptr<StreamSocket> socket, Group* group) {
  const TimeTicks now = scheduler_.Now();
  const TimeDelta timeout =
      socket->WasEverUsed() ? params_.used_idle_socket_timeout : params_.unused_idle_socket_timeout;
  group->idle_sockets().push_back(IdleSocket{std::move(socket), now});
  ++idle_socket_count_;
  if (!cleanup_timer_.IsRunning() || now + timeout < cleanup_timer_.desired_run_time())
    cleanup_timer_.Start(timeout, [this] { OnCleanupTimerFired(); });
}

bool ClientSocketPool::CloseOneIdleSocketExceptInGroup(const Group* except) {
  GroupMap::iterator lru = groups_.end();
  for (auto it = groups_.begin(); it != groups_.end(); ++it) {
    Group* group = it->second.get();
    if (group == except || group->idle_sockets().empty()) continue;
    if (lru == groups_.end() ||
        group->idle_sockets().front().start_time < lru->second->idle_sockets().front().start_time) {
      lru = it;
    }
  }
  if (lru == groups_.end()) return false;
  std::list<IdleSocket>& idle = lru->second->idle_sockets();
  LogClosingSocket(*idle.front().socket, kClosedForPoolLimit);
  OnIdleSocketClosed(lru->first, idle.front().socket.get(), kClosedForPoolLimit);
  // This may run inside a connect job's completion, and the socket may be that job's own:
  // disconnect now, destroy outside its callback.
  idle.front().socket->Disconnect();
  DeleteSocketLater(std::move(idle.front().socket));
  idle.pop_front();
  --idle_socket_count_;
  if (lru->second->IsEmpty()) groups_.erase(lru);
  return true;
}

void ClientSocketPool::CloseIdleSockets() {
  CleanupIdleSockets(/*force=*/true, kIdleSocketsClosed);
}

void ClientSocketPool::CloseIdleSocketsInGroup(const SchemeHostPort& group_id) {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return;
  CleanupIdleSocketsInGroup(it, /*force=*/true, kIdleSocketsClosed);
  ArmCleanupTimer();
}

void ClientSocketPool::CleanupIdleSockets(bool force, const char* reason) {
  for (auto it = groups_.begin(); it != groups_.end();) {
    auto next = std::next(it);
    CleanupIdleSocketsInGroup(it, force, reason);
    it = next;
  }
  ArmCleanupTimer();
}

bool ClientSocketPool::CleanupIdleSocketsInGroup(GroupMap::iterator it, bool force,
                                                 const char* reason) {
  Group* group = it->second.get();
  const TimeTicks now = scheduler_.Now();
  std::list<IdleSocket>& idle = group->idle_sockets();
  for (auto s = idle.begin(); s != idle.end();) {
    const char* why = reason;
    bool close = force;
    if (!force) {
      TimeDelta timeout = s->socket->WasEverUsed() ? params_.used_idle_socket_timeout
                                                   : params_.unused_idle_socket_timeout;
      if (now - s->start_time >= timeout) {
        close = true;
        why = kIdleTimeLimitExpired;
      } else if (!IsUsable(*s->socket, &why)) {
        close = true;
      }
    }
    if (close) {
      LogClosingSocket(*s->socket, why);
      OnIdleSocketClosed(it->first, s->socket.get(), why);
      s = idle.erase(s);
      --idle_socket_count_;
    } else {
      ++s;
    }
  }
  if (!group->IsEmpty()) return false;
  groups_.erase(it);
  return true;
}

void ClientSocketPool::ArmCleanupTimer() {
  bool any = false;
  TimeTicks earliest{};
  for (const auto& [id, group] : groups_) {
    for (const IdleSocket& s : group->idle_sockets()) {
      TimeTicks expiry =
          s.start_time + (s.socket->WasEverUsed() ? params_.used_idle_socket_timeout
                                                  : params_.unused_idle_socket_timeout);
      if (!any || expiry < earliest) earliest = expiry;
      any = true;
    }
  }
  if (!any) {
    cleanup_timer_.Stop();
  } else if (!cleanup_timer_.IsRunning() || cleanup_timer_.desired_run_time() != earliest) {
    cleanup_timer_.Start(earliest - scheduler_.Now(), [this] { OnCleanupTimerFired(); });
  }
}

void ClientSocketPool::OnIdleSocketClosed(const SchemeHostPort& group_id,
                                          const StreamSocket* socket, const char* reason) {
  if (preconnected_idle_.erase(socket) == 0) return;
  const char* why = ObserverReason(reason);
  for (Observer* observer : observers_) observer->OnPreconnectedSocketClosedUnused(group_id, why);
}

void ClientSocketPool::OnCleanupTimerFired() {
  CleanupIdleSockets(/*force=*/false, nullptr);
  CheckForStalledSocketGroups();
}

}  // namespace netstack
