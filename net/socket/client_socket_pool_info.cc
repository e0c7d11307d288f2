// ClientSocketPool's observability: counts and the socket pool info of Chrome's NetLog
// polledData and internals page. Read-only; the pool's rules live in client_socket_pool.cc.
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
