#include "predictor/predictor_config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string_view>
#include <vector>

namespace netstack {

namespace {

// One settable key: how to parse it, its range, where it goes and how to read it back.
struct KeySpec {
  const char* name;
  bool integer;  // else a decimal number
  double min, max;
  std::function<void(PredictorConfig&, double)> set;
  std::function<nlohmann::json(const PredictorConfig&)> get;
};

double ToSeconds(TimeDelta d) { return static_cast<double>(d.count()) / 1e6; }
TimeDelta FromSeconds(double s) { return TimeDelta(static_cast<int64_t>(std::llround(s * 1e6))); }

const std::vector<KeySpec>& Keys() {
  using C = PredictorConfig;
  static const std::vector<KeySpec> keys = {
      {"max_queued_hints", true, 1, 100000,
       [](C& c, double v) { c.max_queued_hints = static_cast<size_t>(v); },
       [](const C& c) { return nlohmann::json(c.max_queued_hints); }},
      {"max_in_flight", true, 1, 64, [](C& c, double v) { c.max_in_flight = static_cast<int>(v); },
       [](const C& c) { return nlohmann::json(c.max_in_flight); }},
      {"max_resolves_in_flight", true, 1, 64,
       [](C& c, double v) { c.max_resolves_in_flight = static_cast<int>(v); },
       [](const C& c) { return nlohmann::json(c.max_resolves_in_flight); }},
      {"preresolve_lifetime_s", false, 0.001, 86400,
       [](C& c, double v) { c.preresolve_lifetime = FromSeconds(v); },
       [](const C& c) { return nlohmann::json(ToSeconds(c.preresolve_lifetime)); }},
      {"fetch_ahead_lifetime_s", false, 0.001, 86400,
       [](C& c, double v) { c.fetch_ahead_lifetime = FromSeconds(v); },
       [](const C& c) { return nlohmann::json(ToSeconds(c.fetch_ahead_lifetime)); }},
      {"max_referrers", true, 1, 100000,
       [](C& c, double v) { c.max_referrers = static_cast<size_t>(v); },
       [](const C& c) { return nlohmann::json(c.max_referrers); }},
      {"max_origins_per_referrer", true, 1, 1000,
       [](C& c, double v) { c.max_origins_per_referrer = static_cast<size_t>(v); },
       [](const C& c) { return nlohmann::json(c.max_origins_per_referrer); }},
      {"max_omnibox_rows", true, 1, 1000000,
       [](C& c, double v) { c.max_omnibox_rows = static_cast<size_t>(v); },
       [](const C& c) { return nlohmann::json(c.max_omnibox_rows); }},
      {"startup_list_size", true, 0, 1000,
       [](C& c, double v) { c.startup_list_size = static_cast<size_t>(v); },
       [](const C& c) { return nlohmann::json(c.startup_list_size); }},
      {"startup_window_s", false, 0, 3600,
       [](C& c, double v) { c.startup_window = FromSeconds(v); },
       [](const C& c) { return nlohmann::json(ToSeconds(c.startup_window)); }},
      {"learned_half_life_days", false, 0.001, 3650,
       [](C& c, double v) { c.learned_half_life_days = v; },
       [](const C& c) { return nlohmann::json(c.learned_half_life_days); }},
      {"learned_waste_cost_ms", false, 0, 1e6, [](C& c, double v) { c.learned_waste_cost_ms = v; },
       [](const C& c) { return nlohmann::json(c.learned_waste_cost_ms); }},
      {"learned_budget_cap", true, 1, 64,
       [](C& c, double v) { c.learned_budget_cap = static_cast<int>(v); },
       [](const C& c) { return nlohmann::json(c.learned_budget_cap); }},
      {"learned_max_origins_per_page", true, 1, 256,
       [](C& c, double v) { c.learned_max_origins_per_page = static_cast<size_t>(v); },
       [](const C& c) { return nlohmann::json(c.learned_max_origins_per_page); }},
  };
  return keys;
}

// Parses the whole of `text` as a finite number; false if anything is left over.
bool ParseNumber(const std::string& text, double* out) {
  if (text.empty() || text.size() > 64) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::string FormatBound(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  std::string s = std::to_string(v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s;
}

}  // namespace

bool PredictorConfig::Set(const std::string& key, const std::string& value, std::string* error) {
  if (key == "policy" || key == "predictor") {
    if (value != "off" && value != "chrome" && value != "loading" && value != "learned") {
      *error = key + ": '" + value + "' is not a policy (off, chrome, loading or learned)";
      return false;
    }
    policy = value;
    return true;
  }
  for (const KeySpec& spec : Keys()) {
    if (key != spec.name) continue;
    double v = 0;
    if (!ParseNumber(value, &v)) {
      *error = key + ": '" + value + "' is not " + (spec.integer ? "an integer" : "a number");
      return false;
    }
    if (spec.integer && v != std::floor(v)) {
      *error = key + ": '" + value + "' is not an integer";
      return false;
    }
    if (v < spec.min || v > spec.max) {
      *error = key + ": '" + value + "' is out of range (" + FormatBound(spec.min) + " to " +
               FormatBound(spec.max) + ")";
      return false;
    }
    spec.set(*this, v);
    return true;
  }
  *error = "unknown predictor key '" + key + "'";
  return false;
}

nlohmann::json PredictorConfig::ToJson() const {
  nlohmann::json out = {{"policy", policy}};
  for (const KeySpec& spec : Keys()) out[spec.name] = spec.get(*this);
  return out;
}

}  // namespace netstack
