// Scaffolding for the predictor core's tests: a scripted SpeculationTarget that records what the
// predictor asked for and lets the test finish it, and a fake PredictorPolicy whose hints,
// budget and verdicts the test chooses and which records what it was told.
#ifndef TESTS_PREDICTOR_CORE_TEST_UTIL_H_
#define TESTS_PREDICTOR_CORE_TEST_UTIL_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "net/base/url.h"
#include "predictor/hint.h"
#include "predictor/predictor_policy.h"
#include "predictor/speculation_target.h"
#include "tests/support/test_url.h"

namespace netstack::test {

SchemeHostPort Origin(const std::string& host, const std::string& scheme = "https");
Hint MakeHint(SpeculativeAction action, const std::string& host, int priority = 0,
              double likelihood = 0.5);

class ScriptedTarget : public SpeculationTarget {
 public:
  struct Call {
    SpeculativeAction action;
    SchemeHostPort origin;
    Url url;
    int sockets = 0;
    CompletionCallback done;  // pre-resolve and fetch; empty once Complete() ran it
  };

  int Preresolve(const SchemeHostPort& origin, const NetLogWithSource& net_log,
                 CompletionCallback done) override;
  int Preconnect(const SchemeHostPort& origin, int sockets,
                 const NetLogWithSource& net_log) override;
  int FetchAhead(const Url& url, const NetLogWithSource& net_log, CompletionCallback done) override;
  bool CanFetchAhead() const override { return can_fetch_ahead; }
  int SocketCount(const SchemeHostPort& origin) const override;
  bool IsResolved(const SchemeHostPort& origin) const override;

  // Runs call `i`'s callback with `result` (as the stack would, later).
  void Complete(size_t i, int result = OK);
  size_t count(SpeculativeAction action) const;

  std::vector<Call> calls;
  // Scripting.
  std::set<std::string> resolved_hosts;
  std::map<SchemeHostPort, int> socket_counts;
  bool can_fetch_ahead = true;
  int preresolve_result = ERR_IO_PENDING;  // what Preresolve returns
  int preconnect_result = OK;
  // Runs inside Preconnect (e.g. to report jobs the way the pool would).
  std::function<void(const SchemeHostPort&, int)> on_preconnect;
};

class FakePolicy : public PredictorPolicy {
 public:
  struct OutcomeCall {
    SpeculativeAction action;
    HintMotivation motivation;
    SchemeHostPort origin;
    Outcome outcome;
  };
  struct ConnectionCall {
    std::string page;
    SchemeHostPort origin;
    SocketSource source;
    double connect_wait_ms;
    bool background = false;
  };

  const char* name() const override { return "fake"; }
  void OnStartup(TimeTicks now, std::vector<Hint>* out) override { Emit(out); }
  void OnNavigation(const Url& page, TimeTicks now, std::vector<Hint>* out) override {
    navigations.push_back(page.spec());
    Emit(out);
  }
  void OnResourceRequested(const Url& page, const Url& url, TimeTicks now) override {}
  void OnConnectionNeeded(const Url& page, const SchemeHostPort& origin, SocketSource source,
                          bool background, double connect_wait_ms, TimeTicks now) override {
    connections.push_back({page.spec(), origin, source, connect_wait_ms, background});
  }
  void OnNavigationComplete(const Url& page, TimeTicks now) override {}
  void OnHover(const Url& target, TimeTicks now, std::vector<Hint>* out) override { Emit(out); }
  void OnOmnibox(const std::string& text, const Url& url, TimeTicks now,
                 std::vector<Hint>* out) override {
    Emit(out);
  }
  void OnStaticHint(const Url& page, StaticHintKind kind, const Url& target, TimeTicks now,
                    std::vector<Hint>* out) override {
    Emit(out);
  }
  bool ShouldStart(const Hint& hint, TimeTicks now) override {
    return !should_start || should_start(hint);
  }
  int Budget(TimeTicks now) const override { return budget; }
  void OnOutcome(SpeculativeAction action, HintMotivation motivation, const SchemeHostPort& origin,
                 Outcome outcome, TimeTicks now) override {
    outcomes.push_back({action, motivation, origin, outcome});
  }
  nlohmann::json TablesToJson() const override { return {{"fake", true}}; }
  std::vector<PredictorRow> SaveRows() const override { return {}; }
  void LoadRows(const std::vector<PredictorRow>& rows, TimeTicks now, size_t* skipped) override {}
  size_t EstimateMemoryUsage() const override { return 0; }

  // The hints the next event emits (then cleared).
  std::vector<Hint> next_hints;
  int budget = 8;
  std::function<bool(const Hint&)> should_start;
  std::vector<std::string> navigations;
  std::vector<OutcomeCall> outcomes;
  std::vector<ConnectionCall> connections;

 private:
  void Emit(std::vector<Hint>* out) {
    for (Hint& h : next_hints) out->push_back(h);
    next_hints.clear();
  }
};

}  // namespace netstack::test

#endif  // TESTS_PREDICTOR_CORE_TEST_UTIL_H_
