// ChromePolicy: Chrome's old predictor (chrome/browser/net/predictor.cc of its era), the
// baseline. Its rules and numbers (DESIGN.md "Chrome's defaults", predictor/README.md):
// - Referrers (referrer_table.h): keyed by the page's origin. On a visit, hints come from the
//   current values first (> 0.8: preconnect ceil(value) sockets, at most 6; > 0.1:
//   pre-resolve), then the values decay; each connection the load needs teaches the table. The
//   page's own origin is learned like any other and hinted as a self referral.
// - Unknown page (no referrer entry, or none left): preconnect 2 sockets to its own origin.
// - Startup list (startup_list.h): pre-resolve the 10 origins most used after the last start.
// - Omnibox (omnibox_table.h): confidence = hits / (hits + misses), 0 below 3 hits. Each
//   keystroke pre-resolves the URL's host (at most once per 60 s per host); >= 0.3 preconnects
//   one socket (at most once per 10 s per origin); >= 0.5 fetches the URL ahead (at most once
//   per 60 s per URL).
// - Hover: preconnect 1 socket to the target's origin plus the target page's referral hints
//   (Chrome's PreconnectUrlAndSubresources), without counting a visit.
// - Static hints: dns-prefetch pre-resolves, preconnect preconnects 1, preload and prefetch fetch
//   ahead (http(s) GET only).
// - Budget: kBudget actions in flight.
#ifndef PREDICTOR_CHROME_POLICY_H_
#define PREDICTOR_CHROME_POLICY_H_

#include <string>
#include <vector>

#include "predictor/omnibox_table.h"
#include "predictor/predictor_config.h"
#include "predictor/predictor_policy.h"
#include "predictor/referrer_table.h"
#include "predictor/startup_list.h"

namespace netstack {

class ChromePolicy : public PredictorPolicy {
 public:
  static constexpr double kPreconnectAbove = 0.8;
  static constexpr double kPreresolveAbove = 0.1;
  static constexpr int kUnknownPageSockets = 2;
  static constexpr int kHoverSockets = 1;
  static constexpr double kOmniboxMinHits = 3;
  static constexpr double kOmniboxPreconnectAt = 0.3;
  static constexpr double kOmniboxFetchAt = 0.5;
  static constexpr TimeDelta kOmniboxResolvePeriod = std::chrono::seconds(60);
  static constexpr TimeDelta kOmniboxPreconnectPeriod = std::chrono::seconds(10);
  static constexpr TimeDelta kOmniboxFetchPeriod = std::chrono::seconds(60);
  static constexpr int kBudget = 8;

  explicit ChromePolicy(const PredictorConfig& config);
  ~ChromePolicy() override;

  const char* name() const override { return "chrome"; }
  void OnStartup(TimeTicks now, std::vector<Hint>* out) override;
  void OnNavigation(const Url& page, TimeTicks now, std::vector<Hint>* out) override;
  void OnResourceRequested(const Url& page, const Url& url, TimeTicks now) override;
  void OnConnectionNeeded(const Url& page, const SchemeHostPort& origin, SocketSource source,
                          bool background, double connect_wait_ms, TimeTicks now) override;
  void OnNavigationComplete(const Url& page, TimeTicks now) override;
  void OnHover(const Url& target, TimeTicks now, std::vector<Hint>* out) override;
  void OnOmnibox(const std::string& text, const Url& url, TimeTicks now,
                 std::vector<Hint>* out) override;
  void OnStaticHint(const Url& page, StaticHintKind kind, const Url& target, TimeTicks now,
                    std::vector<Hint>* out) override;
  int Budget(TimeTicks now) const override { return kBudget; }
  nlohmann::json TablesToJson() const override;
  std::vector<PredictorRow> SaveRows() const override;
  void LoadRows(const std::vector<PredictorRow>& rows, TimeTicks now, size_t* skipped) override;
  // The referrer, omnibox and startup tables and the omnibox rate limiters.
  size_t EstimateMemoryUsage() const override;

  // The omnibox confidence rule: hits / (hits + misses), 0 below 3 hits.
  static double OmniboxConfidence(double hits, double misses);

  const ReferrerTable& referrers() const { return referrers_; }
  const OmniboxTable& omnibox() const { return omnibox_; }
  const StartupList& startup() const { return startup_; }

 private:
  // The referral hints of the page whose referrer key is `key` (the unknown-page preconnect if
  // none), with `motivation` overriding the learned/self/early-load one when not null. Counts
  // the hints in the rows.
  void EmitReferrals(const Url& page, const HintMotivation* motivation, TimeTicks now,
                     std::vector<Hint>* out);
  void Saw(TimeTicks now);

  ReferrerTable referrers_;
  OmniboxTable omnibox_;
  StartupList startup_;
  OmniboxRateLimiter resolve_limiter_;
  OmniboxRateLimiter preconnect_limiter_;
  OmniboxRateLimiter fetch_limiter_;
  TimeTicks last_now_{};  // the latest `now` any call carried: rows' ages are taken from it
};

}  // namespace netstack

#endif  // PREDICTOR_CHROME_POLICY_H_
