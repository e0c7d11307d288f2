// ClientSocketPool's idle sockets: sockets coming back from handles, the reuse order, the
// idle timeouts and closing idle sockets. The request and connect job side is in
// client_socket_pool.cc.
#include <optional>
#include <utility>

#include "net/socket/client_socket_pool.h"
#include "net/socket/client_socket_pool_group.h"

namespace netstack {

namespace {

using CloseReason = ClientSocketPool::CloseReason;

void LogClosingSocket(const StreamSocket& socket, CloseReason reason) {
  socket.NetLog().AddEvent(NetLogEventType::SOCKET_POOL_CLOSING_SOCKET, [reason] {
    return nlohmann::json{{"reason", ClientSocketPool::CloseReasonString(reason)}};
  });
}

// Chrome's IdleSocket::IsUsable: a used socket must be connected with nothing unread; a
// never-used one only connected (it may hold unread TLS session tickets).
bool IsUsable(const StreamSocket& socket, CloseReason* reason) {
  if (socket.WasEverUsed()) {
    if (socket.IsConnectedAndIdle()) return true;
    *reason = socket.IsConnected() ? CloseReason::kDataReceivedUnexpectedly
                                   : CloseReason::kRemoteSideClosed;
    return false;
  }
  if (socket.IsConnected()) return true;
  *reason = CloseReason::kRemoteSideClosed;
  return false;
}

}  // namespace

// SOCKET_POOL_CLOSING_SOCKET reasons (Chrome's wording where Chrome has one).
const char* ClientSocketPool::CloseReasonString(CloseReason reason) {
  switch (reason) {
    case CloseReason::kRemoteSideClosed:
      return "Remote side closed connection";
    case CloseReason::kDataReceivedUnexpectedly:
      return "Data received unexpectedly";
    case CloseReason::kClosedWhenReturned:
      return "Connection was closed when it was returned to the pool";
    case CloseReason::kGenerationOutOfDate:
      return "Socket generation out of date";
    case CloseReason::kMarkedUnusable:
      return "Socket marked unusable by its user";
    case CloseReason::kIdleTimeLimitExpired:
      return "Idle time limit expired";
    case CloseReason::kPoolLimit:
      return "Closed to make room at the pool's socket limit";
    case CloseReason::kIdleSocketsClosed:
      return "Idle sockets closed";
    case CloseReason::kPoolFlushed:
      return "Socket pool flushed";
  }
  return "unknown";
}

// The Observer's short form (see Observer::OnPreconnectedSocketClosedUnused).
const char* ClientSocketPool::ObserverCloseReason(CloseReason reason) {
  switch (reason) {
    case CloseReason::kIdleTimeLimitExpired:
      return "unused idle timeout";
    case CloseReason::kPoolFlushed:
    case CloseReason::kGenerationOutOfDate:
      return "flush";
    case CloseReason::kIdleSocketsClosed:
      return "close idle sockets";
    case CloseReason::kPoolLimit:
      return "pool limit";
    case CloseReason::kMarkedUnusable:
      return "unusable";
    case CloseReason::kRemoteSideClosed:
    case CloseReason::kDataReceivedUnexpectedly:
    case CloseReason::kClosedWhenReturned:
      return "broken";
  }
  return "broken";
}

void ClientSocketPool::ReleaseSocket(const SchemeHostPort& group_id,
                                     std::unique_ptr<StreamSocket> socket, int64_t generation,
                                     bool reusable, bool preconnected) {
  Group* group = FindGroup(group_id);
  if (!group) return;  // cannot happen while the socket is counted; the socket just closes
  --handed_out_socket_count_;
  group->DecrementActiveSocketCount();
  socket->NetLog().AddEvent(NetLogEventType::SOCKET_POOL_SOCKET_RELEASED);

  std::optional<CloseReason> reason;
  if (!reusable) {
    reason = CloseReason::kMarkedUnusable;
  } else if (!socket->IsConnectedAndIdle()) {
    reason = socket->IsConnected() ? CloseReason::kDataReceivedUnexpectedly
                                   : CloseReason::kClosedWhenReturned;
  } else if (generation != generation_) {
    reason = CloseReason::kGenerationOutOfDate;
  }
  if (!reason) {
    if (preconnected) preconnected_idle_.insert(socket.get());
    AddIdleSocket(std::move(socket), group);
    OnAvailableSocketSlot(group_id, group);
  } else {
    LogClosingSocket(*socket, *reason);
    if (preconnected) {
      preconnected_idle_.insert(socket.get());
      OnIdleSocketClosed(group_id, socket.get(), *reason);
    }
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
    CloseReason reason = CloseReason::kRemoteSideClosed;
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
  HandOutSocket(std::move(socket), nullptr, request, idle_time, group);
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
  LogClosingSocket(*idle.front().socket, CloseReason::kPoolLimit);
  OnIdleSocketClosed(lru->first, idle.front().socket.get(), CloseReason::kPoolLimit);
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
  CleanupIdleSockets(/*force=*/true, CloseReason::kIdleSocketsClosed);
}

void ClientSocketPool::CloseIdleSocketsInGroup(const SchemeHostPort& group_id) {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return;
  CleanupIdleSocketsInGroup(it, /*force=*/true, CloseReason::kIdleSocketsClosed);
  ArmCleanupTimer();
}

void ClientSocketPool::CleanupIdleSockets(bool force, CloseReason reason) {
  for (auto it = groups_.begin(); it != groups_.end();) {
    auto next = std::next(it);
    CleanupIdleSocketsInGroup(it, force, reason);
    it = next;
  }
  ArmCleanupTimer();
}

bool ClientSocketPool::CleanupIdleSocketsInGroup(GroupMap::iterator it, bool force,
                                                 CloseReason reason) {
  Group* group = it->second.get();
  const TimeTicks now = scheduler_.Now();
  std::list<IdleSocket>& idle = group->idle_sockets();
  for (auto s = idle.begin(); s != idle.end();) {
    CloseReason why = reason;
    bool close = force;
    if (!force) {
      TimeDelta timeout = s->socket->WasEverUsed() ? params_.used_idle_socket_timeout
                                                   : params_.unused_idle_socket_timeout;
      if (now - s->start_time >= timeout) {
        close = true;
        why = CloseReason::kIdleTimeLimitExpired;
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
                                          const StreamSocket* socket, CloseReason reason) {
  if (preconnected_idle_.erase(socket) == 0) return;
  const char* why = ObserverCloseReason(reason);
  for (Observer* observer : observers_) observer->OnPreconnectedSocketClosedUnused(group_id, why);
}

void ClientSocketPool::OnCleanupTimerFired() {
  // `force` false: each socket's own reason (timeout, broken) replaces this one.
  CleanupIdleSockets(/*force=*/false, CloseReason::kIdleTimeLimitExpired);
  CheckForStalledSocketGroups();
}

}  // namespace netstack
