// LoadingPolicy: Chrome's current LoadingPredictor (chrome/browser/predictors/loading_predictor.cc,
// resource_prefetch_predictor.cc, loading_predictor_config.cc, autocomplete_action_predictor.cc),
// the `loading` policy: the baseline of today's Chrome, beside the old one (chrome_policy.h).
// Its rules (predictor/README.md "The loading policy" gives the sources):
// - Learning (host_origin_table.h): when a load completes, the origins it requested teach the
//   table of its main-frame host: hits, misses, consecutive misses (3 drop an origin), at most
//   50 origins per host, 100 hosts (least recently visited evicted).
// - Navigation start (PrepareForPageLoad): the host's origins with confidence
//   hits / (hits + misses) > 0.75 are preconnected (1 socket), those >= 0.2 pre-resolved; the
//   main frame's origin is always preconnected with at least 2 sockets, learned or not.
// - Omnibox (AutocompleteActionPredictor + HandleOmniboxHint): confidence 0 below 3 hits;
//   >= 0.5 prerenders the URL (here: fetches it ahead); >= 0.3 asks the LoadingPredictor, which
//   pre-resolves the host (a URL suggestion is not "preconnectable": only search suggestions
//   are) at most once per 60 s unless the origin changed. 2000 rows; rows not updated for
//   14 days are dropped when the tables load.
// - Hover and startup: nothing (today's Chrome has no hover or startup-list preconnect).
// - Static hints: as the markup asks (the renderer does them whatever the predictor).
#ifndef PREDICTOR_LOADING_POLICY_H_
#define PREDICTOR_LOADING_POLICY_H_

#include <map>
#include <string>
#include <vector>

#include "predictor/host_origin_table.h"
#include "predictor/omnibox_table.h"
#include "predictor/predictor_config.h"
#include "predictor/predictor_policy.h"

namespace netstack {

// LoadingPredictor::HandleHintByOrigin's gate for the omnibox: a hint for a new origin (not the
// previous hint's) always passes; one for the same origin passes when the last action of its
// kind is at least the period old (10 s for a preconnect, 60 s for a pre-resolve).
class OmniboxHintGate {
 public:
  // Chrome's kMinDelayBetweenPreconnectRequests and kMinDelayBetweenPreresolveRequests.
  static constexpr TimeDelta kPreconnectPeriod = std::chrono::seconds(10);
  static constexpr TimeDelta kPreresolvePeriod = std::chrono::seconds(60);

  // True (and records `now`) when a hint for `origin` may act now; `preconnectable` picks the
  // preconnect period (else the pre-resolve one). Remembers one origin and two times.
  bool Allow(const SchemeHostPort& origin, bool preconnectable, TimeTicks now);

 private:
  bool has_last_ = false;
  SchemeHostPort last_origin_;
  TimeTicks last_preconnect_{};
  TimeTicks last_preresolve_{};
};

class LoadingPolicy : public PredictorPolicy {
 public:
  // resource_prefetch_predictor.cc.
  static constexpr double kPreconnectAbove = 0.75;  // kMinOriginConfidenceToTriggerPreconnect
  static constexpr double kPreresolveFrom = 0.2;    // kMinOriginConfidenceToTriggerPreresolve
  // loading_predictor.cc AddInitialUrlToPreconnectPrediction: the main frame's origin gets at
  // least 2 sockets (a redirect to the same host races the first connection).
  static constexpr int kMainFrameSockets = 2;
  static constexpr int kLearnedSockets = 1;  // PredictPreconnectOrigins: one per origin
  // loading_predictor_config.cc.
  static constexpr size_t kMaxHosts = 100;              // max_hosts_to_track
  static constexpr size_t kMaxOriginsPerHost = 50;      // max_origins_per_entry
  static constexpr uint64_t kMaxConsecutiveMisses = 3;  // max_consecutive_misses
  // max_navigation_lifetime_seconds: a load still open this long after it started is abandoned
  // (not learned) when the next navigation starts.
  static constexpr TimeDelta kMaxNavigationLifetime = std::chrono::seconds(60);
  // autocomplete_action_predictor.cc.
  static constexpr double kOmniboxMinHits = 3;         // kMinimumNumberOfHits
  static constexpr double kOmniboxPreconnectAt = 0.3;  // kPreconnectConfidenceCutoff
  static constexpr double kOmniboxPrerenderAt = 0.5;   // kPrerenderDUIConfidenceCutoff
  static constexpr TimeDelta kOmniboxMaxAge = std::chrono::hours(24 * 14);  // ...DaysToKeepEntry
  // Our bounds (Chrome's summaries are unbounded in principle): loads in progress, and origins
  // recorded per load (the table keeps 50 per host anyway).
  static constexpr size_t kMaxLoadsInProgress = 64;
  static constexpr size_t kMaxOriginsPerLoad = 256;
  // Actions in flight. PreconnectManager bounds only its pre-resolves (3 in flight:
  // PredictorConfig::max_resolves_in_flight); this is the queue's own cap, as the chrome policy's.
  static constexpr int kBudget = 8;

