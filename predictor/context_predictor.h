// ContextPredictor: the predictor of one UrlRequestContext, wired once for every tool: a
// ContextSpeculationTarget over the context, a Predictor acting through it, observing the
// context's socket pool. `fetch --page`, `internals` (PagePredictor) and `replay`
// (ReplayPredictor) own one; events go to predictor().
//
// Destruction (or Predictor::Finish before it) stops observing the pool; the target is destroyed
// after the predictor acting through it, cancelling its pre-resolves and fetches. Destroy it
// before the context.
#ifndef PREDICTOR_CONTEXT_PREDICTOR_H_
#define PREDICTOR_CONTEXT_PREDICTOR_H_

#include <memory>

#include "net/base/net_log.h"
#include "predictor/context_speculation_target.h"
#include "predictor/predictor.h"
#include "predictor/predictor_config.h"
#include "predictor/predictor_policy.h"

namespace netstack {

class UrlRequestContext;

class ContextPredictor {
 public:
  // The predictor for `config` (its policy from CreatePredictorPolicy) on `context`'s scheduler
  // and pool. `context` and `net_log` (may be null: no predictor events) must outlive it.
  ContextPredictor(const PredictorConfig& config, UrlRequestContext* context, NetLog* net_log);
  // The same with a given policy (null: "off"), for tests.
  ContextPredictor(const PredictorConfig& config, UrlRequestContext* context, NetLog* net_log,
                   std::unique_ptr<PredictorPolicy> policy);
  ~ContextPredictor();
  ContextPredictor(const ContextPredictor&) = delete;
  ContextPredictor& operator=(const ContextPredictor&) = delete;

  // The predictor, owned here; never null (with the "off" policy it observes and never acts).
  Predictor* predictor() const { return predictor_.get(); }
  // The target the predictor acts through, owned here; never null.
  ContextSpeculationTarget* target() const { return target_.get(); }

 private:
  // Declared first so it goes last: the predictor acts through it.
  std::unique_ptr<ContextSpeculationTarget> target_;
  std::unique_ptr<Predictor> predictor_;
};

}  // namespace netstack

#endif  // PREDICTOR_CONTEXT_PREDICTOR_H_
