// HostResolverManager::Job: one DNS lookup for a HostCache::Key, shared by every request for
// that key (identical in-flight lookups are merged). Its priority is the highest of its
// requests'; the manager's dispatcher queues it by that priority and runs it on the
// DnsTransport when a slot is free, for at most Config::job_timeout. A refresh job (started for
// a served stale answer) may have no request at all and still runs, to update the cache; any
// other job is dropped when its last request leaves. Internal to host_resolver_manager*.cc.
#ifndef NET_DNS_HOST_RESOLVER_MANAGER_JOB_H_
#define NET_DNS_HOST_RESOLVER_MANAGER_JOB_H_

#include <list>
#include <memory>
#include <string>
#include <vector>

#include "net/base/scheduler.h"
#include "net/dns/host_resolver_manager.h"

namespace netstack {

class HostResolverManager::Job {
 public:
  // kNew: created, not yet dispatched. kQueued: waiting for a slot. kRunning: on the transport.
  // kDone: finished or evicted; its requests are being completed and the manager no longer
  // tracks it.
  enum class State { kNew, kQueued, kRunning, kDone };

  // `base_priority` counts only for a refresh job (the priority of the stale request that
  // started it); `creator` is the NetLog source of the request that caused the job.
  Job(HostResolverManager* manager, HostCache::Key key, bool is_refresh,
      RequestPriority base_priority, const NetLogSource& creator);
  // Cancels the transaction; remaining requests are detached and never called back. The
  // NetLog events still open (DNS_TASK, JOB) end as cancelled.
  ~Job();

  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  const HostCache::Key& key() const { return key_; }
  State state() const { return state_; }
  void set_state(State state) { state_ = state; }
  bool is_refresh() const { return is_refresh_; }
  bool has_requests() const { return !requests_.empty(); }
  RequestPriority priority() const { return priority_; }
  int generation_at_start() const { return generation_at_start_; }
  const NetLogWithSource& net_log() const { return net_log_; }

  // The job's slot in the dispatcher queue (meaningful while kQueued).
  QueueEntry queue_entry() const { return {queued_priority_, sequence_, const_cast<Job*>(this)}; }
  void set_queue_position(RequestPriority priority, uint64_t sequence) {
    queued_priority_ = priority;
    sequence_ = sequence;
  }

  // Attaches `request` (NetLog JOB_ATTACH on both sources); may raise the job's priority.
  void AddRequest(RequestImpl* request);
  // `request` is being destroyed. Tells the manager, which may destroy this job.
  void RemoveRequest(RequestImpl* request);
  // A request's priority changed: recompute ours and tell the manager if it changed.
  void OnRequestPriorityChanged();

  // A dispatcher slot is ours: asks `transport` and arms the job deadline. The answer, or
  // ERR_DNS_TIMED_OUT when the deadline passes first (the transaction is then cancelled), goes
  // to the manager's OnJobComplete(), which destroys the job.
  void Start(DnsTransport* transport, int network_generation);

  // Ends the job without running any callback (the queue bound rejected it at creation).
  void Reject(int error);

  // Completes every attached request with the result and `detail` (their error_detail()), one
  // at a time: a callback may destroy other requests (they leave the list) or the manager (the
  // rest are then never called).
  void CompleteRequests(int error, const std::vector<IPAddress>& addresses,
                        const std::string& detail);

 private:
  // Recomputes the priority from the requests (and the refresh base). Returns whether it
  // changed.
  bool UpdatePriority();
  void OnTransportComplete(const DnsTransportResult& result);
  void OnDeadline();
  void End(int error);

  HostResolverManager* const manager_;
  const HostCache::Key key_;
  const bool is_refresh_;
  const RequestPriority base_priority_;
  RequestPriority priority_;
  RequestPriority queued_priority_ = MINIMUM_PRIORITY;
  uint64_t sequence_ = 0;
  State state_ = State::kNew;
  int generation_at_start_ = 0;
  std::list<RequestImpl*> requests_;
  std::unique_ptr<DnsTransaction> transaction_;
  OneShotTimer deadline_timer_;  // Config::job_timeout, while running.
  NetLogWithSource net_log_;
  bool dns_task_open_ = false;  // DNS_TASK began and has not ended.
  bool ended_ = false;
};

}  // namespace netstack

#endif  // NET_DNS_HOST_RESOLVER_MANAGER_JOB_H_
