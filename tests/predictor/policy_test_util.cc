#include "tests/predictor/policy_test_util.h"

#include <cstdio>

#include "net/base/net_error.h"
#include "tests/support/test_url.h"

namespace netstack {
namespace policy_test {

SchemeHostPort O(const std::string& text) { return U(text).scheme_host_port(); }

TimeTicks At(double seconds) {
  return TimeTicks{} + Seconds(1000) + TimeDelta(static_cast<int64_t>(seconds * 1e6));
}

TimeTicks Cold(int i) { return At(1000.0 * i); }

PredictorConfig LearnedConfig() {
  PredictorConfig config;
  config.policy = "learned";
  config.learned_waste_cost_ms = 150;
  return config;
}

std::vector<Hint> LoadPage(PredictorPolicy& policy, const Url& page,
                           const std::vector<std::pair<SchemeHostPort, int>>& needs, TimeTicks now,
                           double wait_ms) {
  std::vector<Hint> hints;
  policy.OnNavigation(page, now, &hints);
  policy.OnResourceRequested(page, page, now);
  policy.OnResourceServed(page, page, /*network=*/true, now);
  for (const auto& [origin, count] : needs) {
    for (int i = 0; i < count; ++i) {
      policy.OnConnectionNeeded(page, origin, SocketSource::kNew, /*background=*/false, wait_ms,
                                now);
    }
  }
  policy.OnNavigationComplete(page, now + Seconds(1));
  return hints;
}

std::vector<Hint> HintsFor(const std::vector<Hint>& hints, const SchemeHostPort& origin,
                           SpeculativeAction action) {
  std::vector<Hint> out;
  for (const Hint& h : hints) {
    if (h.origin == origin && h.action == action) out.push_back(h);
  }
  return out;
}

int PreconnectSockets(const std::vector<Hint>& hints, const SchemeHostPort& origin) {
  int sockets = 0;
  for (const Hint& h : HintsFor(hints, origin, SpeculativeAction::kPreconnect)) {
    sockets = std::max(sockets, h.sockets);
  }
  return sockets;
}

bool HasPreresolve(const std::vector<Hint>& hints, const SchemeHostPort& origin) {
  return !HintsFor(hints, origin, SpeculativeAction::kPreresolve).empty();
}

std::vector<std::string> Describe(const std::vector<Hint>& hints) {
  std::vector<std::string> out;
  for (const Hint& h : hints) {
    char buf[512];
    std::snprintf(buf, sizeof(buf), "m=%d a=%d %s url=%s s=%d p=%.12f pri=%d page=%s exp=%lld",
                  static_cast<int>(h.motivation), static_cast<int>(h.action),
                  h.origin.ToString().c_str(), h.url.spec().c_str(), h.sockets, h.likelihood,
                  h.priority, h.page.c_str(),
                  static_cast<long long>((h.expires - h.created).count()));
    out.push_back(buf);
  }
  return out;
}

PredictorRow LoadingOriginRow(const std::string& host, const std::string& origin, uint64_t hits,
                              uint64_t misses, uint64_t rank) {
  return {"origins",
          host,
          origin,
          {{"hits", hits},
           {"misses", misses},
           {"consecutive_misses", 0},
           {"average_position", 2.0},
           {"always_access_network", false},
           {"accessed_network", true},
           {"rank", rank},
           {"last_visit", 1}}};
}

}  // namespace policy_test
}  // namespace netstack
