#include "net/dns/host_resolver_manager_request_impl.h"

#include <cassert>
#include <utility>

#include "net/dns/host_resolver_manager_job.h"

namespace netstack {

HostResolverManager::RequestImpl::RequestImpl(WeakPtr<HostResolverManager> manager,
                                              std::string host, uint16_t port,
                                              RequestPriority priority,
                                              const NetLogWithSource& net_log)
    : manager_(std::move(manager)),
      host_(std::move(host)),
      port_(port),
      priority_(priority),
      net_log_(net_log) {}

HostResolverManager::RequestImpl::~RequestImpl() {
  if (job_) {
    Job* job = job_;
    job_ = nullptr;
    job->RemoveRequest(this);  // May destroy the job.
  }
  if (started_ && !complete_) {
    net_log_.AddEvent(NetLogEventType::CANCELLED);
    net_log_.EndEvent(NetLogEventType::HOST_RESOLVER_MANAGER_REQUEST);
  }
}

int HostResolverManager::RequestImpl::Start(CompletionCallback callback) {
  assert(!started_ && "Start() called twice");
  if (started_) return ERR_INVALID_ARGUMENT;
  if (!manager_) {
    error_detail_ = host_ + ": the resolver was shut down";
    return ERR_ABORTED;  // The manager is gone.
  }
  started_ = true;
  callback_ = std::move(callback);
  int rv = manager_->StartRequest(this);
  if (rv != ERR_IO_PENDING) callback_ = nullptr;
  return rv;
}

void HostResolverManager::RequestImpl::ChangePriority(RequestPriority priority) {
  priority_ = priority;
  if (job_) job_->OnRequestPriorityChanged();
}

void HostResolverManager::RequestImpl::SetResult(int error, const std::vector<IPAddress>& addresses,
                                                 bool from_cache, bool served_stale,
                                                 const char* source, const std::string& detail) {
  complete_ = true;
  error_detail_ = error == OK ? std::string() : detail;
  from_cache_ = from_cache;
  served_stale_ = served_stale;
  addresses_.clear();
  if (error == OK) {
    for (const IPAddress& address : addresses) addresses_.emplace_back(address, port_);
  }
  net_log_.EndEvent(NetLogEventType::HOST_RESOLVER_MANAGER_REQUEST, [&](NetLogParams& p) {
    if (error == OK) {
      p.BeginArray("addresses");
      for (const IPAddress& address : addresses) p.AddElement(address.ToString());
      p.EndArray();
    } else {
      if (!error_detail_.empty()) p.Add("error_detail", error_detail_);
      p.Add("net_error", error);
    }
    p.Add("source", source);
  });
}

void HostResolverManager::RequestImpl::OnJobComplete(int error,
                                                     const std::vector<IPAddress>& addresses,
                                                     const std::string& detail) {
  job_ = nullptr;
  SetResult(error, addresses, /*from_cache=*/false, /*served_stale=*/false, "job", detail);
  CompletionCallback callback = std::move(callback_);
  callback_ = nullptr;
  if (callback) callback(error);  // May destroy `this`.
}

void HostResolverManager::RequestImpl::OnJobCancelled() {
  job_ = nullptr;
  callback_ = nullptr;
}

}  // namespace netstack
