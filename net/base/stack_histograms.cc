#include "net/base/stack_histograms.h"

#include <algorithm>
#include <array>
#include <deque>
#include <list>
#include <unordered_map>
#include <utility>

#include "net/base/histogram.h"

namespace netstack {
namespace {

// Jobs whose END was seen most recently: a pre-resolve's END follows its job's END at once, but
// the callbacks of one job's requests may end other jobs in between, so a few are remembered.
constexpr size_t kRecentEndedJobs = 16;

bool HasNetError(const nlohmann::json& params) {
  if (!params.is_object()) return false;
  auto it = params.find("net_error");
  return it != params.end() && it->is_number_integer() && it->get<int>() != 0;
}

// The id of params["source_dependency"], 0 when absent.
uint32_t DependencyId(const nlohmann::json& params) {
  if (!params.is_object()) return 0;
  auto dep = params.find("source_dependency");
  if (dep == params.end() || !dep->is_object()) return 0;
  auto id = dep->find("id");
  return id != dep->end() && id->is_number_unsigned() ? id->get<uint32_t>() : 0;
}

double Ms(TimeTicks begin, TimeTicks end) { return ToMilliseconds(end - begin); }

// BEGINs waiting for their END, one per source id, oldest forgotten first at the bound.
class OpenTable {
 public:
  struct Open {
    TimeTicks begin;
    bool cancelled = false;
  };

  OpenTable(size_t max, uint64_t* forgotten) : max_(max), forgotten_(forgotten) {}

  // A BEGIN: replaces an earlier open one of the same source (its END was lost).
  void Begin(uint32_t id, TimeTicks time) {
    Erase(id);
    if (order_.size() >= max_) {
      index_.erase(order_.front().first);
      order_.pop_front();
      ++*forgotten_;
    }
    order_.emplace_back(id, Open{time});
    index_[id] = std::prev(order_.end());
  }
  Open* Find(uint32_t id) {
    auto it = index_.find(id);
    return it == index_.end() ? nullptr : &it->second->second;
  }
  // Removes and returns the open BEGIN of `id`; false if there is none.
  bool Take(uint32_t id, Open* out) {
    auto it = index_.find(id);
    if (it == index_.end()) return false;
    *out = it->second->second;
    order_.erase(it->second);
    index_.erase(it);
    return true;
  }
  void Clear() {
    order_.clear();
    index_.clear();
  }
  size_t size() const { return order_.size(); }
  size_t EstimateMemoryUsage() const {
    // A list node (two pointers and the pair) and a hash node (pointer, key, iterator) each.
    return order_.size() * (sizeof(std::pair<uint32_t, Open>) + 2 * sizeof(void*)) +
           index_.size() * (3 * sizeof(void*) + sizeof(uint32_t)) +
           index_.bucket_count() * sizeof(void*);
  }

 private:
  void Erase(uint32_t id) {
    auto it = index_.find(id);
    if (it == index_.end()) return;
    order_.erase(it->second);
    index_.erase(it);
  }

  const size_t max_;
  uint64_t* forgotten_;
  std::list<std::pair<uint32_t, Open>> order_;
  std::unordered_map<uint32_t, std::list<std::pair<uint32_t, Open>>::iterator> index_;
};

struct Counted {
  Histogram histogram;
  uint64_t errors = 0;
};

}  // namespace

class StackHistograms::Impl {
 public:
  explicit Impl(size_t max_open)
      : max_open_(std::max<size_t>(max_open, 1)),
        jobs_(max_open_, &forgotten_),
        connects_(max_open_, &forgotten_) {}

  void OnAddEntry(const NetLogEntry& e);
  void ForgetOpen() {
    jobs_.Clear();
    connects_.Clear();
    preresolves_.clear();
    ended_jobs_.clear();
    detached_job_ = 0;
  }

  // A pre-resolve on a PREDICTOR source: several may be open on the one source at once.
  struct Preresolve {
    uint32_t source_id;
    TimeTicks begin;
    uint32_t job_id = 0;  // the job it attached to; 0 until then (or answered locally)
  };

  void OnPreresolveEnd(const NetLogEntry& e);
  // A request's URL_REQUEST_PHASES: its connect wait and ttfb.
  void OnRequestPhases(const nlohmann::json& params);
  // The newest open pre-resolve of `source_id` not bound to a job, else the newest of it.
  std::list<Preresolve>::iterator NewestOf(uint32_t source_id, bool unbound_only);

