// SimPredictorEnv: the stack over the simulated network (tests/sim's SimTestEnv) with its
// predictor, wired to the context once by ContextPredictor (target, pool observer, NetLog) as the
// programs wire theirs; the predictor is finished before the stack goes. The fixture of every
// test that drives a predictor through a simulated stack (the context target, page loads, the
// fetch box, the internals router).
#ifndef TESTS_PREDICTOR_SIM_PREDICTOR_ENV_H_
#define TESTS_PREDICTOR_SIM_PREDICTOR_ENV_H_

#include <memory>
#include <string>

#include "predictor/context_predictor.h"
#include "predictor/predictor.h"
#include "predictor/predictor_policy.h"
#include "tests/sim/sim_test_env.h"

namespace netstack::test {

class SimPredictorEnv : public SimTestEnv {
 public:
  // The stack `options` describe (SimTestEnv::Options) with the predictor of `policy` ("off",
  // "chrome", "learned": CreatePredictorPolicy's names).
  SimPredictorEnv(const SimStackOptions& options, const std::string& policy);
  // The same with a policy of the test's own (a FakePolicy); null is "off".
  SimPredictorEnv(const SimStackOptions& options, std::unique_ptr<PredictorPolicy> policy);
  // Finishes the predictor (it stops observing the pool), then unwires it; then the stack goes.
  ~SimPredictorEnv();

  ContextSpeculationTarget& target() { return *wired->target(); }

  std::unique_ptr<ContextPredictor> wired;
  Predictor* predictor = nullptr;  // wired's
};

}  // namespace netstack::test

#endif  // TESTS_PREDICTOR_SIM_PREDICTOR_ENV_H_
