#include "tools/netstack/page_predictor.h"

#include <algorithm>
#include <vector>

#include "net/base/net_error.h"
#include "predictor/policy_util.h"
#include "tools/netstack/cache_loop.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {

PagePredictor::PagePredictor(const PredictorConfig& config, LiveStack* stack,
                             const std::string& db_path, FILE* warn)
    : stack_(stack), warn_(warn) {
  context_predictor_ =
      std::make_unique<ContextPredictor>(config, stack_->context(), stack_->net_log());
  predictor_ = context_predictor_->predictor();
  PredictorPolicy* policy = predictor_->policy();
  if (!policy || db_path.empty()) return;

  std::string error;
  store_ = PredictorStore::Open(db_path, &error);
  std::vector<PredictorRow> rows;
  size_t skipped = 0;
  if (store_ && !store_->Load(policy->name(), &rows, &skipped, &error)) store_.reset();
  if (!store_) {
    // Not saved either: the file stays as it was, for inspection.
    std::fprintf(warn_,
                 "netstack: warning: predictor database %s is unusable (%s); the predictor runs "
                 "without learned state and saves nothing this run\n",
                 TerminalSafe(db_path).c_str(), TerminalSafe(error).c_str());
    return;
  }
  // Row ages count from the last save; the time since (another process, hours or days ago)
  // must decay the estimates too, so the rows are loaded as of "now - the wall-clock gap".
  const TimeTicks now = stack_->scheduler().Now();
  Time saved_at;
  const bool stamped = FindSavedAt(rows, &saved_at);
  const TimeTicks load_at = stamped ? LoadTimeAfterGap(now, stack_->clock().Now(), saved_at) : now;
  size_t policy_skipped = 0;
  policy->LoadRows(rows, load_at, &policy_skipped);
  const size_t meta_rows = static_cast<size_t>(std::count_if(
      rows.begin(), rows.end(), [](const PredictorRow& r) { return r.table == kMetaTable; }));
  rows_loaded_ = rows.size() - std::min(rows.size(), policy_skipped + meta_rows);
  rows_skipped_ = skipped + policy_skipped;
}

PagePredictor::~PagePredictor() {
  Finish();
  context_predictor_.reset();
  // The store joins its thread; nothing of it is queued any more (Save waited).
  store_.reset();
}

void PagePredictor::Save() {
  PredictorPolicy* policy = predictor_->policy();
  if (!store_ || !policy) return;
  std::vector<PredictorRow> rows = policy->SaveRows();
  rows_saved_ = rows.size();
  rows.push_back(MakeSavedAtRow(stack_->clock().Now()));
  LoopSignal done(stack_->loop());
  int result = ERR_IO_PENDING;
  store_->Save(policy->name(), std::move(rows), stack_->poster(), [&done, &result](int rv) {
    result = rv;
    done.Set();
  });
  RunLoopUntil(stack_->loop(), stack_->poster(), done);
  if (result != OK) {
    rows_saved_ = 0;
    std::fprintf(warn_, "netstack: warning: cannot save the predictor's tables: %s\n",
                 TerminalSafe(store_->last_error()).c_str());
  }
}

void PagePredictor::Finish() {
  if (finished_) return;
  finished_ = true;
  predictor_->Finish();
}

nlohmann::json PagePredictor::ToJson() const {
  return {{"policy", predictor_->config().policy},
          {"persisted", store_ != nullptr},
          {"rows_loaded", rows_loaded_},
          {"rows_skipped", rows_skipped_},
          {"rows_saved", rows_saved_},
          {"stats", predictor_->stats().ToJson()}};
}

}  // namespace netstack
