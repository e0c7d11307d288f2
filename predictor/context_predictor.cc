#include "predictor/context_predictor.h"

#include <utility>

#include "net/http/url_request_context.h"

namespace netstack {

ContextPredictor::ContextPredictor(const PredictorConfig& config, UrlRequestContext* context,
                                   NetLog* net_log)
    : target_(std::make_unique<ContextSpeculationTarget>(context)),
      predictor_(
          std::make_unique<Predictor>(config, context->scheduler(), target_.get(), net_log)) {
  predictor_->Observe(context->socket_pool());
}

ContextPredictor::ContextPredictor(const PredictorConfig& config, UrlRequestContext* context,
                                   NetLog* net_log, std::unique_ptr<PredictorPolicy> policy)
    : target_(std::make_unique<ContextSpeculationTarget>(context)),
      predictor_(std::make_unique<Predictor>(config, context->scheduler(), target_.get(), net_log,
                                             std::move(policy))) {
  predictor_->Observe(context->socket_pool());
}

ContextPredictor::~ContextPredictor() {
  // The predictor stops observing the pool and goes before the target it acts through.
  predictor_.reset();
  target_.reset();
}

}  // namespace netstack
