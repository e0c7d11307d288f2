// `netstack replay --jobs N`: the traces replayed by worker processes, each trace by one worker
// on its own stack and virtual clock. The workers take traces from a shared queue as they
// finish the last one (so one long trace does not leave the others idle), each trace t of T
// into its own temporary shard file `--shard t/T` (exact numbers; request lines only when an
// output needs them); the parent waits for them and merges the files in trace order with
// `netstack merge`'s code, so every output is byte-identical to --jobs 1's but the summary's
// time lines (docs/replay.md, "Every core: --jobs"). Past ShardSet::kMaxFiles traces a unit of
// work is a round-robin share of the traces instead of one trace.
#ifndef TOOLS_NETSTACK_REPLAY_JOBS_H_
#define TOOLS_NETSTACK_REPLAY_JOBS_H_

#include <cstdio>
#include <functional>
#include <string>

#include "tools/netstack/replay_options.h"

namespace netstack {

// Replays validated `options` (jobs > 1) in worker processes. `replay` runs one worker's share
// (RunReplay without the internals page), writing its errors to the FILE it is given. The
// temporary files (a folder under $TMPDIR, else /tmp) are removed on every exit path,
// SIGINT and SIGTERM included (the workers are then killed). With replay's progress line on
// (a terminal or --progress, not --quiet), a line counts the traces done. Returns the exit status
// --jobs 1 would: on a failing trace, its worker's message and status (the lowest failing trace's
// when several fail); a worker killed by a signal is an error naming its trace (1).
using WorkerReplay = std::function<int(const ReplayOptions& options, FILE* out, FILE* err)>;
int RunReplayJobs(const ReplayOptions& options, const WorkerReplay& replay, FILE* out, FILE* err);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_REPLAY_JOBS_H_
