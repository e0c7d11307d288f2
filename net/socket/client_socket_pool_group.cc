#include "net/socket/client_socket_pool_group.h"

#include <algorithm>
#include <utility>

namespace netstack {

ClientSocketPool::Group::Group(const SchemeHostPort& id, Scheduler& scheduler)
    : id_(id), backup_job_timer_(scheduler) {}

ClientSocketPool::Group::~Group() {
  // Jobs go before the requests that point at them.
  for (auto& request : requests_) request->job = nullptr;
  jobs_.clear();
}

void ClientSocketPool::Group::InsertRequest(std::unique_ptr<Request> request) {
  // Behind every request of the same or higher priority. Scanning from the back makes the
  // common case (equal priorities) O(1).
  auto it = requests_.end();
  while (it != requests_.begin()) {
    auto prev = std::prev(it);
    if ((*prev)->priority >= request->priority) break;
    it = prev;
  }
  request->job = nullptr;
  requests_.insert(it, std::move(request));
  AssignJobs();
}

const ClientSocketPool::Request* ClientSocketPool::Group::TopRequest() const {
  return requests_.empty() ? nullptr : requests_.front().get();
}

std::unique_ptr<ClientSocketPool::Request> ClientSocketPool::Group::PopNextRequest() {
  if (requests_.empty()) return nullptr;
  std::unique_ptr<Request> request = std::move(requests_.front());
  requests_.pop_front();
  request->job = nullptr;
  if (requests_.empty()) backup_job_timer_.Stop();
  AssignJobs();
  return request;
}

std::unique_ptr<ClientSocketPool::Request> ClientSocketPool::Group::RemoveRequest(
    const ClientSocketHandle* handle) {
  for (auto it = requests_.begin(); it != requests_.end(); ++it) {
    if ((*it)->handle != handle) continue;
    std::unique_ptr<Request> request = std::move(*it);
    requests_.erase(it);
    request->job = nullptr;
    if (requests_.empty()) backup_job_timer_.Stop();
    AssignJobs();
    return request;
  }
  return nullptr;
}

ClientSocketPool::Request* ClientSocketPool::Group::FindRequest(const ClientSocketHandle* handle) {
  for (auto& request : requests_)
    if (request->handle == handle) return request.get();
  return nullptr;
}

bool ClientSocketPool::Group::SetRequestPriority(const ClientSocketHandle* handle,
                                                 RequestPriority priority, uint64_t order) {
  for (auto it = requests_.begin(); it != requests_.end(); ++it) {
    if ((*it)->handle != handle) continue;
    std::unique_ptr<Request> request = std::move(*it);
    requests_.erase(it);
    request->priority = priority;
    request->order = order;
    InsertRequest(std::move(request));  // reassigns jobs, so their priorities follow
    return true;
  }
  return false;
}

void ClientSocketPool::Group::AddJob(std::unique_ptr<ConnectJob> job, bool is_preconnect) {
  if (is_preconnect) ++never_assigned_job_count_;
  jobs_.push_back(std::move(job));
  AssignJobs();
}

std::unique_ptr<ConnectJob> ClientSocketPool::Group::RemoveJob(ConnectJob* job) {
  auto it = std::find_if(jobs_.begin(), jobs_.end(),
                         [job](const std::unique_ptr<ConnectJob>& j) { return j.get() == job; });
  if (it == jobs_.end()) return nullptr;
  std::unique_ptr<ConnectJob> owned = std::move(*it);
  jobs_.erase(it);
  for (auto& request : requests_)
    if (request->job == job) request->job = nullptr;
  never_assigned_job_count_ = std::min(never_assigned_job_count_, jobs_.size());
  if (jobs_.empty()) backup_job_timer_.Stop();
  AssignJobs();
  return owned;
}

std::vector<std::unique_ptr<ConnectJob>> ClientSocketPool::Group::RemoveAllJobs() {
  for (auto& request : requests_) request->job = nullptr;
  std::vector<std::unique_ptr<ConnectJob>> jobs;
  for (auto& job : jobs_) jobs.push_back(std::move(job));
  jobs_.clear();
  never_assigned_job_count_ = 0;
  backup_job_timer_.Stop();
  return jobs;
}

bool ClientSocketPool::Group::TryToUseNeverAssignedJob() {
  if (never_assigned_job_count_ == 0) return false;
  --never_assigned_job_count_;
  return true;
}

void ClientSocketPool::Group::AssignJobs() {
  const size_t k = std::min(jobs_.size(), requests_.size());
  // Pass 1: requests past the first k give their jobs back; note which jobs stay held.
  std::vector<ConnectJob*> held;
  size_t i = 0;
  for (auto& request : requests_) {
    if (i >= k) {
      // Only requests near position k can hold a job (the invariant held before the single
      // change that brought us here), so stop at the first one past k without a job.
      if (!request->job) break;
      request->job = nullptr;
    } else if (request->job) {
      held.push_back(request->job);
    }
    ++i;
  }
  // Pass 2: the first k requests without a job take free jobs, oldest first.
  auto free_job = jobs_.begin();
  auto next_free = [&]() -> ConnectJob* {
    for (; free_job != jobs_.end(); ++free_job) {
      ConnectJob* candidate = free_job->get();
      if (std::find(held.begin(), held.end(), candidate) == held.end()) {
        ++free_job;
        return candidate;
      }
    }
    return nullptr;
  };
  i = 0;
  for (auto& request : requests_) {
    if (i++ >= k) break;
    if (!request->job) request->job = next_free();
    if (request->job) request->job->ChangePriority(request->priority);
  }
}

}  // namespace netstack
