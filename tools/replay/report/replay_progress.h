// The progress line of a long replay on stderr: requests, pages, virtual time and simulated
// requests per second, rewritten in place with '\r' at most a few times a second of wall
// time, ended with a newline. Wall time is read here only: it never reaches deterministic
// outputs.
#ifndef TOOLS_REPLAY_REPORT_REPLAY_PROGRESS_H_
#define TOOLS_REPLAY_REPORT_REPLAY_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "tools/replay/replay_result.h"

namespace netstack {

class ReplayProgress {
 public:
  // `out` (not owned) gets the line; a disabled progress prints nothing.
  ReplayProgress(FILE* out, bool enabled);

  // How often the engine should call Update (completed requests between calls).
  static constexpr uint64_t kEvery = 512;

  // Totals of the run in progress; `done` are totals of runs already finished (several traces
  // or compare's first run), `label` prefixes the line ("A", "B", a trace name).
  void Update(const ReplayTotals& totals, const ReplayTotals& done, const std::string& label);
  // Ends the line (a newline) if anything was printed.
  void Finish();

  // The line for `requests`, `pages`, `virtual_ms` after `wall_s` seconds (for tests).
  static std::string Line(const std::string& label, uint64_t requests, uint64_t pages,
                          double virtual_ms, double wall_s);

 private:
  FILE* const out_;
  const bool enabled_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_{};
  bool printed_ = false;
  size_t last_width_ = 0;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPLAY_PROGRESS_H_
