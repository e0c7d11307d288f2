// Runs the `netstack` binary (built by the tools/netstack target) as a child process and
// parses its documented output (docs/fetch.md): --json records, one object per line.
#ifndef TESTS_INTEGRATION_NETSTACK_CLI_H_
#define TESTS_INTEGRATION_NETSTACK_CLI_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/integration/process_runner.h"

namespace netstack::test {

// The binary under test: $NETSTACK_BIN if set, else the path compiled in by CMake.
std::string NetstackBinary();

struct NetstackRun {
  ProcessResult process;
  // Every stdout line that parsed as a JSON object, in order.
  std::vector<nlohmann::json> records;
  // Lines of stdout that were not JSON objects (with --json there should be none).
  std::vector<std::string> other_lines;

  int exit_code() const { return process.exit_code; }
  // stderr split into non-empty lines.
  std::vector<std::string> StderrLines() const;
  // The distinct socket.id values of the records (records without one are skipped).
  std::set<int64_t> SocketIds() const;
  // How many records have socket.reused == true.
  int ReusedCount() const;
  // For failure messages.
  std::string Describe() const { return process.Describe(); }
};

// Runs `netstack <args...>` with a hard timeout (the child is killed when it passes, so a hang
// fails the test instead of blocking CI). `env` changes the child's environment as RunProcess
// does ("NAME=value" sets, a bare "NAME" removes). Unless `args` name --profile or --private or
// `env` sets XDG_CACHE_HOME, the run gets XDG_CACHE_HOME set to a fresh temp dir removed
// afterwards: its default profile (the disk cache) is its own, never ~/.cache or another
// run's, so runs are independent and parallel test processes never share a cache.
NetstackRun RunNetstack(const std::vector<std::string>& args,
                        std::chrono::milliseconds timeout = std::chrono::seconds(60),
                        const std::vector<std::string>& env = {});

// Runs `netstack fetch --json <args...>`.
NetstackRun RunFetchJson(const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout = std::chrono::seconds(60),
                         const std::vector<std::string>& env = {});

// Reads a JSON value at a "/"-separated path ("socket/id") or returns `fallback` when absent or
// of another type. Keeps test assertions short and never throws.
int64_t JsonInt(const nlohmann::json& j, const std::string& path, int64_t fallback = -1);
std::string JsonString(const nlohmann::json& j, const std::string& path,
                       const std::string& fallback = "");
bool JsonBool(const nlohmann::json& j, const std::string& path, bool fallback = false);
double JsonNumber(const nlohmann::json& j, const std::string& path, double fallback = -1);
bool JsonIsNull(const nlohmann::json& j, const std::string& path);

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_NETSTACK_CLI_H_
