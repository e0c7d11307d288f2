// LearnedPolicy: ours. It estimates, per (page, origin) and per state of the origin (cold, or
// warm: used within 300 s, by any page), the chance P(need >= k) that a load of the page needs at
// least k new connections to the origin, from observations that decay with a half-life on
// `now`, shrunk toward the page's site and a global prior while evidence is thin;
// and it acts only when the expected time saved beats the expected cost of waste:
//   preconnect the k-th socket when P_k x setup_ms(origin) >= (1 - P_k) x learned_waste_cost_ms,
//   else pre-resolve when P_1 >= kPreresolveMinP.
// setup_ms is learned per origin (EWMA of the connect wait of requests whose socket source was
// new or unused-idle: LoadTimingPhases::connect_wait_ms). Hover hints are scaled
// by the learned P(click | hover); the omnibox table has a prior and decays; the startup list
// is the decayed share of starts that needed each origin. The budget adapts (adaptive_budget.h).
// predictor/README.md explains the model and why.
#ifndef PREDICTOR_LEARNED_POLICY_H_
#define PREDICTOR_LEARNED_POLICY_H_

#include <array>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "predictor/adaptive_budget.h"
#include "predictor/decayed_use_table.h"
#include "predictor/omnibox_table.h"
#include "predictor/predictor_config.h"
#include "predictor/predictor_policy.h"

namespace netstack {

class LearnedPolicy : public PredictorPolicy {
 public:
  // Pseudo-observations each level borrows from the level above (page <- site <- prior).
  static constexpr double kPriorStrength = 1.0;
  // Prior of the global "a page needs >= k connections to its own origin" estimate: mean 2^-k
  // (one connection is even odds, each more half as likely) worth kSelfPriorWeight loads.
  static constexpr double kSelfPriorWeight = 2.0;
  // DNS is cheap: pre-resolve anything at least this likely that is not worth a connection.
  static constexpr double kPreresolveMinP = 0.2;
  // Setup time assumed for an origin before one new connection to it was seen (DNS + TCP +
  // TLS at a few tens of ms RTT), and the EWMA weight of a new sample.
  static constexpr double kDefaultSetupMs = 200;
  static constexpr double kSetupEwmaWeight = 0.3;
  // A page's load is warm when its origin was used this recently (Chrome's timeout for used idle
  // sockets: the pool probably still has one, and the host cache the address), else cold.
  // Needs are learned and predicted per state: a warm revisit needs few new connections.
  static constexpr TimeDelta kWarmWindow = std::chrono::seconds(300);
  // A hover counts as clicked if a navigation to its target follows within this time.
  static constexpr TimeDelta kHoverClickWindow = std::chrono::seconds(5);
  // Omnibox confidence = (hits + 0.5) / (hits + misses + 2.5): 0.2 for a pair never scored.
  static constexpr double kOmniboxPriorHits = 0.5;
  static constexpr double kOmniboxPriorMisses = 2.0;
  static constexpr double kOmniboxFetchAt = 0.5;
  static constexpr double kOmniboxFetchMinHits = 1.5;  // decayed: about 2 recent hits
  // Bounds of the state that is not a table of PredictorConfig's.
  static constexpr size_t kMaxActiveLoads = 32;
  static constexpr size_t kMaxSetupOrigins = 1000;  // also origins whose last use is kept
  static constexpr size_t kMaxPendingHovers = 16;
  // Origins one load (and the startup window) learns from: the origins past it that a load
  // needs are not counted (a page needing more is rare, and a table row keeps fewer anyway).
  static constexpr size_t kMaxLoadOrigins = 64;
  // Only connections this soon after a start count for the startup list: a socket preconnected
  // at start-up closes unused after the pool's unused-idle timeout (10 s), so an origin first
  // needed later would only waste it (the referral and omnibox hints cover it then).
  static constexpr TimeDelta kStartupHorizon = std::chrono::seconds(10);

  explicit LearnedPolicy(const PredictorConfig& config);
  ~LearnedPolicy() override;

  const char* name() const override { return "learned"; }
  void OnStartup(TimeTicks now, std::vector<Hint>* out) override;
  void OnNavigation(const Url& page, TimeTicks now, std::vector<Hint>* out) override;
  void OnResourceRequested(const Url& page, const Url& url, TimeTicks now) override;
  // A response over the network makes its origin warm; a cache hit does not (its socket idles).
  void OnResourceServed(const Url& page, const Url& url, bool network, TimeTicks now) override;
  void OnConnectionNeeded(const Url& page, const SchemeHostPort& origin, SocketSource source,
                          bool background, double connect_wait_ms, TimeTicks now) override;
  void OnNavigationComplete(const Url& page, TimeTicks now) override;
  void OnHover(const Url& target, TimeTicks now, std::vector<Hint>* out) override;
  void OnOmnibox(const std::string& text, const Url& url, TimeTicks now,
                 std::vector<Hint>* out) override;
  void OnStaticHint(const Url& page, StaticHintKind kind, const Url& target, TimeTicks now,
                    std::vector<Hint>* out) override;
  int Budget(TimeTicks now) const override { return budget_.budget(); }
  void OnOutcome(SpeculativeAction action, HintMotivation motivation, const SchemeHostPort& origin,
                 Outcome outcome, TimeTicks now) override;
  nlohmann::json TablesToJson() const override;
  std::vector<PredictorRow> SaveRows() const override;
  void LoadRows(const std::vector<PredictorRow>& rows, TimeTicks now, size_t* skipped) override;
  // The page, site and startup tables, the omnibox table and limiters, the setup times, the
  // loads in progress, pending hovers and outcome counts.
  size_t EstimateMemoryUsage() const override;

