// Helpers for the policy tests: URLs, origins, and a page load driven through a policy.
#ifndef TESTS_PREDICTOR_POLICY_TEST_UTIL_H_
#define TESTS_PREDICTOR_POLICY_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "net/base/url.h"
#include "predictor/hint.h"
#include "predictor/predictor_config.h"
#include "predictor/predictor_policy.h"
#include "tests/support/test_url.h"

namespace netstack {
namespace policy_test {

// Parses an absolute URL the test wrote (must be valid).
using test::U;
// The origin of "https://host/" (or any URL text).
SchemeHostPort O(const std::string& text);
// A time `seconds` after an arbitrary non-zero start.
TimeTicks At(double seconds);

// Seconds in a day (decay half-lives are days).
constexpr double kDay = 86400;
// A time `i` x 1000 s after At(0): loads that far apart are cold (their origins unused for over
// the learned policy's 300 s warm window).
TimeTicks Cold(int i);
// The learned policy's configuration the learned_policy*_test.cc worked numbers assume: a
// waste price of 150 ms (the default is tuned separately, predictor_config.h).
PredictorConfig LearnedConfig();

// One load of `page` at `now`: OnNavigation (its hints returned), the document requested and
// served over the network, then for each (origin, connections) that many OnConnectionNeeded
// (kNew, `wait_ms` each), then OnNavigationComplete.
std::vector<Hint> LoadPage(PredictorPolicy& policy, const Url& page,
                           const std::vector<std::pair<SchemeHostPort, int>>& needs, TimeTicks now,
                           double wait_ms = 100);

// The hints for `origin` with `action` (in order).
std::vector<Hint> HintsFor(const std::vector<Hint>& hints, const SchemeHostPort& origin,
                           SpeculativeAction action);
// Sockets of the preconnect hint for `origin` (0 if none), and whether a pre-resolve is there.
int PreconnectSockets(const std::vector<Hint>& hints, const SchemeHostPort& origin);
bool HasPreresolve(const std::vector<Hint>& hints, const SchemeHostPort& origin);
// A comparable summary of hints (motivation, action, origin, url, sockets, likelihood,
// priority, expiry), one string per hint.
std::vector<std::string> Describe(const std::vector<Hint>& hints);

// A row of the loading policy's "origins" table as it saves them (host_origin_table.h): accessed
// network, average position 2, no consecutive miss, last visit 1.
PredictorRow LoadingOriginRow(const std::string& host, const std::string& origin, uint64_t hits,
                              uint64_t misses, uint64_t rank = 0);

}  // namespace policy_test
}  // namespace netstack

#endif  // TESTS_PREDICTOR_POLICY_TEST_UTIL_H_