  explicit LoadingPolicy(const PredictorConfig& config);
  ~LoadingPolicy() override;

  const char* name() const override { return "loading"; }
  // Nothing: today's Chrome has no startup list.
  void OnStartup(TimeTicks now, std::vector<Hint>* out) override;
  // The host's prediction (above) and the main frame's 2 sockets; the load starts recording.
  void OnNavigation(const Url& page, TimeTicks now, std::vector<Hint>* out) override;
  // Records the request's origin for the load of `page` (first request order).
  void OnResourceRequested(const Url& page, const Url& url, TimeTicks now) override;
  // Marks `origin` as having reached the network in the load of `page`.
  void OnConnectionNeeded(const Url& page, const SchemeHostPort& origin, SocketSource source,
                          bool background, double connect_wait_ms, TimeTicks now) override;
  // The load's origins teach its host's row (Learn); the record ends.
  void OnNavigationComplete(const Url& page, TimeTicks now) override;
  // Nothing: today's Chrome does not act on hover (see the README).
  void OnHover(const Url& target, TimeTicks now, std::vector<Hint>* out) override;
  void OnOmnibox(const std::string& text, const Url& url, TimeTicks now,
                 std::vector<Hint>* out) override;
  void OnStaticHint(const Url& page, StaticHintKind kind, const Url& target, TimeTicks now,
                    std::vector<Hint>* out) override;
  int Budget(TimeTicks now) const override { return kBudget; }
  // {"referrers": [{page (the host), origin, hits, misses, consecutive_misses, confidence,
  //   average_position, accessed_network, always_access_network, action}], "omnibox": [...]}.
  nlohmann::json TablesToJson() const override;
  // Tables "origins" (host_origin_table.h) and "omnibox" (omnibox_table.h).
  std::vector<PredictorRow> SaveRows() const override;
  // Omnibox rows older than kOmniboxMaxAge at `now` are dropped (not counted as skipped), as
  // Chrome's DeleteOldEntries does when its table loads.
  void LoadRows(const std::vector<PredictorRow>& rows, TimeTicks now, size_t* skipped) override;
  // The origin and omnibox tables and the loads in progress.
  size_t EstimateMemoryUsage() const override;

  // The omnibox confidence rule: hits / (hits + misses), 0 below 3 hits.
  static double OmniboxConfidence(double hits, double misses);

  const HostOriginTable& origins() const { return origins_; }
  const OmniboxTable& omnibox() const { return omnibox_; }
  size_t loads_in_progress() const { return loads_.size(); }

 private:
  // A load being recorded (Chrome's PageRequestSummary).
  struct Load {
    TimeTicks started{};
    std::vector<HostOriginTable::OriginSummary> origins;  // in order of first request
    std::map<std::string, size_t> index;                  // origin key -> position in origins
  };
  HostOriginTable::OriginSummary* Record(Load* load, const SchemeHostPort& origin);
  void Saw(TimeTicks now);

  HostOriginTable origins_;
  OmniboxTable omnibox_;
  OmniboxHintGate omnibox_gate_;
  std::string last_prerender_;  // the URL fetched ahead for the omnibox since the last navigation
  std::map<std::string, Load> loads_;  // page URL -> its load
  TimeTicks last_now_{};
};

}  // namespace netstack

#endif  // PREDICTOR_LOADING_POLICY_H_