  // The model, exposed for tests and the tables.
  using Probabilities = std::array<double, DecayedUseTable::kMaxK>;  // [k-1] = P(need >= k)
  struct Estimate {
    SchemeHostPort origin;
    Probabilities p{};
  };
  // Every origin the page's tables (page, then site) know, plus the page's own origin, with
  // P(need >= k | the state of that origin at `now`); `known` says whether the page or its
  // site has been seen.
  std::vector<Estimate> EstimateFor(const Url& page, TimeTicks now, bool* known) const;
  // 1 (warm) if `origin` was used over the network (a new connection, or a response not from
  // the cache) within kWarmWindow before `now`, else 0 (cold).
  int StateAt(const SchemeHostPort& origin, TimeTicks now) const;
  // Sockets worth preconnecting: the largest k with p[j] x saved >= (1 - p[j]) x waste for
  // every j <= k (0..kMaxK).
  int SocketsWorthIt(const Probabilities& p, double saved_ms) const;
  // Learned setup time of a new connection to `origin` (kDefaultSetupMs until one is seen).
  double SetupMs(const SchemeHostPort& origin) const;
  // P(click | hover) with a Beta(1, 1) prior.
  double ClickProbability(TimeTicks now) const;
  // An omnibox suggestion's confidence: its hit rate with a prior of kOmniboxPriorHits hits and
  // kOmniboxPriorMisses misses (0.2 for a pair never seen).
  static double OmniboxConfidence(double hits, double misses);
  const AdaptiveBudget& budget() const { return budget_; }
  const DecayedUseTable& pages() const { return pages_; }
  const DecayedUseTable& sites() const { return sites_; }
  size_t active_loads() const { return loads_.size(); }
  // Origins counted so far by the load of `page` in progress (0 if none), and by the open
  // startup window: each at most kMaxLoadOrigins.
  size_t load_origins(const Url& page) const {
    auto it = loads_.find(page.spec());
    return it == loads_.end() ? 0 : it->second.needs.size();
  }
  size_t startup_origins() const { return startup_needs_.size(); }

 private:
  struct Load {
    Url page;
    uint64_t order = 0;
    int state = 0;  // of the page's origin when the load started
    TimeTicks start{};
    // Per origin the load touched: connections needed, and the origin's state at its first
    // touch.
    std::map<std::string, DecayedUseTable::Need> needs;  // at most kMaxLoadOrigins
  };
  struct Setup {
    double ms = 0;
    uint64_t samples = 0;
    uint64_t last_use = 0;
  };

  void Saw(TimeTicks now);
  // Appends the referral hints for `page`, every likelihood scaled by `scale`, with
  // `motivation` (null: early-load, self or learned referral as fits). With `only_self`, only
  // the hint for the page's own origin.
  void EmitReferrals(const Url& page, double scale, const HintMotivation* motivation,
                     bool only_self, TimeTicks now, std::vector<Hint>* out);
  Load* FindOrStartLoad(const Url& page, TimeTicks now);
  // The load of `page` (if in progress) touched `origin` and needed `connections` new ones:
  // counted, with the origin's state at its first touch; and the origin was used now.
  void Touch(const Url& page, const SchemeHostPort& origin, int connections, TimeTicks now);
  void FinishLoad(const std::string& spec, TimeTicks now);
  void CloseStartupWindow(TimeTicks at);
  void Used(const SchemeHostPort& origin, TimeTicks now);
  std::vector<DecayedUseTable::Need> StartupNeeds() const;

  const PredictorConfig config_;
  DecayedUseTable pages_;    // by PageKey
  DecayedUseTable sites_;    // by page origin: the fallback for pages not seen yet
  DecayedUseTable startup_;  // one key, "startup"
  // All loads, per state: connections to the page's own origin.
  std::array<DecayedCounts, DecayedUseTable::kStates> self_;
  DecayedCounts hover_;  // n = hovers, c[0] = hovers followed by a click
  OmniboxTable omnibox_;
  OmniboxRateLimiter resolve_limiter_;
  OmniboxRateLimiter preconnect_limiter_;
  OmniboxRateLimiter fetch_limiter_;
  AdaptiveBudget budget_;
  std::map<std::string, Setup> setup_;  // by origin key
  // When each origin was last requested or connected to (not saved: after a restart the pool is
  // empty, every origin cold).
  std::map<std::string, TimeTicks> last_use_;
  uint64_t setup_sequence_ = 0;
  std::map<std::string, Load> loads_;  // by page spec
  uint64_t load_sequence_ = 0;
  std::deque<std::pair<std::string, TimeTicks>> pending_hovers_;
  bool startup_open_ = false;
  TimeTicks startup_start_{};
  std::map<std::string, DecayedUseTable::Need> startup_needs_;  // at most kMaxLoadOrigins
  // Outcomes seen, by motivation and outcome (for the tables).
  std::map<std::string, uint64_t> outcomes_;
  TimeTicks last_now_{};
};

}  // namespace netstack

#endif  // PREDICTOR_LEARNED_POLICY_H_
