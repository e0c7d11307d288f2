// HostResolverManager: the HostResolver of both worlds, modelled on Chrome's class of the same
// name. It answers what it can without the network (IP literals, "localhost", --resolve
// overrides, the HostCache), merges identical in-flight lookups into one Job, and runs Jobs on a
// DnsTransport through a priority dispatcher with a concurrency limit and a bounded queue. See
// net/dns/README.md for the life of a lookup.
#ifndef NET_DNS_HOST_RESOLVER_MANAGER_H_
#define NET_DNS_HOST_RESOLVER_MANAGER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/weak_ptr.h"
#include "net/dns/dns_transport.h"
#include "net/dns/host_cache.h"
#include "net/dns/host_resolver.h"

namespace netstack {

class HostResolverManager : public HostResolver {
 public:
  struct Config {
    // Jobs (distinct host lookups) on the transport at once (0 counts as 1). Chrome's
    // system-resolver default.
    size_t max_concurrent_jobs = 6;
    // Jobs allowed to wait for a slot. Over it, the oldest job of the lowest priority is
    // evicted and its requests fail with ERR_HOST_RESOLVER_QUEUE_TOO_LARGE (Chrome's rule and
    // default: 100 per concurrent slot).
    size_t max_queued_jobs = 600;
    // Host cache capacity (0 disables the cache).
    size_t cache_size = HostCache::kDefaultMaxEntries;
    // Serve a stale positive cache entry at once (served_stale() true) and refresh it with an
    // asynchronous job that updates the cache. Chrome's StaleHostResolver behaviour; off by
    // default as in Chrome's HostResolverManager.
    bool allow_stale = false;
    // With allow_stale: entries expired longer ago than this are not served.
    TimeDelta max_stale_age = Seconds(24 * 3600);
    // With allow_stale: also serve entries stored before a network change (their addresses may
    // belong to the old network). Off by default, like StaleHostResolver's allow_other_network.
    bool allow_stale_from_other_network = false;
    // How long NXDOMAIN / NODATA (ERR_NAME_NOT_RESOLVED) is remembered. Default 0: failures are
    // not cached, as Chrome's kNegativeCacheEntryTTLSeconds. Server failures, timeouts, refusals
    // and malformed answers are never cached whatever this says: they are not answers.
    TimeDelta negative_cache_ttl = TimeDelta::zero();
    // Which families to ask: kUnspecified = A and AAAA (default), or only one of them.
    AddressFamily family = AddressFamily::kUnspecified;
    // Hard deadline of a running job (refresh jobs included): when the transport has not
    // answered by then, the lookup is cancelled and the job's requests fail with
    // ERR_DNS_TIMED_OUT. It bounds how long a concurrency slot can be held whatever the
    // transport does (c-ares with a long timeout and many tries can retry for hours, and an
    // answer may be lost). Not zero: values <= 0 mean the default. Chrome has no such limit.
    TimeDelta job_timeout = Seconds(30);
  };

  // `scheduler` and `net_log` (may be null) must outlive the manager. The manager owns
  // `transport` and destroys it after its jobs.
  HostResolverManager(Scheduler& scheduler, std::unique_ptr<DnsTransport> transport,
                      NetLog* net_log, const Config& config);
  HostResolverManager(Scheduler& scheduler, std::unique_ptr<DnsTransport> transport,
                      NetLog* net_log);
  // Cancels every job. Outstanding requests never complete (their callbacks never run); they
  // may still be destroyed afterwards, and Start() on one returns ERR_ABORTED.
  ~HostResolverManager() override;

  HostResolverManager(const HostResolverManager&) = delete;
  HostResolverManager& operator=(const HostResolverManager&) = delete;

  // HostResolver:
  std::unique_ptr<Request> CreateRequest(const std::string& host, uint16_t port,
                                         RequestPriority priority,
                                         const NetLogWithSource& net_log) override;

  // curl's --resolve HOST:PORT:ADDR: requests for `host` (case-insensitive) and `port` get
  // `addresses` synchronously, in the given order, without DNS or the cache. Port 0 matches any
  // port (an exact port wins). Replaces an earlier override of the same host and port. An empty
  // address list removes the override.
  void AddOverride(const std::string& host, uint16_t port, std::vector<IPAddress> addresses);
  void ClearOverrides();

  // Removes every host cache entry (running jobs still store their answers when they finish).
  void ClearCache();
  // The network changed: every cache entry becomes stale (kept, not deleted), and answers of
  // jobs already running are stored as stale since they were asked on the old network.
  void OnNetworkChange();

