#include "tests/predictor/sim_predictor_env.h"

#include <utility>

#include "predictor/predictor_config.h"

namespace netstack::test {

namespace {

PredictorConfig ConfigFor(const std::string& policy) {
  PredictorConfig config;
  config.policy = policy;
  return config;
}

}  // namespace

SimPredictorEnv::SimPredictorEnv(const SimStackOptions& options, const std::string& policy)
    : SimTestEnv(options),
      wired(std::make_unique<ContextPredictor>(ConfigFor(policy), context, &net_log)),
      predictor(wired->predictor()) {}

SimPredictorEnv::SimPredictorEnv(const SimStackOptions& options,
                                 std::unique_ptr<PredictorPolicy> policy)
    : SimTestEnv(options),
      wired(std::make_unique<ContextPredictor>(PredictorConfig(), context, &net_log,
                                               std::move(policy))),
      predictor(wired->predictor()) {}

SimPredictorEnv::~SimPredictorEnv() {
  predictor->Finish();
  wired.reset();
}

}  // namespace netstack::test
