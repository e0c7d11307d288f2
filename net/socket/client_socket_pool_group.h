// The per-group state of ClientSocketPool (internal to the pool): the queue of waiting
// requests (by priority, FIFO among equals), the group's connect jobs and which request each
// one's priority follows, the idle sockets (oldest first) and the backup job timer. No policy
// lives here; the pool decides.
#ifndef NET_SOCKET_CLIENT_SOCKET_POOL_GROUP_H_
#define NET_SOCKET_CLIENT_SOCKET_POOL_GROUP_H_

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/scheduler.h"
#include "net/base/url.h"
#include "net/socket/client_socket_pool.h"
#include "net/socket/connect_job.h"
#include "net/socket/stream_socket.h"

namespace netstack {

// One request: a handle waiting for a socket, or (handle null) a preconnect.
struct ClientSocketPool::Request {
  ClientSocketHandle* handle = nullptr;
  CompletionCallback callback;
  RequestPriority priority = DEFAULT_PRIORITY;
  NetLogWithSource net_log;
  // Pool-wide arrival order: FIFO among equal priorities, across groups for stall fairness.
  uint64_t order = 0;
  // The job whose priority follows this request's (late binding: not a binding).
  ConnectJob* job = nullptr;
  // RequestSocket's `speculative` (reported in Observer::Assignment).
  bool speculative = false;
  // RequestSocket's `request_start` (or when it was called): what the connect wait counts from.
  TimeTicks start{};
};

struct ClientSocketPool::IdleSocket {
  std::unique_ptr<StreamSocket> socket;
  TimeTicks start_time{};  // when it became idle
};

class ClientSocketPool::Group {
 public:
  Group(const SchemeHostPort& id, Scheduler& scheduler);
  ~Group();

  const SchemeHostPort& id() const { return id_; }

  // Requests, highest priority first, FIFO among equals.
  void InsertRequest(std::unique_ptr<Request> request);
  const Request* TopRequest() const;
  std::unique_ptr<Request> PopNextRequest();
  // Null if `handle` has no request here.
  std::unique_ptr<Request> RemoveRequest(const ClientSocketHandle* handle);
  Request* FindRequest(const ClientSocketHandle* handle);
  // Moves `handle`'s request behind the requests already at `priority`; `order` is its new
  // arrival order. False if `handle` has no request here.
  bool SetRequestPriority(const ClientSocketHandle* handle, RequestPriority priority,
                          uint64_t order);
  size_t request_count() const { return requests_.size(); }
  bool has_requests() const { return !requests_.empty(); }

  // Jobs, oldest first. `is_preconnect` jobs can be claimed by a later request
  // (TryToUseNeverAssignedJob) instead of that request starting its own.
  void AddJob(std::unique_ptr<ConnectJob> job, bool is_preconnect);
  std::unique_ptr<ConnectJob> RemoveJob(ConnectJob* job);
  std::vector<std::unique_ptr<ConnectJob>> RemoveAllJobs();
  const std::list<std::unique_ptr<ConnectJob>>& jobs() const { return jobs_; }
  bool TryToUseNeverAssignedJob();

  std::list<IdleSocket>& idle_sockets() { return idle_sockets_; }
  const std::list<IdleSocket>& idle_sockets() const { return idle_sockets_; }

  int active_socket_count() const { return active_socket_count_; }
  void IncrementActiveSocketCount() { ++active_socket_count_; }
  void DecrementActiveSocketCount() { --active_socket_count_; }

  OneShotTimer& backup_job_timer() { return backup_job_timer_; }
  bool BackupJobTimerIsRunning() const { return backup_job_timer_.IsRunning(); }

  bool IsEmpty() const {
    return active_socket_count_ == 0 && idle_sockets_.empty() && jobs_.empty() && requests_.empty();
  }
  // Sockets of any state: handed out, connecting, idle.
  int NumActiveSocketSlots() const {
    return active_socket_count_ + static_cast<int>(jobs_.size() + idle_sockets_.size());
  }
  bool HasAvailableSocketSlot(int max_sockets_per_group) const {
    return NumActiveSocketSlots() < max_sockets_per_group;
  }
  // Could use one more slot if the pool gave it: below the group limit with more requests than
  // jobs. Chrome's "is_stalled".
  bool CanUseAdditionalSocketSlot(int max_sockets_per_group) const {
    return HasAvailableSocketSlot(max_sockets_per_group) && requests_.size() > jobs_.size();
  }

 private:
  // Keeps the invariant: the first min(jobs, requests) requests each follow one job, whose
  // priority is the request's; assignments stick where they can (a job's priority changes only
  // when it changes hands).
  void AssignJobs();

  const SchemeHostPort id_;
  std::list<std::unique_ptr<Request>> requests_;
  std::list<std::unique_ptr<ConnectJob>> jobs_;
  size_t never_assigned_job_count_ = 0;
  std::list<IdleSocket> idle_sockets_;
  int active_socket_count_ = 0;
  OneShotTimer backup_job_timer_;
};

}  // namespace netstack

#endif  // NET_SOCKET_CLIENT_SOCKET_POOL_GROUP_H_
