#include "net/dns/host_resolver_manager.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <string_view>

#include "net/dns/host_resolver_manager_job.h"
#include "net/dns/host_resolver_manager_request_impl.h"

namespace netstack {

namespace {

// RFC 1035 limits: 63 bytes per label, 253 for the name (254 with the root's trailing dot).
constexpr size_t kMaxLabelLength = 63;
constexpr size_t kMaxHostnameLength = 254;

// Lower-cases `host` into `*out` and checks it is a plausible DNS name (letters, digits, '-',
// '_' in non-empty labels within the length limits; a trailing dot is allowed). Anything else
// cannot be resolved by DNS, so it fails synchronously without a query.
bool CanonicalizeHostname(std::string_view host, std::string* out) {
  if (host.empty() || host.size() > kMaxHostnameLength) return false;
  // One copy, then checked and lower-cased in place (a push_back per character cost more than
  // the check).
  out->assign(host);
  size_t label_length = 0;
  for (char& c : *out) {
    if (c == '.') {
      if (label_length == 0) return false;  // Empty label (leading dot or "..").
      label_length = 0;
      continue;
    }
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
      return false;
    }
    if (++label_length > kMaxLabelLength) return false;
  }
  return true;
}

// RFC 6761 section 6.3: "localhost" and names under it are loopback, never sent to DNS.
bool IsLocalhostName(std::string_view name) {
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  constexpr std::string_view kLocalhost = "localhost";
  constexpr std::string_view kDotLocalhost = ".localhost";
  return name == kLocalhost || (name.size() > kDotLocalhost.size() &&
                                name.substr(name.size() - kDotLocalhost.size()) == kDotLocalhost);
}

// At least one job must be able to run, or every lookup would wait forever.
HostResolverManager::Config Sanitize(HostResolverManager::Config config) {
  config.max_concurrent_jobs = std::max<size_t>(config.max_concurrent_jobs, 1);
  // Every job has a deadline: a slot must always come back.
  if (config.job_timeout <= TimeDelta::zero()) config.job_timeout = Seconds(30);
  return config;
}

}  // namespace

HostResolverManager::HostResolverManager(Scheduler& scheduler,
                                         std::unique_ptr<DnsTransport> transport, NetLog* net_log,
                                         const Config& config)
    : scheduler_(scheduler),
      net_log_(net_log),
      config_(Sanitize(config)),
      cache_(config.cache_size),
      transport_(std::move(transport)),
      evicted_timer_(scheduler) {
  assert(transport_);
}

HostResolverManager::HostResolverManager(Scheduler& scheduler,
                                         std::unique_ptr<DnsTransport> transport, NetLog* net_log)
    : HostResolverManager(scheduler, std::move(transport), net_log, Config()) {}

HostResolverManager::~HostResolverManager() {
  // Jobs first (they cancel their transactions and detach their requests), then the transport.
  weak_factory_.InvalidateWeakPtrs();
  evicted_timer_.Stop();
  queue_.clear();
  orphaned_jobs_.clear();
  jobs_.clear();
  evicted_jobs_.clear();
  transport_.reset();
}

std::unique_ptr<HostResolver::Request> HostResolverManager::CreateRequest(
    const std::string& host, uint16_t port, RequestPriority priority,
    const NetLogWithSource& net_log) {
  return std::make_unique<RequestImpl>(weak_factory_.GetWeakPtr(), host, port, priority, net_log);
}

void HostResolverManager::AddOverride(const std::string& host, uint16_t port,
                                      std::vector<IPAddress> addresses) {
  std::string name;
  if (!CanonicalizeHostname(host, &name)) name = host;
  if (addresses.empty()) {
    overrides_.erase({name, port});
  } else {
    overrides_[{name, port}] = std::move(addresses);
  }
}

void HostResolverManager::ClearOverrides() { overrides_.clear(); }

void HostResolverManager::ClearCache() { cache_.Clear(); }

void HostResolverManager::OnNetworkChange() { cache_.OnNetworkChange(); }

