// `netstack replay --sweep ... --sweep-dir DIR`: runs each point of the grid (replay_sweep.h)
// as its own `netstack replay` — the options with the point's assignments appended to --set and
// --json DIR/NNN.jsonl, through RunReplayCommand, the same code path as a plain replay — then
// reads each point's summary line into the table (replay_sweep_table.h) and writes
// DIR/sweep.tsv and DIR/sweep.json. A failing point stops the sweep; Ctrl-C (SIGINT or SIGTERM)
// stops it too. Either way the finished points' files are kept, the stopped point's are
// removed, and the message names the point (docs/replay.md, "Sweeps").
#ifndef TOOLS_NETSTACK_REPLAY_SWEEP_RUN_H_
#define TOOLS_NETSTACK_REPLAY_SWEEP_RUN_H_

#include <cstdio>
#include <string>

#include "tools/netstack/replay_options.h"

namespace netstack {

// Runs the sweep of validated `options` (options.sweeps not empty). The table goes to `out`
// (not with --quiet); each point's start ("sweep point 3 of 9: rtt_ms=80 predictor=chrome")
// and its progress line go to `err` when progress is shown (stderr a terminal, or --progress).
// Errors are one line on `err` naming the point: "netstack: sweep point 2 of 9 (rtt_ms=160):
// t.jsonl:3: ...". Returns 0, the failing point's exit status, 2 when DIR is not a new or empty
// folder, 1 when the table cannot be written. On SIGINT/SIGTERM it removes the running point's
// files, prints which point stopped, and dies of the signal as an unswept replay would.
int RunReplaySweep(const ReplayOptions& options, const std::string& command_line, FILE* out,
                   FILE* err);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_REPLAY_SWEEP_RUN_H_
