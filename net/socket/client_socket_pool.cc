#include "net/socket/client_socket_pool.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "net/base/load_timing_phases.h"
#include "net/socket/client_socket_pool_group.h"

namespace netstack {

namespace {

// RequestSocketInternal's answer to a preconnect that found no room at the pool limit.
constexpr int kPreconnectNoRoom = ERR_INSUFFICIENT_RESOURCES;

}  // namespace

ClientSocketPool::ClientSocketPool(const Params& params, Scheduler& scheduler,
                                   HostResolver* host_resolver, ClientSocketFactory* socket_factory,
                                   NetLog* net_log)
    : params_(params), scheduler_(scheduler), cleanup_timer_(scheduler) {
  job_params_.scheduler = &scheduler;
  job_params_.host_resolver = host_resolver;
  job_params_.socket_factory = socket_factory;
  job_params_.net_log = net_log;
  job_params_.connect_timeout = params.connect_timeout;
  job_params_.ipv6_fallback_delay = params.ipv6_fallback_delay;
}

ClientSocketPool::~ClientSocketPool() {
  // Handles see a null pool from here on: their Reset closes sockets themselves and pending
  // callbacks never run. Observers hear nothing of what the destructor closes.
  observers_.clear();
  weak_factory_.InvalidateWeakPtrs();
  cleanup_timer_.Stop();
  groups_.clear();
  finished_jobs_.clear();
  closed_sockets_.clear();
  pending_callbacks_.clear();
  preconnected_idle_.clear();
  unreported_.clear();
}

int ClientSocketPool::RequestSocket(const SchemeHostPort& group_id, RequestPriority priority,
                                    ClientSocketHandle* handle, CompletionCallback callback,
                                    const NetLogWithSource& net_log, bool speculative,
                                    TimeTicks request_start) {
  if (handle->is_initialized() || handle->is_pending()) handle->Reset();
  handle->pool_ = weak_factory_.GetWeakPtr();
  handle->group_id_ = group_id;
  handle->pending_ = true;

  auto request = std::make_unique<Request>();
  request->handle = handle;
  request->callback = std::move(callback);
  request->priority = priority;
  request->net_log = net_log;
  request->order = ++next_request_order_;
  request->speculative = speculative;
  request->start = request_start != TimeTicks{} ? request_start : scheduler_.Now();

  net_log.BeginEvent(NetLogEventType::SOCKET_POOL, [&](NetLogParams& p) {
    p.Add("group_id", group_id.ToString()).Add("priority", RequestPriorityToString(priority));
  });
  int rv = pending_request_count_ >= params_.max_pending_requests
               ? ERR_INSUFFICIENT_RESOURCES
               : RequestSocketInternal(group_id, *request, /*queued=*/false);
  if (rv != ERR_IO_PENDING) {
    net_log.EndEventWithNetErrorCode(NetLogEventType::SOCKET_POOL, rv);
    handle->pending_ = false;
    handle->is_initialized_ = rv == OK;
    if (auto it = unreported_.find(handle); it != unreported_.end()) {
      const Observer::Assignment assignment = it->second;
      unreported_.erase(it);
      if (rv == OK) NotifySocketAssigned(group_id, assignment);
    }
    return rv;
  }
  GetOrCreateGroup(group_id)->InsertRequest(std::move(request));
  ++pending_request_count_;
  return ERR_IO_PENDING;
}

int ClientSocketPool::RequestSockets(const SchemeHostPort& group_id, int num_sockets,
                                     const NetLogWithSource& net_log) {
  num_sockets = std::min(num_sockets, params_.max_sockets_per_group);
  net_log.BeginEvent(NetLogEventType::SOCKET_POOL_CONNECTING_N_SOCKETS, [&] {
    return nlohmann::json{{"group_id", group_id.ToString()}, {"num_sockets", num_sockets}};
  });
  Request request;
  request.priority = IDLE;
  request.net_log = net_log;
  request.order = ++next_request_order_;

  int rv = OK;
  for (int left = num_sockets; left > 0; --left) {
    Group* group = FindGroup(group_id);
    if (group && group->NumActiveSocketSlots() >= num_sockets) break;
    rv = RequestSocketInternal(group_id, request, /*queued=*/false);
    if (rv < 0 && rv != ERR_IO_PENDING) break;
  }
  if (Group* group = FindGroup(group_id); group && group->IsEmpty()) RemoveGroup(group_id);
  if (rv == ERR_IO_PENDING) rv = OK;
  net_log.EndEventWithNetErrorCode(NetLogEventType::SOCKET_POOL_CONNECTING_N_SOCKETS, rv);
  return rv;
}

void ClientSocketPool::SetPriority(const SchemeHostPort& group_id, ClientSocketHandle* handle,
                                   RequestPriority priority) {
  Group* group = FindGroup(group_id);
  if (!group) return;  // completed; its callback may still be queued
  Request* found = group->FindRequest(handle);
  if (!found || found->priority == priority) return;
  group->SetRequestPriority(handle, priority, ++next_request_order_);
}

int ClientSocketPool::RequestSocketInternal(const SchemeHostPort& group_id, const Request& request,
                                            bool queued) {
  const bool preconnecting = request.handle == nullptr;
  Group* group = FindGroup(group_id);
  if (group) {
    // Preconnects skip idle sockets (Chrome's NO_IDLE_SOCKETS): they count them instead.
    if (!preconnecting && AssignIdleSocketToRequest(request, group)) return OK;
    // A preconnect job nobody claimed yet will serve this request when it connects.
    if (!preconnecting && !queued && group->TryToUseNeverAssignedJob()) return ERR_IO_PENDING;
    if (!group->HasAvailableSocketSlot(params_.max_sockets_per_group)) {
      request.net_log.AddEvent(NetLogEventType::SOCKET_POOL_STALLED_MAX_SOCKETS_PER_GROUP);
      return ERR_IO_PENDING;
    }
  }
  if (ReachedMaxSocketsLimit()) {
    if (idle_socket_count_ == 0 || !CloseOneIdleSocketExceptInGroup(group)) {
      request.net_log.AddEvent(NetLogEventType::SOCKET_POOL_STALLED_MAX_SOCKETS);
      return preconnecting ? kPreconnectNoRoom : ERR_IO_PENDING;
    }
  }

  group = GetOrCreateGroup(group_id);
  std::unique_ptr<ConnectJob> job = CreateConnectJob(group_id, request.priority, false);
  if (preconnecting) {
    job->set_is_preconnect(true);
    NotifyPreconnectJobStarted(group_id);
  }
  int rv = job->Connect();
  if (rv == ERR_IO_PENDING) {
    // A group with no sockets at all gets a backup job if this one is slow (a lost SYN).
    if (params_.enable_backup_jobs && group->IsEmpty()) StartBackupJobTimer(group);
    group->AddJob(std::move(job), preconnecting);
    ++connecting_socket_count_;
    return rv;
  }
  if (!preconnecting) {
    request.net_log.AddEventReferencingSource(NetLogEventType::SOCKET_POOL_BOUND_TO_CONNECT_JOB,
                                              job->net_log().source());
  }
  if (rv == OK) {
    std::unique_ptr<StreamSocket> socket = job->PassSocket();
    if (preconnecting) {
      preconnected_idle_.insert(socket.get());
      AddIdleSocket(std::move(socket), group);
    } else {
      HandOutSocket(std::move(socket), job.get(), request, TimeDelta::zero(), group);
    }
  }
  if (preconnecting) NotifyPreconnectJobComplete(group_id, rv);
  if (group->IsEmpty()) RemoveGroup(group_id);
  return rv;
}

void ClientSocketPool::HandOutSocket(std::unique_ptr<StreamSocket> socket, const ConnectJob* job,
                                     const Request& request, TimeDelta idle_time, Group* group) {
  ClientSocketHandle* handle = request.handle;
  const NetLogWithSource& net_log = request.net_log;
  // An idle socket remembers whether a preconnect made it; a job's socket asks the job.
  SocketSource source;
  if (job) {
    source = job->is_preconnect() ? SocketSource::kPreconnectedLate : SocketSource::kNew;
  } else {
    const bool preconnected = preconnected_idle_.erase(socket.get()) > 0;
    source = socket->WasEverUsed() ? SocketSource::kReused
             : preconnected        ? SocketSource::kPreconnected
                                   : SocketSource::kUnusedIdle;
  }
  Observer::Assignment assignment;
  assignment.source = source;
  assignment.speculative = request.speculative;
  assignment.background = request.priority == IDLE;
  assignment.connect_wait_ms = job ? ConnectWaitMs(job->connect_timing(), request.start) : 0;
  handle->socket_ = std::move(socket);
  handle->socket_source_ = source;
  handle->idle_time_ = idle_time;
  handle->generation_ = generation_;
  handle->connect_timing_ = job ? job->connect_timing() : ConnectTiming();
  handle->dns_from_cache_ = job && job->dns_from_cache();
  handle->dns_served_stale_ = job && job->dns_served_stale();
  if (source == SocketSource::kReused) {
    net_log.AddEvent(NetLogEventType::SOCKET_POOL_REUSED_AN_EXISTING_SOCKET, [idle_time] {
      return nlohmann::json{{"idle_ms", static_cast<int64_t>(ToMilliseconds(idle_time))}};
    });
  }
  net_log.AddEventReferencingSource(NetLogEventType::SOCKET_POOL_BOUND_TO_SOCKET,
                                    handle->socket_->NetLog().source());
  ++handed_out_socket_count_;
  group->IncrementActiveSocketCount();
  // Reported when the requester learns of it (RequestSocket returning OK, or its callback), so
  // that a request cancelled in between is not counted.
  unreported_[handle] = assignment;
}

void ClientSocketPool::NotifySocketAssigned(const SchemeHostPort& group_id,
                                            const Observer::Assignment& assignment) {
  for (Observer* observer : observers_) observer->OnSocketAssigned(group_id, assignment);
}

std::unique_ptr<ConnectJob> ClientSocketPool::CreateConnectJob(const SchemeHostPort& group_id,
                                                               RequestPriority priority,
                                                               bool is_backup) {
  ConnectJob::Delegate* delegate = this;  // a private base: convert here, where it is visible
  return std::make_unique<ConnectJob>(group_id, priority, job_params_, delegate, is_backup);
}

void ClientSocketPool::CancelRequest(const SchemeHostPort& group_id, ClientSocketHandle* handle,
                                     bool cancel_connect_job) {
  auto callback_it = pending_callbacks_.find(handle);
  if (callback_it != pending_callbacks_.end()) {
    // Completed, callback not run yet: drop the callback, take the socket back.
    const int result = callback_it->second.result;
    // Never reported, so a preconnected socket is still an unused preconnected one.
    const bool preconnected =
        callback_it->second.report && IsPreconnectSocket(callback_it->second.assignment.source);
    pending_callbacks_.erase(callback_it);
    if (std::unique_ptr<StreamSocket> socket = std::move(handle->socket_)) {
      bool reusable = result == OK;
      if (reusable && cancel_connect_job) {
        Group* group = FindGroup(group_id);
        reusable = group && group->has_requests();
      }
      ReleaseSocket(group_id, std::move(socket), handle->generation_, reusable, preconnected);
    }
    return;
  }

  Group* group = FindGroup(group_id);
  if (!group) return;
  std::unique_ptr<Request> request = group->RemoveRequest(handle);
  if (!request) return;
  --pending_request_count_;
  request->net_log.AddEvent(NetLogEventType::CANCELLED);
  request->net_log.EndEvent(NetLogEventType::SOCKET_POOL);

  // The job keeps running (its socket serves the next request or waits idle), unless the
  // slot is wanted elsewhere: see the header.
  const bool reached_limit = ReachedMaxSocketsLimit();
  bool cancelled_job = false;
  if (group->jobs().size() > group->request_count() && (cancel_connect_job || reached_limit)) {
    std::unique_ptr<ConnectJob> job = group->RemoveJob(group->jobs().back().get());
    --connecting_socket_count_;
    cancelled_job = true;
    if (job->is_preconnect()) NotifyPreconnectJobComplete(group_id, ERR_ABORTED);
  }
  // A request stalled at the pool limit may have been all its group had.
  if (group->IsEmpty()) RemoveGroup(group_id);
  if (cancelled_job && reached_limit) CheckForStalledSocketGroups();
}

void ClientSocketPool::OnConnectJobComplete(ConnectJob* job, int result) {
  const SchemeHostPort group_id = job->endpoint();
  Group* group = FindGroup(group_id);
  if (!group) return;  // cannot happen: a group lives while it has jobs
  // The job is inside its own callback (a socket's or the resolver's): destroy it later, so
  // that no transport object is destroyed from inside its own callback.
  DeleteJobLater(group->RemoveJob(job));
  --connecting_socket_count_;
  const bool preconnect_job = job->is_preconnect();

  // Late binding: the result goes to whoever is on top now, not to who started the job.
  std::unique_ptr<Request> request = group->PopNextRequest();
  if (request) --pending_request_count_;
  if (!request) {
    if (result == OK) {
      std::unique_ptr<StreamSocket> socket = job->PassSocket();
      if (preconnect_job) preconnected_idle_.insert(socket.get());
      AddIdleSocket(std::move(socket), group);
    }
    if (preconnect_job) NotifyPreconnectJobComplete(group_id, result);
    OnAvailableSocketSlot(group_id, group);
    CheckForStalledSocketGroups();
    return;
  }
  request->net_log.AddEventReferencingSource(NetLogEventType::SOCKET_POOL_BOUND_TO_CONNECT_JOB,
                                             job->net_log().source());
  if (result == OK) {
    HandOutSocket(job->PassSocket(), job, *request, TimeDelta::zero(), group);
  }
  if (result != OK) request->handle->connect_error_detail_ = job->error_detail();
  if (preconnect_job) NotifyPreconnectJobComplete(group_id, result);
  request->net_log.EndEventWithNetErrorCode(NetLogEventType::SOCKET_POOL, result);
  InvokeUserCallbackLater(request->handle, std::move(request->callback), result);
  if (result != OK) {
    OnAvailableSocketSlot(group_id, group);
    CheckForStalledSocketGroups();
  }
}

void ClientSocketPool::OnAvailableSocketSlot(const SchemeHostPort& group_id, Group* group) {
  if (group->IsEmpty()) {
    RemoveGroup(group_id);
  } else if (group->has_requests()) {
    ProcessPendingRequest(group_id, group);
  }
}

void ClientSocketPool::ProcessPendingRequest(const SchemeHostPort& group_id, Group* group) {
  const Request* next = group->TopRequest();
  if (group->idle_sockets().empty() &&
      !group->CanUseAdditionalSocketSlot(params_.max_sockets_per_group)) {
    return;
  }
  int rv = RequestSocketInternal(group_id, *next, /*queued=*/true);
  if (rv == ERR_IO_PENDING) return;
  std::unique_ptr<Request> request = group->PopNextRequest();
  --pending_request_count_;
  if (group->IsEmpty()) RemoveGroup(group_id);
  request->net_log.EndEventWithNetErrorCode(NetLogEventType::SOCKET_POOL, rv);
  InvokeUserCallbackLater(request->handle, std::move(request->callback), rv);
}

void ClientSocketPool::CheckForStalledSocketGroups() {
  while (Group* top = FindTopStalledGroup()) {
    if (ReachedMaxSocketsLimit()) {
      if (idle_socket_count_ == 0) return;  // nothing to close: wait for a slot
      CloseOneIdleSocketExceptInGroup(nullptr);
    }
    // Stop if serving the group made no progress (it always should; this guards the loop).
    const int before = connecting_socket_count_ + handed_out_socket_count_ + idle_socket_count_;
    const size_t requests_before = top->request_count();
    const SchemeHostPort id = top->id();
    OnAvailableSocketSlot(id, top);
    Group* after = FindGroup(id);
    if (connecting_socket_count_ + handed_out_socket_count_ + idle_socket_count_ == before &&
        after && after->request_count() == requests_before) {
      return;
    }
  }
}

ClientSocketPool::Group* ClientSocketPool::FindTopStalledGroup() const {
  Group* top = nullptr;
  for (const auto& [id, group] : groups_) {
    if (!group->CanUseAdditionalSocketSlot(params_.max_sockets_per_group)) continue;
    const Request* r = group->TopRequest();
    const Request* best = top ? top->TopRequest() : nullptr;
    if (!best || r->priority > best->priority ||
        (r->priority == best->priority && r->order < best->order)) {
      top = group.get();
    }
  }
  return top;
}

bool ClientSocketPool::ReachedMaxSocketsLimit() const {
  return handed_out_socket_count_ + connecting_socket_count_ + idle_socket_count_ >=
         params_.max_sockets;
}

void ClientSocketPool::FlushWithError(int error) {
  for (auto it = groups_.begin(); it != groups_.end();) {
    std::vector<std::unique_ptr<ConnectJob>> jobs = it->second->RemoveAllJobs();
    connecting_socket_count_ -= static_cast<int>(jobs.size());
    for (const auto& job : jobs) {
      if (job->is_preconnect()) NotifyPreconnectJobComplete(it->first, ERR_ABORTED);
    }
    jobs.clear();
    it = it->second->IsEmpty() ? groups_.erase(it) : std::next(it);
  }
  CleanupIdleSockets(/*force=*/true, CloseReason::kPoolFlushed);
  for (auto it = groups_.begin(); it != groups_.end();) {
    while (std::unique_ptr<Request> request = it->second->PopNextRequest()) {
      --pending_request_count_;
      request->net_log.EndEventWithNetErrorCode(NetLogEventType::SOCKET_POOL, error);
      InvokeUserCallbackLater(request->handle, std::move(request->callback), error);
    }
    it = it->second->IsEmpty() ? groups_.erase(it) : std::next(it);
  }
  ++generation_;
}

void ClientSocketPool::StartBackupJobTimer(Group* group) {
  if (group->BackupJobTimerIsRunning()) return;
  group->backup_job_timer().Start(params_.backup_connect_job_delay,
                                  [this, id = group->id()] { OnBackupJobTimerFired(id); });
}

void ClientSocketPool::OnBackupJobTimerFired(const SchemeHostPort& group_id) {
  Group* group = FindGroup(group_id);
  if (!group || group->jobs().empty()) return;
  const ConnectJob* first = group->jobs().front().get();
  // Backup jobs are for a lost SYN: not once TCP is up.
  if (first->HasEstablishedConnection()) return;
  // A backup would wait for the same DNS answer, or has no room: try again later.
  if (ReachedMaxSocketsLimit() || !group->HasAvailableSocketSlot(params_.max_sockets_per_group) ||
      first->IsResolvingHost()) {
    StartBackupJobTimer(group);
    return;
  }
  const Request* request = group->TopRequest();
  if (!request) return;
  std::unique_ptr<ConnectJob> owned = CreateConnectJob(group_id, request->priority, true);
  request->net_log.AddEventReferencingSource(NetLogEventType::SOCKET_BACKUP_CREATED,
                                             owned->net_log().source());
  ConnectJob* job = owned.get();
  group->AddJob(std::move(owned), /*is_preconnect=*/false);
  ++connecting_socket_count_;
  int rv = job->Connect();
  if (rv != ERR_IO_PENDING) OnConnectJobComplete(job, rv);
}

void ClientSocketPool::DeleteJobLater(std::unique_ptr<ConnectJob> job) {
  if (job) finished_jobs_.push_back(std::move(job));
  PostDeletionTask();
}

void ClientSocketPool::DeleteSocketLater(std::unique_ptr<StreamSocket> socket) {
  if (socket) closed_sockets_.push_back(std::move(socket));
  PostDeletionTask();
}

void ClientSocketPool::PostDeletionTask() {
  if (deletion_task_posted_) return;
  deletion_task_posted_ = true;
  scheduler_.PostTask([weak = weak_factory_.GetWeakPtr()] {
    ClientSocketPool* pool = weak.get();
    if (!pool) return;
    pool->deletion_task_posted_ = false;
    std::vector<std::unique_ptr<ConnectJob>> jobs = std::move(pool->finished_jobs_);
    std::vector<std::unique_ptr<StreamSocket>> sockets = std::move(pool->closed_sockets_);
    pool->finished_jobs_.clear();
    pool->closed_sockets_.clear();
  });
}

void ClientSocketPool::InvokeUserCallbackLater(ClientSocketHandle* handle,
                                               CompletionCallback callback, int rv) {
  const uint64_t id = ++next_callback_id_;
  PendingCallback pending;
  pending.callback = std::move(callback);
  pending.result = rv;
  pending.id = id;
  if (auto it = unreported_.find(handle); it != unreported_.end()) {
    pending.report = rv == OK;
    pending.assignment = it->second;
    unreported_.erase(it);
  }
  pending_callbacks_[handle] = std::move(pending);
  scheduler_.PostTask([weak = weak_factory_.GetWeakPtr(), handle, id] {
    if (ClientSocketPool* pool = weak.get()) pool->InvokeUserCallback(handle, id);
  });
}

void ClientSocketPool::InvokeUserCallback(ClientSocketHandle* handle, uint64_t id) {
  auto it = pending_callbacks_.find(handle);
  // Cancelled (the handle was Reset or destroyed, maybe reused for a newer request).
  if (it == pending_callbacks_.end() || it->second.id != id) return;
  CompletionCallback callback = std::move(it->second.callback);
  const int result = it->second.result;
  const bool report = it->second.report;
  const Observer::Assignment assignment = it->second.assignment;
  pending_callbacks_.erase(it);
  handle->pending_ = false;
  handle->is_initialized_ = result == OK && handle->socket_ != nullptr;
  // The observers learn of the socket as the requester does (see Observer::OnSocketAssigned).
  if (report && handle->is_initialized_) NotifySocketAssigned(handle->group_id_, assignment);
  if (callback) callback(result);
}

void ClientSocketPool::AddObserver(Observer* observer) {
  if (std::find(observers_.begin(), observers_.end(), observer) == observers_.end())
    observers_.push_back(observer);
}

void ClientSocketPool::RemoveObserver(Observer* observer) {
  observers_.erase(std::remove(observers_.begin(), observers_.end(), observer), observers_.end());
}

void ClientSocketPool::NotifyPreconnectJobStarted(const SchemeHostPort& group_id) {
  for (Observer* observer : observers_) observer->OnPreconnectJobStarted(group_id);
}

void ClientSocketPool::NotifyPreconnectJobComplete(const SchemeHostPort& group_id, int result) {
  for (Observer* observer : observers_) observer->OnPreconnectJobComplete(group_id, result);
}

ClientSocketPool::Group* ClientSocketPool::FindGroup(const SchemeHostPort& group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : it->second.get();
}

ClientSocketPool::Group* ClientSocketPool::GetOrCreateGroup(const SchemeHostPort& group_id) {
  std::unique_ptr<Group>& group = groups_[group_id];
  if (!group) group = std::make_unique<Group>(group_id, scheduler_);
  return group.get();
}

void ClientSocketPool::RemoveGroup(const SchemeHostPort& group_id) { groups_.erase(group_id); }

}  // namespace netstack