  HostCache& GetCache() { return cache_; }
  const HostCache& GetCache() const { return cache_; }
  const Config& config() const { return config_; }
  DnsTransport* transport() const { return transport_.get(); }

  // The resolver's polled data for the NetLog file and the internals page, in the shape of
  // Chrome's "hostResolverInfo": {"cache": HostCache::ToJson, "dns_config": transport info,
  // "jobs": {"running", "queued", "max_concurrent", "max_queued"}, "config": {...}}.
  nlohmann::json GetPolledData() const;

  size_t num_running_jobs() const { return running_jobs_; }
  size_t num_queued_jobs() const { return queue_.size(); }
  // Running plus queued jobs (evicted jobs whose requests are being failed are not counted).
  size_t num_jobs() const { return jobs_.size(); }

 private:
  class Job;
  class RequestImpl;
  friend class Job;
  friend class RequestImpl;

  // A queue slot: higher priority first, then first come first served.
  struct QueueEntry {
    RequestPriority priority;
    uint64_t sequence;
    Job* job;
    bool operator<(const QueueEntry& other) const {
      if (priority != other.priority) return priority > other.priority;
      return sequence < other.sequence;
    }
  };

  // Request::Start(). Returns OK / an error synchronously, or ERR_IO_PENDING after attaching
  // the request to a job.
  int StartRequest(RequestImpl* request);
  // Answers from literals, localhost, overrides and the cache; ERR_IO_PENDING if a job is
  // needed (`*key` is then set). May start a refresh job for a stale answer.
  int ResolveLocally(RequestImpl* request, HostCache::Key* key);
  // Creates a job for `key` (must not exist) and hands it to the dispatcher. Returns the job,
  // or nullptr if the queue bound rejected it.
  Job* CreateAndEnqueueJob(const HostCache::Key& key, RequestImpl* first_request,
                           RequestPriority priority, const NetLogSource& creator);

  // Dispatcher. Enqueue() starts the job if a slot is free, else queues it; returns false if
  // the queue bound evicted this very job (it is then neither queued nor running).
  bool Enqueue(Job* job);
  void StartJob(Job* job);
  void StartNextJobs();
  void RemoveFromQueue(Job* job);
  // Moves a queued job out of jobs_ and fails its requests from a task.
  void EvictJob(Job* job);
  void CompleteEvictedJobs();
  // The error detail of ERR_HOST_RESOLVER_QUEUE_TOO_LARGE, without the host name.
  std::string QueueFullDetail() const;

  // Called by a job whose request left; may destroy the job. A queued job nobody waits for is
  // dropped; a running one becomes an orphan: it runs on to fill the cache while its slot is
  // not wanted, and is cancelled as soon as another job needs the slot.
  void OnJobRequestRemoved(Job* job);
  // Ends an orphaned running job (its lookup is cancelled) and frees its slot; the caller
  // starts the next job.
  void CancelOrphanedJob(Job* job);
  // Called by a job when its priority changed while queued.
  void OnJobPriorityChanged(Job* job);
  // Called by a running job with the transport's answer (or its deadline's ERR_DNS_TIMED_OUT).
  // Destroys the job.
  void OnJobComplete(Job* job, const DnsTransportResult& result);

  Scheduler& scheduler_;
  NetLog* const net_log_;
  const Config config_;
  HostCache cache_;
  std::unique_ptr<DnsTransport> transport_;
  std::map<std::pair<std::string, uint16_t>, std::vector<IPAddress>> overrides_;

  struct KeyHash {
    size_t operator()(const HostCache::Key& key) const {
      return std::hash<std::string>()(key.hostname) ^ static_cast<size_t>(key.family);
    }
  };
  // Queued and running jobs. Hashed: looked up, added and removed once or more per lookup, and
  // never walked in order.
  std::unordered_map<HostCache::Key, std::unique_ptr<Job>, KeyHash> jobs_;
  std::set<QueueEntry> queue_;
  size_t running_jobs_ = 0;
  // Running non-refresh jobs whose last request left, oldest first (at most
  // max_concurrent_jobs).
  std::vector<Job*> orphaned_jobs_;
  uint64_t next_sequence_ = 1;
  std::vector<std::unique_ptr<Job>> evicted_jobs_;  // Failed from evicted_timer_.
  OneShotTimer evicted_timer_;

  WeakPtrFactory<HostResolverManager> weak_factory_{this};  // Last member.
};

}  // namespace netstack

#endif  // NET_DNS_HOST_RESOLVER_MANAGER_H_
