#include "tools/replay/replay_predictor.h"

#include <string>

#include "net/http/url_request_context.h"
#include "predictor/hint.h"
#include "predictor/predictor.h"

namespace netstack {
namespace {

// Assignments older than this, or past this many per group, are dropped unmatched (they were
// for requests that were not the replay's: fetch-ahead, or requests that failed).
const TimeDelta kMaxAssignmentAge = Seconds(60);
constexpr size_t kMaxAssignmentsPerGroup = 1024;
constexpr uint64_t kSweepEvery = 4096;
// A session's "hint" of a kind the policies do not know: how long it stays queued.
const TimeDelta kUnknownHintLifetime = Seconds(10);

bool ParseUrl(const std::string& text, Url* out) {
  std::string message;
  return Url::Parse(text, out, &message) == OK;
}

}  // namespace

ReplayPredictor::ReplayPredictor(const PredictorConfig& config, Scheduler& scheduler,
                                 UrlRequestContext* context, NetLog* net_log)
    : scheduler_(scheduler),
      context_(context),
      context_predictor_(config, context, config.policy == "off" ? nullptr : net_log),
      predictor_(context_predictor_.predictor()) {
  context_->socket_pool()->AddObserver(this);
}

ReplayPredictor::~ReplayPredictor() { context_->socket_pool()->RemoveObserver(this); }

void ReplayPredictor::OnEvent(const SessionEvent& event) {
  if (finished_) return;
  Url url;
  switch (event.type) {
    case SessionEvent::Type::kStartup:
      predictor_->OnStartup();
      return;
    case SessionEvent::Type::kHover:
      if (ParseUrl(event.url, &url)) predictor_->OnHover(url);
      return;
    case SessionEvent::Type::kOmnibox:
      if (ParseUrl(event.url, &url)) predictor_->OnOmnibox(event.text, url);
      return;
    case SessionEvent::Type::kHint: {
      if (!ParseUrl(event.url, &url)) return;
      const std::string& kind = event.hint;
      if (kind == "mouse-over") {
        predictor_->OnHover(url);
      } else if (kind == "dns-prefetch") {
        predictor_->OnStaticHint(last_page_, StaticHintKind::kDnsPrefetch, url);
      } else if (kind == "preconnect") {
        predictor_->OnStaticHint(last_page_, StaticHintKind::kPreconnect, url);
      } else if (kind == "preload") {
        predictor_->OnStaticHint(last_page_, StaticHintKind::kPreload, url);
      } else if (kind == "prefetch") {
        predictor_->OnStaticHint(last_page_, StaticHintKind::kPrefetch, url);
      } else {
        Hint hint;
        hint.motivation = HintMotivation::kStaticReferral;
        hint.action = SpeculativeAction::kPreresolve;
        hint.origin = url.scheme_host_port();
        hint.url = url;
        hint.likelihood = 0.5;
        hint.page = last_page_.spec();
        hint.created = scheduler_.Now();
        hint.expires = scheduler_.Now() + kUnknownHintLifetime;
        predictor_->AddHint(hint);
      }
      return;
    }
    default:
      return;
  }
}

void ReplayPredictor::OnNavigation(const Url& page) {
  if (finished_) return;
  last_page_ = page;
  predictor_->OnNavigation(page);
}

void ReplayPredictor::OnResourceRequested(const Url& page, const Url& url) {
  if (finished_) return;
  predictor_->OnResourceRequested(page, url);
}

void ReplayPredictor::OnNavigationComplete(const Url& page) {
  if (finished_) return;
  predictor_->OnNavigationComplete(page);
}

void ReplayPredictor::Finish(ReplayTotals* totals) {
  if (!finished_) predictor_->Finish();
  finished_ = true;
  totals->predictor_policy = predictor_->config().policy;
  totals->predictor = predictor_->stats();
  PredictorPolicy* policy = predictor_->policy();
  totals->predictor_tables = policy ? policy->TablesToJson() : nlohmann::json(nullptr);
}

void ReplayPredictor::OnSocketAssigned(const SchemeHostPort& group,
                                       const ClientSocketPool::Observer::Assignment& a) {
  // Reused sockets need no connection; the predictor's own fetch-aheads are not page requests.
  if (a.reuse_type == ClientSocketHandle::ReuseType::kReusedIdle || a.speculative) return;
  const TimeTicks now = scheduler_.Now();
  std::deque<Assigned>& list = assigned_[group];
  list.push_back(
      {now, a.reuse_type == ClientSocketHandle::ReuseType::kUnusedIdle, a.from_preconnect});
  while (!list.empty() &&
         (list.size() > kMaxAssignmentsPerGroup || list.front().at + kMaxAssignmentAge < now))
    list.pop_front();
  if (++assigned_count_ % kSweepEvery == 0) Prune(now);
}

void ReplayPredictor::Prune(TimeTicks now) {
  for (auto it = assigned_.begin(); it != assigned_.end();) {
    std::deque<Assigned>& list = it->second;
    while (!list.empty() && list.front().at + kMaxAssignmentAge < now) list.pop_front();
    it = list.empty() ? assigned_.erase(it) : std::next(it);
  }
}

const char* ReplayPredictor::ClassifyConnection(const SchemeHostPort& group, bool connect_timed,
                                                TimeTicks start, TimeTicks send_start) {
  const char* fallback = connect_timed ? "new" : "idle";
  auto it = assigned_.find(group);
  if (it == assigned_.end()) return fallback;
  const TimeTicks until = send_start != TimeTicks{} ? send_start : scheduler_.Now();
  std::deque<Assigned>& list = it->second;
  for (auto a = list.begin(); a != list.end(); ++a) {
    if (a->idle == connect_timed || a->at < start || a->at > until) continue;
    bool preconnect = a->from_preconnect;
    list.erase(a);
    if (list.empty()) assigned_.erase(it);
    if (connect_timed) return preconnect ? "late" : "new";
    return preconnect ? "preconnected" : "idle";
  }
  return fallback;
}

}  // namespace netstack
