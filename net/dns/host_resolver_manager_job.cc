#include "net/dns/host_resolver_manager_job.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "net/dns/host_resolver_manager_request_impl.h"

namespace netstack {

HostResolverManager::Job::Job(HostResolverManager* manager, HostCache::Key key, bool is_refresh,
                              RequestPriority base_priority, const NetLogSource& creator)
    : manager_(manager),
      key_(std::move(key)),
      is_refresh_(is_refresh),
      base_priority_(is_refresh ? base_priority : MINIMUM_PRIORITY),
      priority_(base_priority_),
      deadline_timer_(manager->scheduler_),
      net_log_(
          NetLogWithSource::Make(manager->net_log_, NetLogSourceType::HOST_RESOLVER_MANAGER_JOB)) {
  net_log_.BeginEvent(NetLogEventType::HOST_RESOLVER_MANAGER_JOB, [&] {
    nlohmann::json params = {{"host", key_.hostname},
                             {"address_family", static_cast<int>(key_.family)}};
    if (creator.IsValid()) params["source_dependency"] = creator.ToJson();
    return params;
  });
  if (is_refresh_) net_log_.AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_ASYNC_REFRESH);
}

HostResolverManager::Job::~Job() {
  transaction_.reset();
  for (RequestImpl* request : requests_) request->OnJobCancelled();
  if (dns_task_open_) {
    net_log_.EndEventWithNetErrorCode(NetLogEventType::HOST_RESOLVER_MANAGER_DNS_TASK, ERR_ABORTED);
  }
  if (!ended_) {
    net_log_.AddEvent(NetLogEventType::CANCELLED);
    net_log_.EndEvent(NetLogEventType::HOST_RESOLVER_MANAGER_JOB);
  }
}

void HostResolverManager::Job::AddRequest(RequestImpl* request) {
  requests_.push_back(request);
  request->set_job(this);
  request->net_log().AddEventReferencingSource(NetLogEventType::HOST_RESOLVER_MANAGER_JOB_ATTACH,
                                               net_log_.source());
  net_log_.AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_JOB_ATTACH, [&] {
    return nlohmann::json{{"source_dependency", request->net_log().source().ToJson()},
                          {"priority", RequestPriorityToString(request->priority())}};
  });
  OnRequestPriorityChanged();
}

void HostResolverManager::Job::RemoveRequest(RequestImpl* request) {
  requests_.remove(request);
  net_log_.AddEvent(NetLogEventType::CANCELLED, [&] {
    return nlohmann::json{{"source_dependency", request->net_log().source().ToJson()}};
  });
  if (state_ == State::kDone) return;  // Completing: the manager no longer tracks us.
  UpdatePriority();
  manager_->OnJobRequestRemoved(this);  // May destroy `this`.
}

void HostResolverManager::Job::OnRequestPriorityChanged() {
  if (UpdatePriority() && state_ == State::kQueued) manager_->OnJobPriorityChanged(this);
}

void HostResolverManager::Job::Start(DnsTransport* transport, int network_generation) {
  state_ = State::kRunning;
  generation_at_start_ = network_generation;
  net_log_.AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_JOB_STARTED);
  net_log_.BeginEvent(NetLogEventType::HOST_RESOLVER_MANAGER_DNS_TASK);
  dns_task_open_ = true;
  // Armed first: whatever the transport does (even nothing, ever), the slot comes back.
  deadline_timer_.Start(manager_->config_.job_timeout, [this] { OnDeadline(); });
  // The job owns the transaction, so the callback cannot outlive `this`.
  transaction_ = transport->StartLookup(
      key_.hostname, key_.family,
      [this](const DnsTransportResult& result) { OnTransportComplete(result); });
}

void HostResolverManager::Job::OnDeadline() {
  transaction_.reset();  // Cancels the lookup: its callback never runs.
  DnsTransportResult result;
  result.error = ERR_DNS_TIMED_OUT;
  result.detail = "no answer within the resolver's " +
                  std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     manager_->config_.job_timeout)
                                     .count()) +
                  " ms job deadline";
  OnTransportComplete(result);  // Destroys `this`.
}

void HostResolverManager::Job::OnTransportComplete(const DnsTransportResult& result) {
  deadline_timer_.Stop();
  dns_task_open_ = false;
  net_log_.EndEvent(NetLogEventType::HOST_RESOLVER_MANAGER_DNS_TASK, [&] {
    if (result.error != OK) {
      nlohmann::json params = {{"net_error", result.error}};
      if (!result.detail.empty()) params["error_detail"] = result.detail;
      return params;
    }
    return nlohmann::json{{"addresses", IPAddressesToJson(result.addresses)},
                          {"ttl_ms", ToMilliseconds(result.ttl)}};
  });
  manager_->OnJobComplete(this, result);  // Destroys `this`.
}

void HostResolverManager::Job::Reject(int error) {
  for (RequestImpl* request : requests_) request->set_job(nullptr);
  requests_.clear();
  End(error);
}

void HostResolverManager::Job::CompleteRequests(int error, const std::vector<IPAddress>& addresses,
                                                const std::string& detail) {
  assert(state_ == State::kDone);
  End(error);
  WeakPtr<HostResolverManager> manager = manager_->weak_factory_.GetWeakPtr();
  while (!requests_.empty()) {
    RequestImpl* request = requests_.front();
    requests_.pop_front();
    request->OnJobComplete(error, addresses, detail);
    if (!manager) return;
  }
}

bool HostResolverManager::Job::UpdatePriority() {
  RequestPriority highest = base_priority_;
  for (const RequestImpl* request : requests_) highest = std::max(highest, request->priority());
  bool changed = highest != priority_;
  priority_ = highest;
  return changed;
}

void HostResolverManager::Job::End(int error) {
  ended_ = true;
  net_log_.EndEventWithNetErrorCode(NetLogEventType::HOST_RESOLVER_MANAGER_JOB, error);
}

}  // namespace netstack
