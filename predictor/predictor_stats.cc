#include "predictor/predictor_stats.h"

#include <cmath>

#include "net/base/time.h"

namespace netstack {

double SpeculationCounts::Precision() const {
  return taken == 0 ? 0.0 : static_cast<double>(used + late) / static_cast<double>(taken);
}

void SpeculationCounts::Add(const SpeculationCounts& o) {
  taken += o.taken;
  used += o.used;
  late += o.late;
  used_background += o.used_background;
  late_background += o.late_background;
  wasted += o.wasted;
  pending += o.pending;
  warmed += o.warmed;
}

nlohmann::json SpeculationCounts::ToJson() const {
  return {{"taken", taken},
          {"used", used},
          {"late", late},
          {"used_background", used_background},
          {"late_background", late_background},
          {"wasted", wasted},
          {"pending", pending},
          {"precision", Precision()}};
}

SpeculationCounts PredictorStats::Total() const {
  SpeculationCounts total;
  for (const SpeculationCounts& c : actions) total.Add(c);
  return total;
}

SpeculationCounts PredictorStats::ConnectionTotal() const {
  SpeculationCounts total = of(SpeculativeAction::kPreresolve);
  total.Add(of(SpeculativeAction::kPreconnect));
  return total;
}

double PredictorStats::Recall() const {
  return connections_needed == 0
             ? 0.0
             : static_cast<double>(connections_ready) / static_cast<double>(connections_needed);
}

void PredictorStats::Add(const PredictorStats& b) {
  for (int i = 0; i < kNumSpeculativeActions; ++i) actions[i].Add(b.actions[i]);
  hints += b.hints;
  hints_started += b.hints_started;
  hints_expired += b.hints_expired;
  hints_low_value += b.hints_low_value;
  hints_redundant += b.hints_redundant;
  hints_invalid += b.hints_invalid;
  hints_queue_full += b.hints_queue_full;
  connections_needed += b.connections_needed;
  connections_ready += b.connections_ready;
  connections_late += b.connections_late;
  connections_needed_background += b.connections_needed_background;
  connections_ready_background += b.connections_ready_background;
  connections_late_background += b.connections_late_background;
  connect_wait_ms += b.connect_wait_ms;
}

nlohmann::json PredictorStats::ToJson() const {
  nlohmann::json fetch_ahead = of(SpeculativeAction::kFetchAhead).ToJson();
  fetch_ahead["warmed"] = of(SpeculativeAction::kFetchAhead).warmed;
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
      {"fetch_ahead", std::move(fetch_ahead)},
      {"connections",
       {{"needed", connections_needed},
        {"ready", connections_ready},
        {"late", connections_late},
        {"needed_background", connections_needed_background},
        {"ready_background", connections_ready_background},
        {"late_background", connections_late_background},
        {"recall", Recall()},
        // To the microsecond, as every other time in the outputs (a sum of doubles carries noise
        // in its last digits).
        {"connect_wait_ms", RoundMsForJson(connect_wait_ms)}}},
      {"precision", ConnectionTotal().Precision()},
  };
}

}  // namespace netstack
