#include "tools/replay/replay_predictor.h"

#include <string>

#include "net/http/url_request_context.h"
#include "predictor/hint.h"
#include "predictor/predictor.h"

namespace netstack {
namespace {

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
      predictor_(context_predictor_.predictor()) {}

ReplayPredictor::~ReplayPredictor() = default;

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

void ReplayPredictor::OnResourceServed(const Url& page, const Url& url, CacheDisposition cache,
                                       SocketSource connection) {
  if (finished_) return;
  predictor_->OnResourceServed(page, url, cache, connection);
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

}  // namespace netstack
