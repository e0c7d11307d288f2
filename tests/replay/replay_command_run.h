// Runs `netstack replay` in-process for the command-level tests (replay_cli_tests): the
// arguments parsed as main parses them, the command run with its stdout and stderr captured.
#ifndef TESTS_REPLAY_REPLAY_COMMAND_RUN_H_
#define TESTS_REPLAY_REPLAY_COMMAND_RUN_H_

#include <functional>
#include <string>
#include <vector>

#include "tools/netstack/replay_options.h"

namespace netstack {
namespace test {

struct ReplayCommandRun {
  int code = -1;         // the exit status
  std::string out, err;  // what the command wrote to stdout and stderr
};

// `netstack replay ARGS...` (without the program and command names): ParseReplayArgs, then
// RunReplayCommand. A parse error gives exit 2 and "netstack: MESSAGE\n" on err, as main does.
// `adjust`, when given, changes the parsed options before the run (what no flag sets: bounds
// tests lower).
ReplayCommandRun RunReplayCommandLine(const std::vector<std::string>& args,
                                      const std::function<void(ReplayOptions*)>& adjust = nullptr);

// The whole content of the file at `path` ("" when it cannot be read).
std::string ReadWholeFile(const std::string& path);

}  // namespace test
}  // namespace netstack

#endif  // TESTS_REPLAY_REPLAY_COMMAND_RUN_H_
