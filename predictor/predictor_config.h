// PredictorConfig: which policy runs and every bound and knob of the predictor, with Chrome's
// values as defaults. `netstack replay --set predictor_KEY=VALUE` and `fetch` reach it through
// Set().
#ifndef PREDICTOR_PREDICTOR_CONFIG_H_
#define PREDICTOR_PREDICTOR_CONFIG_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "net/base/time.h"

namespace netstack {

struct PredictorConfig {
  // "off", "chrome", "loading" or "learned".
  std::string policy = "off";

  // The queue (speculative_queue.h).
  size_t max_queued_hints = 256;   // one more is dropped (counted as queue_full)
  int max_in_flight = 8;           // hard cap on actions in flight, whatever a policy asks
  int max_resolves_in_flight = 3;  // Chrome: at most 3 speculative resolves at once

  // When a taken action counts as wasted if nothing used it: a pre-resolve after this long
  // (Chrome's system-resolver cache lifetime), a fetched-ahead response after this long. A
  // preconnected socket is wasted when the pool closes it unused (its unused-idle timeout,
  // 10 s by default).
  TimeDelta preresolve_lifetime = Seconds(60);
  TimeDelta fetch_ahead_lifetime = Seconds(300);

  // Table bounds (Chrome's old predictor).
  size_t max_referrers = 100;
  size_t max_origins_per_referrer = 10;
  size_t max_omnibox_rows = 2000;
  size_t startup_list_size = 10;
  // How long after startup a navigation's hosts count for the startup list.
  TimeDelta startup_window = Seconds(30);

  // learned policy (predictor/README.md explains each).
  double learned_half_life_days = 7;  // weight of an observation halves in this time
  // The user-visible cost of one wasted connection, in ms of connect time saved elsewhere
  // (server and radio load, a socket held): act when p × saved > (1 − p) × this.
  double learned_waste_cost_ms = 110;  // chosen on the tuning seeds (BENCHMARKS.md)
  int learned_budget_cap = 8;          // the adaptive budget never goes above (nor max_in_flight)
  // Origins the learned policy keeps per page and per site (max_origins_per_referrer is
  // Chrome's): a news page needs connections to 20 or more, and a bound below that evicts
  // every load what the last one taught.
  size_t learned_max_origins_per_page = 32;

  // Sets one key: policy (or predictor), max_queued_hints, max_in_flight,
  // max_resolves_in_flight, preresolve_lifetime_s, fetch_ahead_lifetime_s, max_referrers,
  // max_origins_per_referrer, max_omnibox_rows, startup_list_size, startup_window_s,
  // learned_half_life_days, learned_waste_cost_ms, learned_budget_cap,
  // learned_max_origins_per_page. False with a one-line
  // `error` ("max_in_flight: '0' is out of range (1 to 64)") for an unknown key or a bad or
  // out-of-range value; the config is unchanged then.
  bool Set(const std::string& key, const std::string& value, std::string* error);
  // Every key with its value, as Set accepts them.
  nlohmann::json ToJson() const;
};

}  // namespace netstack

#endif  // PREDICTOR_PREDICTOR_CONFIG_H_
