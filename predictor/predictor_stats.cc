#include "predictor/predictor_stats.h"

#include <cmath>

#include "net/base/time.h"

namespace netstack {

double SpeculationCounts::Precision() const {
  return taken == 0 ? 0.0 : static_cast<double>(used + late) / static_cast<double>(taken);
}

nlohmann::json SpeculationCounts::ToJson() const {
  return {{"taken", taken},   {"used", used},       {"late", late},
          {"wasted", wasted}, {"pending", pending}, {"precision", Precision()}};
}

SpeculationCounts PredictorStats::Total() const {
  SpeculationCounts total;
  for (const SpeculationCounts& c : actions) {
    total.taken += c.taken;
    total.used += c.used;
    total.late += c.late;
    total.wasted += c.wasted;
    total.pending += c.pending;
  }
  return total;
}

double PredictorStats::Recall() const {
  return connections_needed == 0
             ? 0.0
             : static_cast<double>(connections_ready) / static_cast<double>(connections_needed);
}

nlohmann::json PredictorStats::ToJson() const {
  return {
      {"hints",
       {{"produced", hints},
        {"started", hints_started},
        {"expired", hints_expired},
        {"low_value", hints_low_value},
        {"redundant", hints_redundant},
        {"invalid", hints_invalid},
        {"queue_full", hints_queue_full}}},
      {"preresolve", of(SpeculativeAction::kPreresolve).ToJson()},
      {"preconnect", of(SpeculativeAction::kPreconnect).ToJson()},
      {"fetch_ahead", of(SpeculativeAction::kFetchAhead).ToJson()},
      {"connections",
       {{"needed", connections_needed},
        {"ready", connections_ready},
        {"late", connections_late},
        {"recall", Recall()},
        // To the microsecond, as every other time in the outputs (a sum of doubles carries noise
        // in its last digits).
        {"connect_wait_ms", RoundMsForJson(connect_wait_ms)}}},
      {"precision", Total().Precision()},
  };
}

}  // namespace netstack
