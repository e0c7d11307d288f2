// The predictor of one `fetch --page` run (and of `internals` and the fetch box): its policy
// and config from the options, wired to the stack's context by a ContextPredictor (target and
// pool observer), and the learned tables loaded from and saved to the profile's predictor.db
// (docs/fetch.md "The predictor and the profile").
//
// Persistence never fails a fetch: a predictor.db that cannot be opened or read gives one
// warning line on stderr, and the run goes on without learned state and does not write the
// file (it is left exactly as it was, for inspection).
#ifndef TOOLS_NETSTACK_PAGE_PREDICTOR_H_
#define TOOLS_NETSTACK_PAGE_PREDICTOR_H_

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "net/http/live_stack.h"
#include "predictor/context_predictor.h"
#include "predictor/predictor.h"
#include "predictor/predictor_store.h"

namespace netstack {

class PagePredictor {
 public:
  // Builds the predictor for `config` on `stack` (which must outlive this object) and
  // registers it with the pool. With `db_path` non-empty and a policy other than "off", opens
  // the database and loads the policy's rows (before the loop runs); warnings go to `warn`.
  PagePredictor(const PredictorConfig& config, LiveStack* stack, const std::string& db_path,
                FILE* warn);
  // Unregisters from the pool (after Finish if not called).
  ~PagePredictor();
  PagePredictor(const PagePredictor&) = delete;
  PagePredictor& operator=(const PagePredictor&) = delete;

  Predictor* predictor() { return predictor_; }

  // Saves the policy's rows (when a database was loaded) on the store's thread and runs the
  // loop until the save's answer arrives through the stack's poster. Call after the page
  // load, outside loop callbacks. A failed save is one warning line.
  void Save();
  // Ends the accounting (Predictor::Finish). Call before the pool's idle sockets are closed, so
  // closing them is not counted against the predictor twice.
  void Finish();

  // {"policy", "persisted": bool, "rows_loaded", "rows_skipped", "rows_saved", "stats"}.
  nlohmann::json ToJson() const;

 private:
  LiveStack* const stack_;
  FILE* const warn_;
  std::unique_ptr<ContextPredictor> context_predictor_;
  Predictor* predictor_ = nullptr;  // context_predictor_'s
  std::unique_ptr<PredictorStore> store_;
  size_t rows_loaded_ = 0;
  size_t rows_skipped_ = 0;
  size_t rows_saved_ = 0;
  bool finished_ = false;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_PAGE_PREDICTOR_H_
