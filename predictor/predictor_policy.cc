#include "predictor/predictor_policy.h"

#include "predictor/chrome_policy.h"
#include "predictor/learned_policy.h"
#include "predictor/loading_policy.h"
#include "predictor/predictor_config.h"

namespace netstack {

const char* PredictorOutcomeName(PredictorPolicy::Outcome outcome) {
  switch (outcome) {
    case PredictorPolicy::Outcome::kUsed:
      return "used";
    case PredictorPolicy::Outcome::kLate:
      return "late";
    case PredictorPolicy::Outcome::kWasted:
      return "wasted";
  }
  return "unknown";
}

std::unique_ptr<PredictorPolicy> CreatePredictorPolicy(const PredictorConfig& config) {
  if (config.policy == "chrome") return std::make_unique<ChromePolicy>(config);
  if (config.policy == "loading") return std::make_unique<LoadingPolicy>(config);
  if (config.policy == "learned") return std::make_unique<LearnedPolicy>(config);
  return nullptr;  // "off" (PredictorConfig::Set accepts nothing else)
}

}  // namespace netstack
