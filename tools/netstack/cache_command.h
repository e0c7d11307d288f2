// `netstack cache ls|show URL|rm URL|clear|stats [--profile DIR]`: the command-line
// chrome://cache over a profile's disk cache (docs/cache.md).
#ifndef TOOLS_NETSTACK_CACHE_COMMAND_H_
#define TOOLS_NETSTACK_CACHE_COMMAND_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace netstack {

struct CacheCommandOptions {
  std::string action;       // "ls" | "show" | "rm" | "clear" | "stats" (set by AddCacheCommand)
  std::string url;          // show, rm: a URL (its cache key) or a key as `ls` prints it
  std::string profile_dir;  // "" means DefaultProfileDir()
  bool json = false;        // ls, stats
  bool hex = false;         // show: the body as a hex dump even if it is text
  bool raw = false;         // show: the body as stored, not decoded of its Content-Encoding
  std::string max_bytes_text = "1M";  // show: --max-bytes as given
  int64_t max_bytes = 0;  // show: parsed from max_bytes_text by RunCacheCommand; 0: no limit
};

// Adds the `cache` subcommand and its own subcommands to `app`, bound to `options`. Returns the
// `cache` subcommand (parsed() tells whether it ran).
CLI::App* AddCacheCommand(CLI::App* app, CacheCommandOptions* options);

// Runs the parsed command. Output goes to stdout; warnings and errors are one line each on
// stderr ("netstack: ..."). Returns the exit status: 0 done; 1 the profile is missing, in use by
// another netstack or unusable, the cache cannot be opened, or `rm`/`show` found no such entry;
// 2 bad usage (a URL that does not parse, a bad --max-bytes). `show` prints what it can of a
// body that fails to read or decode midway, then the error (exit 1).
int RunCacheCommand(const CacheCommandOptions& options);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_CACHE_COMMAND_H_
