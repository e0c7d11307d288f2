// HostResolverManager::RequestImpl: the Request a caller holds. It answers synchronously from
// the manager's local sources or waits on a Job; destroying it detaches it from the job.
// Internal to host_resolver_manager*.cc.
#ifndef NET_DNS_HOST_RESOLVER_MANAGER_REQUEST_IMPL_H_
#define NET_DNS_HOST_RESOLVER_MANAGER_REQUEST_IMPL_H_

#include <string>
#include <vector>

#include "net/dns/host_resolver_manager.h"

namespace netstack {

class HostResolverManager::RequestImpl : public HostResolver::Request {
 public:
  RequestImpl(WeakPtr<HostResolverManager> manager, std::string host, uint16_t port,
              RequestPriority priority, const NetLogWithSource& net_log);
  // Detaches from the job (which may then be dropped from the queue) and logs the
  // cancellation if the request had not completed.
  ~RequestImpl() override;

  // HostResolver::Request:
  int Start(CompletionCallback callback) override;
  const AddressList& addresses() const override { return addresses_; }
  bool from_cache() const override { return from_cache_; }
  bool served_stale() const override { return served_stale_; }
  void ChangePriority(RequestPriority priority) override;
  std::string error_detail() const override { return error_detail_; }

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  RequestPriority priority() const { return priority_; }
  const NetLogWithSource& net_log() const { return net_log_; }
  // Set by the job on attach; cleared when the job lets go of the request.
  void set_job(Job* job) { job_ = job; }

  // Records the result (addresses get the request's port) and ends the request's NetLog event.
  // `source` says where the answer came from ("cache", "dns", "override", ...); `detail` is the
  // failure's error_detail() (starting with the host name), empty on success.
  void SetResult(int error, const std::vector<IPAddress>& addresses, bool from_cache,
                 bool served_stale, const char* source, const std::string& detail = {});

  // The job finished (or was evicted): records the result and runs the callback, which may
  // destroy this request.
  void OnJobComplete(int error, const std::vector<IPAddress>& addresses, const std::string& detail);

  // The job is gone without an answer (the manager is being destroyed): never call back.
  void OnJobCancelled();

 private:
  WeakPtr<HostResolverManager> manager_;
  const std::string host_;
  const uint16_t port_;
  RequestPriority priority_;
  const NetLogWithSource net_log_;
  CompletionCallback callback_;
  Job* job_ = nullptr;
  AddressList addresses_;
  std::string error_detail_;
  bool from_cache_ = false;
  bool served_stale_ = false;
  bool started_ = false;
  bool complete_ = false;
};

}  // namespace netstack

#endif  // NET_DNS_HOST_RESOLVER_MANAGER_REQUEST_IMPL_H_