int HostResolverManager::StartRequest(RequestImpl* request) {
  request->net_log().BeginEvent(
      NetLogEventType::HOST_RESOLVER_MANAGER_REQUEST, [&](NetLogParams& p) {
        p.Add("address_family", static_cast<int>(config_.family))
            .Add("host", request->host())
            .Add("priority", RequestPriorityToString(request->priority()));
      });
  HostCache::Key key;
  int rv = ResolveLocally(request, &key);
  if (rv != ERR_IO_PENDING) return rv;

  auto it = jobs_.find(key);
  if (it != jobs_.end()) {
    // An identical lookup is in flight: share it (an orphaned one is wanted again).
    std::erase(orphaned_jobs_, it->second.get());
    it->second->AddRequest(request);
    return ERR_IO_PENDING;
  }
  if (!CreateAndEnqueueJob(key, request, request->priority(), request->net_log().source())) {
    request->SetResult(ERR_HOST_RESOLVER_QUEUE_TOO_LARGE, {}, false, false, "queue",
                       key.hostname + ": " + QueueFullDetail());
    return ERR_HOST_RESOLVER_QUEUE_TOO_LARGE;
  }
  return ERR_IO_PENDING;
}

int HostResolverManager::ResolveLocally(RequestImpl* request, HostCache::Key* key) {
  std::string_view host = request->host();
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  // An IPv4 literal is digits and dots, an IPv6 one has a ':'; any other name skips the two
  // inet_pton() calls of IPAddress::Parse() (most names: every request used to pay them).
  const bool maybe_literal = host.find(':') != std::string_view::npos ||
                             host.find_first_not_of("0123456789.") == std::string_view::npos;
  if (auto literal = maybe_literal ? IPAddress::Parse(host) : std::nullopt) {
    request->net_log().AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_IP_LITERAL);
    request->SetResult(OK, {*literal}, false, false, "ip_literal");
    return OK;
  }
  std::string name;
  if (!CanonicalizeHostname(host, &name)) {
    request->SetResult(ERR_NAME_NOT_RESOLVED, {}, false, false, "invalid_name",
                       std::string(host) + ": not a valid DNS name");
    return ERR_NAME_NOT_RESOLVED;
  }

  // --resolve overrides: the exact port first, then "any port".
  for (uint16_t port : {request->port(), uint16_t{0}}) {
    if (overrides_.empty()) break;  // The usual case: no pair (and no name copy) to build.
    auto it = overrides_.find({name, port});
    if (it == overrides_.end()) continue;
    request->SetResult(OK, it->second, false, false, "override");
    return OK;
  }

  if (IsLocalhostName(name)) {
    std::vector<IPAddress> loopback;
    if (config_.family != AddressFamily::kIPv4) loopback.push_back(*IPAddress::Parse("::1"));
    if (config_.family != AddressFamily::kIPv6) loopback.push_back(IPAddress::IPv4(127, 0, 0, 1));
    request->SetResult(OK, loopback, false, false, "localhost");
    return OK;
  }

  *key = HostCache::Key(std::move(name), config_.family);
  const TimeTicks now = scheduler_.Now();
  if (const HostCache::Entry* entry = cache_.Lookup(*key, now)) {
    request->net_log().AddEvent(
        NetLogEventType::HOST_RESOLVER_MANAGER_CACHE_HIT, [&](NetLogParams& p) {
          p.BeginArray("addresses");
          for (const IPAddress& address : entry->addresses()) p.AddElement(address.ToString());
          p.EndArray().Add("net_error", entry->error()).Add("ttl_ms", ToMilliseconds(entry->ttl()));
        });
    request->SetResult(entry->error(), entry->addresses(), true, false, "cache",
                       entry->error() == OK
                           ? std::string()
                           : key->hostname + ": negative answer from the host cache");
    return entry->error();
  }

  if (config_.allow_stale) {
    const HostCache::Entry* entry = cache_.Peek(*key);
    if (entry && entry->error() == OK) {
      HostCache::EntryStaleness staleness = cache_.StalenessOf(*entry, now);
      bool usable = staleness.expired_by <= config_.max_stale_age &&
                    (staleness.network_changes == 0 || config_.allow_stale_from_other_network);
      if (usable) {
        cache_.LookupStale(*key, now, &staleness);  // Counts the stale hit.
        request->net_log().AddEvent(NetLogEventType::HOST_RESOLVER_MANAGER_STALE_HIT, [&] {
          return nlohmann::json{{"addresses", IPAddressesToJson(entry->addresses())},
                                {"expired_by_ms", ToMilliseconds(staleness.expired_by)},
                                {"network_changes", staleness.network_changes},
                                {"stale_hits", staleness.stale_hits}};
        });
        request->SetResult(OK, entry->addresses(), true, true, "stale");
        // Refresh in the background unless a lookup for the key is already in flight. The
        // refresh job has no request; it runs at the stale request's priority.
        if (!jobs_.count(*key)) {
          Job* job =
              CreateAndEnqueueJob(*key, nullptr, request->priority(), request->net_log().source());
          if (job) {
            request->net_log().AddEventReferencingSource(
                NetLogEventType::HOST_RESOLVER_MANAGER_ASYNC_REFRESH, job->net_log().source());
          }
        }
        return OK;
      }
    }
  }
  return ERR_IO_PENDING;
}

