#include "tests/replay/replay_command_run.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tools/netstack/replay_command.h"
#include "tools/netstack/replay_options.h"

namespace netstack {
namespace test {

ReplayCommandRun RunReplayCommandLine(const std::vector<std::string>& args,
                                      const std::function<void(ReplayOptions*)>& adjust) {
  ReplayCommandRun run;
  ReplayOptions options;
  std::string message;
  if (!ParseReplayArgs(args, &options, &message)) {
    run.code = 2;
    run.err = "netstack: " + message + "\n";
    return run;
  }
  if (adjust) adjust(&options);
  char *out_buf = nullptr, *err_buf = nullptr;
  size_t out_size = 0, err_size = 0;
  FILE* out = open_memstream(&out_buf, &out_size);
  FILE* err = open_memstream(&err_buf, &err_size);
  run.code = RunReplayCommand(options, "netstack replay (test)", out, err);
  std::fclose(out);
  std::fclose(err);
  run.out.assign(out_buf, out_size);
  run.err.assign(err_buf, err_size);
  std::free(out_buf);
  std::free(err_buf);
  return run;
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace test
}  // namespace netstack