  const size_t max_open_;
  NetLog* net_log_ = nullptr;  // observed; detached by ~StackHistograms
  uint64_t forgotten_ = 0;
  Counted dns_resolve{{"dns.resolve", "A DNS lookup that went out (resolver job begin to end)"}};
  Counted dns_preresolve{{"dns.preresolve", "A predictor pre-resolve that waited for a lookup"}};
  Counted connect_job{
      {"connect_job", "A connect job: resolve, TCP and TLS (successful ones), whoever waited"}};
  Counted connect_wait{{"connect_wait",
                        "A request's wait for a new connection: DNS, connect and TLS from its "
                        "start (new or late-preconnected sockets)"}};
  Counted ttfb{{"ttfb", "Request sent to its first response byte (responses from the network)"}};
  // Every histogram, in ToJson's order.
  std::array<Counted*, 5> all() {
    return {&dns_resolve, &dns_preresolve, &connect_job, &connect_wait, &ttfb};
  }
  std::array<const Counted*, 5> all() const {
    return {&dns_resolve, &dns_preresolve, &connect_job, &connect_wait, &ttfb};
  }
  OpenTable jobs_;
  OpenTable connects_;
  std::list<Preresolve> preresolves_;
  std::deque<uint32_t> ended_jobs_;
  uint32_t detached_job_ = 0;  // the job a request last left (its CANCELLED names the request)
};

std::list<StackHistograms::Impl::Preresolve>::iterator StackHistograms::Impl::NewestOf(
    uint32_t source_id, bool unbound_only) {
  for (auto it = preresolves_.rbegin(); it != preresolves_.rend(); ++it) {
    if (it->source_id == source_id && (!unbound_only || it->job_id == 0))
      return std::prev(it.base());
  }
  return preresolves_.end();
}

void StackHistograms::Impl::OnPreresolveEnd(const NetLogEntry& e) {
  const nlohmann::json& params = e.params;
  const bool has_source = params.is_object() && params.contains("source");
  auto it = preresolves_.end();
  if (has_source && params["source"] == "job") {
    // The request that ended is one bound to a job that has just ended, newest ended first.
    for (auto job = ended_jobs_.rbegin(); job != ended_jobs_.rend() && it == preresolves_.end();
         ++job) {
      it = std::find_if(preresolves_.begin(), preresolves_.end(), [&](const Preresolve& p) {
        return p.source_id == e.source.id && p.job_id == *job;
      });
    }
    if (it == preresolves_.end()) {  // unknown job: the oldest bound one is the best guess
      it = std::find_if(preresolves_.begin(), preresolves_.end(), [&](const Preresolve& p) {
        return p.source_id == e.source.id && p.job_id != 0;
      });
    }
    if (it == preresolves_.end()) return;  // an END without its BEGIN
    if (HasNetError(params)) {
      ++dns_preresolve.errors;
    } else {
      dns_preresolve.histogram.Add(Ms(it->begin, e.time));
    }
    preresolves_.erase(it);
    return;
  }
  if (!has_source && detached_job_) {
    // Cancelled: its job logged the request leaving just before.
    it = std::find_if(preresolves_.begin(), preresolves_.end(), [&](const Preresolve& p) {
      return p.source_id == e.source.id && p.job_id == detached_job_;
    });
  }
  // Answered locally (at once, so the newest unbound one) or cancelled: not counted.
  if (it == preresolves_.end()) it = NewestOf(e.source.id, /*unbound_only=*/true);
  if (it == preresolves_.end()) it = NewestOf(e.source.id, /*unbound_only=*/false);
  if (it != preresolves_.end()) preresolves_.erase(it);
}

void StackHistograms::Impl::OnRequestPhases(const nlohmann::json& params) {
  if (!params.is_object()) return;
  auto source = params.find("socket_source");
  const bool has_socket = source != params.end() && source->is_string();
  auto first_byte = params.find("ttfb_ms");
  const bool has_ttfb = first_byte != params.end() && first_byte->is_number();
  // A failure counts against the first phase it did not get through: the connection (no
  // socket) or the first byte (a socket, no response). A body error after the headers is no
  // error of either phase, and both its times count.
  if (HasNetError(params) && !(has_socket && has_ttfb)) {
    ++(has_socket ? ttfb : connect_wait).errors;
    if (!has_socket) return;
  }
  auto wait = params.find("connect_wait_ms");
  if (has_socket && wait != params.end() && wait->is_number() &&
      (*source == "new" || *source == "preconnected-late")) {
    connect_wait.histogram.Add(wait->get<double>());
  }
  if (has_ttfb) ttfb.histogram.Add(first_byte->get<double>());
}

void StackHistograms::Impl::OnAddEntry(const NetLogEntry& e) {
  const uint32_t id = e.source.id;
  switch (e.type) {
    case NetLogEventType::HOST_RESOLVER_MANAGER_JOB:
      if (e.phase == NetLogEventPhase::BEGIN) {
        jobs_.Begin(id, e.time);
      } else if (e.phase == NetLogEventPhase::END) {
        ended_jobs_.push_back(id);
        if (ended_jobs_.size() > kRecentEndedJobs) ended_jobs_.pop_front();
        OpenTable::Open open;
        if (!jobs_.Take(id, &open) || open.cancelled) return;
        if (HasNetError(e.params)) {
          ++dns_resolve.errors;
        } else {
          dns_resolve.histogram.Add(Ms(open.begin, e.time));
        }
      }
      return;
    case NetLogEventType::CANCELLED:
      if (e.source.type == NetLogSourceType::HOST_RESOLVER_MANAGER_JOB) {
        if (DependencyId(e.params) != 0) {
          detached_job_ = id;  // a request left the job; the job goes on
        } else if (OpenTable::Open* open = jobs_.Find(id)) {
          open->cancelled = true;
        }
      } else if (e.source.type == NetLogSourceType::CONNECT_JOB) {
        if (OpenTable::Open* open = connects_.Find(id)) open->cancelled = true;
      }
      return;
    case NetLogEventType::HOST_RESOLVER_MANAGER_REQUEST:
      if (e.source.type != NetLogSourceType::PREDICTOR) return;
      if (e.phase == NetLogEventPhase::BEGIN) {
        if (preresolves_.size() >= max_open_) {
          preresolves_.pop_front();
          ++forgotten_;
        }
        preresolves_.push_back(Preresolve{id, e.time});
      } else if (e.phase == NetLogEventPhase::END) {
        OnPreresolveEnd(e);
      }
      return;
    case NetLogEventType::HOST_RESOLVER_MANAGER_JOB_ATTACH:
      if (e.source.type == NetLogSourceType::PREDICTOR) {
        auto it = NewestOf(id, /*unbound_only=*/true);
        if (it != preresolves_.end()) it->job_id = DependencyId(e.params);
      }
      return;
    case NetLogEventType::CONNECT_JOB:
      if (e.phase == NetLogEventPhase::BEGIN) {
        connects_.Begin(id, e.time);
      } else if (e.phase == NetLogEventPhase::END) {
        OpenTable::Open open;
        if (!connects_.Take(id, &open) || open.cancelled) return;
        if (HasNetError(e.params)) {
          ++connect_job.errors;
        } else {
          connect_job.histogram.Add(Ms(open.begin, e.time));
        }
      }
      return;
    case NetLogEventType::URL_REQUEST_PHASES:
      OnRequestPhases(e.params);
      return;
    default:
      return;
  }
}

StackHistograms::StackHistograms(size_t max_open) : impl_(std::make_unique<Impl>(max_open)) {}

StackHistograms::~StackHistograms() { Attach(nullptr); }

void StackHistograms::Attach(NetLog* net_log) {
  if (net_log == impl_->net_log_) return;
  if (impl_->net_log_) impl_->net_log_->RemoveObserver(this);
  impl_->net_log_ = net_log;
  impl_->ForgetOpen();  // source ids restart in another NetLog
  if (net_log) net_log->AddObserver(this);
}

int StackHistograms::ParamsNeed(NetLogEventType type) const {
  switch (type) {
    case NetLogEventType::HOST_RESOLVER_MANAGER_JOB:
    case NetLogEventType::CANCELLED:
    case NetLogEventType::HOST_RESOLVER_MANAGER_REQUEST:
    case NetLogEventType::HOST_RESOLVER_MANAGER_JOB_ATTACH:
    case NetLogEventType::CONNECT_JOB:
    case NetLogEventType::URL_REQUEST_PHASES:
      return kNetLogParamsJson;
    default:
      return kNetLogParamsNone;
  }
}

void StackHistograms::OnAddEntry(const NetLogEntry& entry) { impl_->OnAddEntry(entry); }

nlohmann::json StackHistograms::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const Counted* c : std::as_const(*impl_).all()) {
    nlohmann::json j = c->histogram.ToJson();
    j["errors"] = c->errors;
    list.push_back(std::move(j));
  }
  return {{"histograms", std::move(list)}, {"forgotten_open", impl_->forgotten_}};
}

void StackHistograms::Reset() {
  for (Counted* c : impl_->all()) {
    c->histogram.Reset();
    c->errors = 0;
  }
  impl_->forgotten_ = 0;
}

size_t StackHistograms::EstimateMemoryUsage() const {
  size_t total = sizeof(*this) + sizeof(Impl);
  for (const Counted* c : std::as_const(*impl_).all())
    total += c->histogram.EstimateMemoryUsage() - sizeof(Histogram);
  total += impl_->jobs_.EstimateMemoryUsage() + impl_->connects_.EstimateMemoryUsage();
  total += impl_->preresolves_.size() * (sizeof(Impl::Preresolve) + 2 * sizeof(void*));
  return total;
}

size_t StackHistograms::open_count() const {
  return impl_->jobs_.size() + impl_->connects_.size() + impl_->preresolves_.size();
}

}  // namespace netstack
