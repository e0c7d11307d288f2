// ClientSocketPool's observability: counts, the socket pool info of Chrome's NetLog
// polledData and internals page, and the Memory view's estimate. Read-only; the pool's rules
// live in client_socket_pool.cc.
#include "net/base/memory_usage_estimator.h"
#include "net/socket/client_socket_pool.h"
#include "net/socket/client_socket_pool_group.h"

namespace netstack {

bool ClientSocketPool::HasGroup(const SchemeHostPort& group_id) const {
  return FindGroup(group_id) != nullptr;
}

size_t ClientSocketPool::IdleSocketCountInGroup(const SchemeHostPort& group_id) const {
  const Group* group = FindGroup(group_id);
  return group ? group->idle_sockets().size() : 0;
}

size_t ClientSocketPool::NumConnectJobsInGroup(const SchemeHostPort& group_id) const {
  const Group* group = FindGroup(group_id);
  return group ? group->jobs().size() : 0;
}

int ClientSocketPool::NumActiveSocketsInGroup(const SchemeHostPort& group_id) const {
  const Group* group = FindGroup(group_id);
  return group ? group->active_socket_count() : 0;
}

size_t ClientSocketPool::NumPendingRequestsInGroup(const SchemeHostPort& group_id) const {
  const Group* group = FindGroup(group_id);
  return group ? group->request_count() : 0;
}

bool ClientSocketPool::IsBackupJobTimerRunning(const SchemeHostPort& group_id) const {
  const Group* group = FindGroup(group_id);
  return group && group->BackupJobTimerIsRunning();
}

bool ClientSocketPool::IsStalled() const {
  if (!ReachedMaxSocketsLimit()) return false;
  for (const auto& [id, group] : groups_)
    if (group->CanUseAdditionalSocketSlot(params_.max_sockets_per_group)) return true;
  return false;
}

size_t ClientSocketPool::EstimateMemoryUsage() const {
  const auto tls_bytes = [](const StreamSocket& socket) {
    return socket.TlsVersion().empty() ? 0 : kEstimatedTlsSocketExtraBytes;
  };
  const auto idle_socket_bytes = [&](const StreamSocket& socket) {
    return kEstimatedIdleSocketBytes + tls_bytes(socket);
  };
  const auto socket_bytes = [&](const StreamSocket& socket) {
    return kEstimatedSocketBytes + tls_bytes(socket);
  };
  const size_t job_bytes = sizeof(ConnectJob) + kEstimatedSocketBytes;
  size_t bytes = groups_.size() * TreeNodeBytes<GroupMap::value_type>();
  for (const auto& [id, group] : groups_) {
    bytes += netstack::EstimateMemoryUsage(id) + sizeof(Group);
    bytes += group->request_count() * (ListNodeBytes<std::unique_ptr<Request>>() + sizeof(Request));
    bytes += group->jobs().size() * (ListNodeBytes<std::unique_ptr<ConnectJob>>() + job_bytes);
    for (const IdleSocket& idle : group->idle_sockets())
      bytes += ListNodeBytes<IdleSocket>() + idle_socket_bytes(*idle.socket);
  }
  bytes += static_cast<size_t>(handed_out_socket_count_) * kEstimatedSocketBytes;
  bytes +=
      finished_jobs_.capacity() * sizeof(finished_jobs_[0]) + finished_jobs_.size() * job_bytes;
  bytes += closed_sockets_.capacity() * sizeof(closed_sockets_[0]);
  for (const auto& socket : closed_sockets_) bytes += socket_bytes(*socket);
  bytes += observers_.capacity() * sizeof(Observer*);
  bytes += netstack::EstimateMemoryUsage(preconnected_idle_);
  bytes += unreported_.size() * TreeNodeBytes<decltype(unreported_)::value_type>();
  bytes += pending_callbacks_.size() * TreeNodeBytes<decltype(pending_callbacks_)::value_type>();
  return bytes;
}

nlohmann::json ClientSocketPool::GetInfoAsJson() const {
  nlohmann::json info = {
      {"name", params_.name},
      {"type", "transport_socket_pool"},
      {"handed_out_socket_count", handed_out_socket_count_},
      {"connecting_socket_count", connecting_socket_count_},
      {"idle_socket_count", idle_socket_count_},
      {"max_socket_count", params_.max_sockets},
      {"max_sockets_per_group", params_.max_sockets_per_group},
      {"pool_generation_number", generation_},
  };
  if (groups_.empty()) return info;
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [id, group] : groups_) {
    nlohmann::json idle = nlohmann::json::array();
    for (const IdleSocket& s : group->idle_sockets())
      idle.push_back(s.socket->NetLog().source().id);
    nlohmann::json jobs = nlohmann::json::array();
    for (const auto& job : group->jobs()) jobs.push_back(job->net_log().source().id);
    nlohmann::json g = {
        {"pending_request_count", group->request_count()},
        {"active_socket_count", group->active_socket_count()},
        {"idle_sockets", std::move(idle)},
        {"connect_jobs", std::move(jobs)},
        {"is_stalled", group->CanUseAdditionalSocketSlot(params_.max_sockets_per_group)},
        {"backup_job_timer_is_running", group->BackupJobTimerIsRunning()},
    };
    if (const Request* top = group->TopRequest())
      g["top_pending_priority"] = RequestPriorityToString(top->priority);
    groups[id.ToString()] = std::move(g);
  }
  info["groups"] = std::move(groups);
  return info;
}

}  // namespace netstack
