// ReplayConfig: everything `--set KEY=VALUE`, `--config FILE` and presets can change in a replay:
// the modelled network (net/sim/network_params.h keys) and the stack and replay settings below.
//
// Stack and replay keys:
//   max_sockets_per_group (6), max_sockets (256), cache (on | off), cache_mb (10, the memory
//   backend's size), placement (dependency | offset), seed (0), predictor (off; later issues add
//   chrome | learned), server_ms_from_trace (on | off: use per-entry server times recorded in
//   the trace when present)
#ifndef TOOLS_REPLAY_REPLAY_CONFIG_H_
#define TOOLS_REPLAY_REPLAY_CONFIG_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "net/sim/network_params.h"

namespace netstack {

enum class Placement {
  kDependency,  // a request starts gap_ms after the entry that revealed it ends (default)
  kOffset,      // a request starts at its recorded offset from the page's start
};

struct ReplayConfig {
  NetworkParams network;
  int max_sockets_per_group = 6;
  int max_sockets = 256;
  bool cache = true;
  int64_t cache_bytes = 10 * 1024 * 1024;
  Placement placement = Placement::kDependency;
  uint64_t seed = 0;
  std::string predictor = "off";
  bool server_ms_from_trace = true;

  // Applies "KEY=VALUE" (one --set); a network key goes to `network`. False with a one-line
  // `error` naming the key or value.
  bool Set(const std::string& assignment, std::string* error);
  // Applies a config: either a file path (a JSON object of KEY: value, or lines of KEY=VALUE,
  // '#' comments) or an inline list "KEY=VALUE,KEY=VALUE" or a preset name. Errors name the
  // file and line.
  bool Apply(const std::string& spec, std::string* error);

  nlohmann::json ToJson() const;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_CONFIG_H_