HostResolverManager::Job* HostResolverManager::CreateAndEnqueueJob(const HostCache::Key& key,
                                                                   RequestImpl* first_request,
                                                                   RequestPriority priority,
                                                                   const NetLogSource& creator) {
  assert(!jobs_.count(key));
  auto owned =
      std::make_unique<Job>(this, key, /*is_refresh=*/first_request == nullptr, priority, creator);
  Job* job = owned.get();
  jobs_.emplace(key, std::move(owned));
  if (first_request) job->AddRequest(first_request);
  if (Enqueue(job)) return job;
  job->Reject(ERR_HOST_RESOLVER_QUEUE_TOO_LARGE);
  jobs_.erase(key);
  return nullptr;
}

bool HostResolverManager::Enqueue(Job* job) {
  if (running_jobs_ >= config_.max_concurrent_jobs && !orphaned_jobs_.empty()) {
    CancelOrphanedJob(orphaned_jobs_.front());  // The oldest orphan gives its slot up.
  }
  if (running_jobs_ < config_.max_concurrent_jobs) {
    StartJob(job);
    return true;
  }
  job->set_queue_position(job->priority(), next_sequence_++);
  job->set_state(Job::State::kQueued);
  queue_.insert(job->queue_entry());
  if (queue_.size() <= config_.max_queued_jobs) return true;

  // Over the bound: evict the oldest job of the lowest priority, which may be this new one
  // (Chrome's PrioritizedDispatcher::EvictOldestLowest).
  RequestPriority lowest = std::prev(queue_.end())->priority;
  auto victim_it = queue_.lower_bound(QueueEntry{lowest, 0, nullptr});
  Job* victim = victim_it->job;
  queue_.erase(victim_it);
  if (victim == job) {
    job->set_state(Job::State::kNew);
    return false;
  }
  EvictJob(victim);
  return true;
}

void HostResolverManager::StartJob(Job* job) {
  ++running_jobs_;
  job->Start(transport_.get(), cache_.network_generation());
}

void HostResolverManager::StartNextJobs() {
  while (running_jobs_ < config_.max_concurrent_jobs && !queue_.empty()) {
    Job* job = queue_.begin()->job;
    queue_.erase(queue_.begin());
    StartJob(job);
  }
}

void HostResolverManager::RemoveFromQueue(Job* job) {
  assert(job->state() == Job::State::kQueued);
  queue_.erase(job->queue_entry());
}

void HostResolverManager::EvictJob(Job* job) {
  job->set_state(Job::State::kDone);
  auto it = jobs_.find(job->key());
  evicted_jobs_.push_back(std::move(it->second));
  jobs_.erase(it);
  // Fail the requests from a task, not inside the Start() of the request that caused the
  // eviction: their callbacks may do anything, including destroying that request.
  if (!evicted_timer_.IsRunning()) {
    evicted_timer_.Start(TimeDelta::zero(), [this] { CompleteEvictedJobs(); });
  }
}

void HostResolverManager::CompleteEvictedJobs() {
  std::vector<std::unique_ptr<Job>> jobs = std::move(evicted_jobs_);
  evicted_jobs_.clear();
  WeakPtr<HostResolverManager> self = weak_factory_.GetWeakPtr();
  for (auto& job : jobs) {
    job->CompleteRequests(ERR_HOST_RESOLVER_QUEUE_TOO_LARGE, {},
                          job->key().hostname + ": " + QueueFullDetail());
    if (!self) return;  // A callback destroyed the manager; `jobs` detaches the rest.
  }
}

