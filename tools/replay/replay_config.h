// ReplayConfig: everything `--set KEY=VALUE`, `--config FILE` and presets can change in a replay:
// the modelled network (net/sim/network_params.h keys, with their "HOST:KEY" form) and the stack
// and replay settings below.
//
// Stack and replay keys:
//   max_sockets_per_group (6; 1..256), max_sockets (256; 1..65536), cache (on | off),
//   cache_mb (10, the memory backend's size; 1..4096), placement (dependency | offset),
//   seed (0), predictor (off | chrome | loading | learned: PredictorConfig::policy), predictor_KEY (any
//   key of PredictorConfig::Set: predictor_max_in_flight=4, ...), server_ms_from_trace (on |
//   off: use per-entry server times recorded in the trace when present, except for hosts whose
//   server_ms the user set: NetworkParams::UserSetServerTime; server_scale applies to them)
// Starting as the recording started (docs/replay.md, "Warm start and cold runs"):
//   warm_start (on | off: open the connections the recording shows already open before each
//   page starts), cold_runs (on | off: a recorded new run after a trace's first page gets a
//   fresh stack)
// plus `preset=NAME` (the network of a preset, NetworkParams::ApplyPreset: the trace's values
// are kept).
// Every network key set here is the user's (NetworkParams::user_keys, hosts): the trace's values
// added later (--estimate, recorded protocols) yield to it.
#ifndef TOOLS_REPLAY_REPLAY_CONFIG_H_
#define TOOLS_REPLAY_REPLAY_CONFIG_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "net/sim/network_params.h"
#include "predictor/predictor_config.h"

namespace netstack {

enum class Placement {
  kDependency,  // a request starts gap_ms after the entry that revealed it ends (default)
  kOffset,      // a request starts at its recorded offset from the page's start
};

// "dependency" | "offset".
const char* PlacementName(Placement placement);

struct ReplayConfig {
  NetworkParams network;
  int max_sockets_per_group = 6;
  int max_sockets = 256;
  bool cache = true;
  int64_t cache_bytes = 10 * 1024 * 1024;
  Placement placement = Placement::kDependency;
  uint64_t seed = 0;
  // The predictor's policy and knobs ("predictor" sets predictor.policy).
  PredictorConfig predictor;
  bool server_ms_from_trace = true;
  // Starting as the recording started. warm_start: before a page starts, open the connections
  // its entries' TraceEntry::recorded_warm_connection marks (their time is not the page's).
  // cold_runs: a page with TracePage::new_run that is not its trace's first gets a fresh stack
  // (cache, pools, host cache, TLS sessions, predictor).
  bool warm_start = true;
  bool cold_runs = true;

  // Applies "KEY=VALUE" (one --set); a network key goes to `network`. False with a one-line
  // `error` naming the key or value ("unknown key 'rt_ms'", "rtt_ms: -1 is out of range
  // (0..60000)"), the config unchanged. A key longer than 300 bytes or a value longer than 400
  // is refused; messages echo at most 64 bytes of either.
  bool Set(const std::string& assignment, std::string* error);
  // Applies KEY and VALUE already split (Set's second half).
  bool SetKey(const std::string& key, const std::string& value, std::string* error);
  // Applies a config spec, in this order of interpretation:
  //   - an existing file: a JSON object of KEY: value (a value that is an object is a host's
  //     overrides: {"cdn.example": {"rtt_ms": 20}}; ToJson()'s nested form {"network": {...,
  //     "hosts": {"cdn.example": {...}}}, ...} is read too, so a --json summary's config can be
  //     given back: its "trace_hosts" and "trace_keys" are read as the trace's values, and a
  //     network key outside its "user_keys" only when edited, so each value keeps where it
  //     came from), or lines of KEY=VALUE with '#' comments;
  //   - text with '=': an inline list "KEY=VALUE,KEY=VALUE";
  //   - a preset name (the network of NetworkParams::Preset).
  // False with a one-line `error` naming the file and line ("a.conf:3: unknown key 'x'",
  // "c.json:1:12: JSON syntax error: number overflow parsing '1e400'"), or the spec when it is
  // none of these; the config may be partly applied then. Never throws. Bounds: a file of at
  // most 1 MiB, JSON nested at most kMaxJsonDepth (256) levels, keys of at most 300 bytes and
  // values of at most 400; a message echoes at most 64 bytes of any input and is one printable
  // line (control characters and invalid UTF-8 as '?').
  bool Apply(const std::string& spec, std::string* error);

  // Everything, network included ({"network": NetworkParams::ToJson(), "max_sockets": ...,
  // "predictor": the policy's name, "predictor_config": PredictorConfig::ToJson()}). Apply()
  // reads it back.
  nlohmann::json ToJson() const;
  // One line for the terminal summary: "rtt 40 ms, dns 40 ms, tls 1.3, server 30 ms, down
  // 10 Mbit/s, up 10 Mbit/s, cwnd 10, 6/group, cache on, dependency (+3 host overrides)", with
  // ", radio", ", warm start off", ", cold runs off" and ", http2 on|off" (not auto) before the
  // overrides when set.
  std::string Describe() const;

 private:
  // Apply, before its message is made one line.
  bool ApplySpec(const std::string& spec, std::string* error);
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_CONFIG_H_
