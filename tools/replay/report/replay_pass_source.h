// Where a replay command's records come from, pass by pass: the engine replaying traces
// (`netstack replay`) or shard files read back (`netstack merge`, `replay --jobs`). The outputs
// (tools/netstack/replay_outputs.h) are built once from either, so both write the same bytes.
#ifndef TOOLS_REPLAY_REPORT_REPLAY_PASS_SOURCE_H_
#define TOOLS_REPLAY_REPORT_REPLAY_PASS_SOURCE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/replay/replay_result.h"

namespace netstack {

class ReplayJsonWriter;

// One pass: every trace under one configuration (the replay, or --compare's A or B).
struct ReplayPass {
  // 0: the replay; 1, 2: --compare's A and B.
  int run = 0;
  std::vector<ReplayObserver*> observers;
  // Shard files only (`replay --shard`): gets one "trace" line after each trace's lines.
  ReplayJsonWriter* trace_lines = nullptr;
  ReplayTotals totals;
  nlohmann::json traces = nlohmann::json::array();  // [{"path", "config"}], in trace order
  std::string error;                                // one line, when the pass failed
  int exit_code = 0;                                // 2: bad input; 1: the replay failed
};

class ReplayPassSource {
 public:
  virtual ~ReplayPassSource() = default;
  // Feeds every page and request of `pass->run`'s traces, in trace order, to the pass's
  // observers, and fills its totals and traces. False with pass->error and exit_code.
  virtual bool RunPass(ReplayPass* pass) = 0;
  // Ends the progress line, if the source shows one (before the summary or an error).
  virtual void FinishProgress() {}
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPLAY_PASS_SOURCE_H_