void HostResolverManager::OnJobRequestRemoved(Job* job) {
  if (job->has_requests() || job->is_refresh()) {
    OnJobPriorityChanged(job);  // Only matters while queued.
    return;
  }
  // Nobody waits for it any more.
  if (job->state() == Job::State::kQueued) {
    RemoveFromQueue(job);     // As Chrome does.
    jobs_.erase(job->key());  // Destroys the job.
  } else if (job->state() == Job::State::kRunning) {
    // Chrome lets the job run on to fill the cache. So do we, but only while its slot is not
    // wanted: a job is waiting now, or arrives later, and the orphan is cancelled for it (a
    // lookup of a dead name would otherwise hold the slot until the job deadline).
    orphaned_jobs_.push_back(job);
    if (!queue_.empty()) {
      CancelOrphanedJob(job);
      StartNextJobs();
    }
  }
}

void HostResolverManager::CancelOrphanedJob(Job* job) {
  std::erase(orphaned_jobs_, job);
  --running_jobs_;
  jobs_.erase(job->key());  // Destroys the job, which cancels its transaction.
}

void HostResolverManager::OnJobPriorityChanged(Job* job) {
  if (job->state() != Job::State::kQueued || job->priority() == job->queue_entry().priority) {
    return;
  }
  // Re-queue at the new priority, behind the jobs already waiting at that priority.
  RemoveFromQueue(job);
  job->set_queue_position(job->priority(), next_sequence_++);
  queue_.insert(job->queue_entry());
}

void HostResolverManager::OnJobComplete(Job* job, const DnsTransportResult& result) {
  int error = result.error;
  std::vector<IPAddress> addresses = result.addresses;
  if (error == OK && addresses.empty()) error = ERR_NAME_NOT_RESOLVED;
  if (error != OK) addresses.clear();
  // IPv6 first, then IPv4, each in answer order: the connect job races them (Happy Eyeballs).
  std::stable_partition(addresses.begin(), addresses.end(),
                        [](const IPAddress& address) { return address.IsIPv6(); });

  const TimeTicks now = scheduler_.Now();
  if (error == OK) {
    cache_.Set(job->key(), HostCache::Entry::ForAddresses(addresses, result.ttl), now,
               job->generation_at_start());
  } else if (error == ERR_NAME_NOT_RESOLVED && config_.negative_cache_ttl > TimeDelta::zero()) {
    cache_.Set(job->key(), HostCache::Entry::ForError(error, config_.negative_cache_ttl), now,
               job->generation_at_start());
  }

  // Out of the map first, so a callback asking for the same key finds the cache, not this job.
  auto it = jobs_.find(job->key());
  assert(it != jobs_.end() && it->second.get() == job);
  std::unique_ptr<Job> owned = std::move(it->second);
  jobs_.erase(it);
  owned->set_state(Job::State::kDone);
  std::erase(orphaned_jobs_, job);
  --running_jobs_;
  StartNextJobs();
  // The detail names the host: a request may be one of many in a page's log.
  std::string detail;
  if (error != OK)
    detail = result.detail.empty() ? owned->key().hostname
                                   : owned->key().hostname + ": " + result.detail;
  owned->CompleteRequests(error, addresses, detail);
  // The manager may be gone now; only locals are touched from here.
}

std::string HostResolverManager::QueueFullDetail() const {
  return "the resolver queue is full (" + std::to_string(config_.max_queued_jobs) +
         " lookups waiting)";
}

nlohmann::json HostResolverManager::GetPolledData() const {
  return {
      {"cache", cache_.ToJson(scheduler_.Now())},
      {"dns_config", transport_->GetInfoAsJson()},
      {"jobs",
       {{"running", running_jobs_},
        {"queued", queue_.size()},
        {"max_concurrent", config_.max_concurrent_jobs},
        {"max_queued", config_.max_queued_jobs}}},
      {"config",
       {{"allow_stale", config_.allow_stale},
        {"max_stale_age_ms", ToMilliseconds(config_.max_stale_age)},
        {"allow_stale_from_other_network", config_.allow_stale_from_other_network},
        {"negative_cache_ttl_ms", ToMilliseconds(config_.negative_cache_ttl)},
        {"job_timeout_ms", ToMilliseconds(config_.job_timeout)},
        {"address_family", static_cast<int>(config_.family)},
        {"overrides", overrides_.size()}}},
  };
}

}  // namespace netstack
