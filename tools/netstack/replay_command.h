// `netstack replay`: replays traces with the ReplayEngine (tools/replay) and writes what the
// options ask for: the terminal summary, --json lines, the --report page, the --netlog file,
// and with --compare the paired comparison of two configurations (docs/replay.md).
#ifndef TOOLS_NETSTACK_REPLAY_COMMAND_H_
#define TOOLS_NETSTACK_REPLAY_COMMAND_H_

#include <cstdio>
#include <string>

#include "tools/netstack/replay_options.h"
#include "tools/netstack/replay_outputs.h"

namespace netstack {

// Runs the replay of validated `options`; the summary goes to `out` (to `err` when --json
// writes to stdout), the progress line and error lines ("netstack: <where>: <problem>") to
// `err`. `command_line` goes into the NetLog's constants. Returns the exit status: 0 replayed,
// 1 the replay failed (it stalled, an output could not be written, too many pages to compare),
// 2 bad input (a malformed or unreadable trace, an unwritable output path).
int RunReplayCommand(const ReplayOptions& options, const std::string& command_line, FILE* out,
                     FILE* err);

// The outputs validated `options` ask for (with --shard, a shard file's summary member:
// {"index", "count", "traces", "network", "request_lines"}).
ReplayOutputSpec ReplayOutputSpecOf(const ReplayOptions& options);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_REPLAY_COMMAND_H_
