#include "tools/replay/replay_config.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "net/base/string_util.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {
namespace {

// Config files are small; a bigger one is a mistake (a trace given as --config).
constexpr std::streamoff kMaxConfigBytes = 1024 * 1024;
// The longest key (a host name of 255 bytes, ':' and a key) and value Set takes (a JSON number
// as its digits: the largest double has 309). Longer ones are mistakes; refusing them first
// bounds what any message can echo.
constexpr size_t kMaxKeyBytes = 300;
constexpr size_t kMaxValueBytes = 400;

// What a message echoes of input: at most 64 bytes ("..." after a cut). The whole message is
// made one printable line by MakeOneLine (trace_json.h) before Apply returns it.
std::string Shown(std::string_view text) {
  constexpr size_t kMaxShown = 64;
  if (text.size() <= kMaxShown) return std::string(text);
  size_t cut = kMaxShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

bool ParseInt(const std::string& key, const std::string& value, int64_t lo, int64_t hi,
              int64_t* out, std::string* error) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  const std::string range =
      " is out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")";
  if (ec == std::errc::result_out_of_range && end == value.data() + value.size()) {
    *error = key + ": " + Shown(value) + range;  // more digits than int64_t holds
    return false;
  }
  if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
    *error = key + ": '" + Shown(value) + "' is not an integer";
    return false;
  }
  if (v < lo || v > hi) {
    *error = key + ": " + Shown(value) + range;
    return false;
  }
  *out = v;
  return true;
}

bool ParseOnOff(const std::string& key, const std::string& value, bool* out, std::string* error) {
  if (value == "on" || value == "true" || value == "1") {
    *out = true;
  } else if (value == "off" || value == "false" || value == "0") {
    *out = false;
  } else {
    *error = key + ": '" + Shown(value) + "' is not on or off";
    return false;
  }
  return true;
}

std::string PresetList() {
  std::string names;
  for (const std::string& n : NetworkParams::PresetNames())
    names += (names.empty() ? "" : ", ") + n;
  return names;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A JSON scalar as the text --set would take.
bool ScalarText(const nlohmann::json& v, std::string* out) {
  if (v.is_string()) {
    *out = v.get<std::string>();
  } else if (v.is_boolean()) {
    *out = v.get<bool>() ? "on" : "off";
  } else if (v.is_number_integer() || v.is_number_unsigned()) {
    *out = v.dump();
  } else if (v.is_number_float()) {
    // As plain decimals, the form --set takes: whole numbers without a fraction so integer keys
    // accept them, fractions to 9 places (finer than any key's unit), and numbers too large to
    // mean anything as their digits (then "out of range", not "not a number").
    double d = v.get<double>();
    if (!std::isfinite(d)) return false;  // the parser refuses these; kept for safety
    char buf[400];
    if (std::floor(d) == d) {
      std::snprintf(buf, sizeof(buf), "%.0f", d);
    } else {
      std::snprintf(buf, sizeof(buf), "%.9f", d);
      char* last = buf + std::strlen(buf) - 1;
      while (*last == '0') *last-- = '\0';
      if (*last == '.') *last = '\0';
    }
    *out = buf;
  } else {
    return false;
  }
  return true;
}

}  // namespace

const char* PlacementName(Placement placement) {
  return placement == Placement::kOffset ? "offset" : "dependency";
}

bool ReplayConfig::Set(const std::string& assignment, std::string* error) {
  size_t eq = assignment.find('=');
  if (eq == std::string::npos) {
    *error = "'" + Shown(assignment) + "' is not KEY=VALUE";
    return false;
  }
  return SetKey(std::string(TrimWhitespaceAscii(assignment.substr(0, eq))),
                std::string(TrimWhitespaceAscii(assignment.substr(eq + 1))), error);
}

bool ReplayConfig::SetKey(const std::string& key, const std::string& value, std::string* error) {
  if (key.empty()) {
    *error = "empty key in '=" + Shown(value) + "'";
    return false;
  }
  if (key.size() > kMaxKeyBytes) {
    *error = "key '" + Shown(key) + "' is longer than " + std::to_string(kMaxKeyBytes) + " bytes";
    return false;
  }
  if (value.size() > kMaxValueBytes) {
    *error = key + ": the value is longer than " + std::to_string(kMaxValueBytes) + " bytes ('" +
             Shown(value) + "')";
    return false;
  }
  int64_t n = 0;
  if (key == "preset") {
    if (!network.ApplyPreset(value)) {
      *error = "unknown preset '" + Shown(value) + "' (" + PresetList() + ")";
      return false;
    }
    return true;
  }
  if (key == "max_sockets_per_group") {
    if (!ParseInt(key, value, 1, 256, &n, error)) return false;
    max_sockets_per_group = static_cast<int>(n);
  } else if (key == "max_sockets") {
    if (!ParseInt(key, value, 1, 65536, &n, error)) return false;
    max_sockets = static_cast<int>(n);
  } else if (key == "cache") {
    return ParseOnOff(key, value, &cache, error);
  } else if (key == "cache_mb") {
    if (!ParseInt(key, value, 1, 4096, &n, error)) return false;
    cache_bytes = n * 1024 * 1024;
  } else if (key == "placement") {
    if (value == "dependency") {
      placement = Placement::kDependency;
    } else if (value == "offset") {
      placement = Placement::kOffset;
    } else {
      *error = "placement: '" + Shown(value) + "' is not dependency or offset";
      return false;
    }
  } else if (key == "seed") {
    if (!ParseInt(key, value, 0, INT64_MAX, &n, error)) return false;
    seed = static_cast<uint64_t>(n);
  } else if (key == "predictor" || key == "predictor_policy") {
    if (value != "off" && value != "chrome" && value != "loading" && value != "learned") {
      *error = key + ": '" + Shown(value) + "' is not off, chrome, loading or learned";
      return false;
    }
    return predictor.Set("policy", value, error);
  } else if (key.rfind("predictor_", 0) == 0) {
    // The predictor's own keys (predictor/predictor_config.h), named with a prefix so they
    // cannot collide with the network's.
    PredictorConfig changed = predictor;
    std::string e;
    const std::string bare = key.substr(10);
    if (!changed.Set(bare, value, &e)) {
      // "max_in_flight: '0' is out of range ..." names the key as given; anything else is an
      // unknown key.
      *error = e.rfind(bare + ":", 0) == 0 ? "predictor_" + e
                                           : "unknown key '" + key + "' (see docs/replay.md)";
      return false;
    }
    predictor = changed;
  } else if (key == "server_ms_from_trace") {
    return ParseOnOff(key, value, &server_ms_from_trace, error);
  } else if (key == "warm_start") {
    // Starting as the recording started (replay_config.h).
    return ParseOnOff(key, value, &warm_start, error);
  } else if (key == "cold_runs") {
    return ParseOnOff(key, value, &cold_runs, error);
  } else {
    // Network keys, with or without a host prefix ("cdn.example:rtt_ms").
    size_t colon = key.rfind(':');
    std::string bare = colon == std::string::npos ? key : key.substr(colon + 1);
    if (!NetworkParams::IsKey(bare)) {
      *error = "unknown key '" + key + "' (see docs/replay.md)";
      return false;
    }
    return network.Set(key, value, error);
  }
  return true;
}

// Reads ToJson()'s "trace_hosts" ({"a.example": {"rtt_ms": 35, "http2": "on"}}) back into the
// trace's layer of `config`'s network, checked as Set checks a host key.
static bool ApplyTraceHosts(ReplayConfig* config, const nlohmann::json& hosts, std::string* error) {
  if (!hosts.is_object()) {
    *error = "network.trace_hosts: expected an object of HOST: {KEY: value}";
    return false;
  }
  NetworkParams parsed;  // bounds the hosts as Set does (kMaxHostOverrides)
  std::string text_value;
  for (const auto& [host, keys] : hosts.items()) {
    if (!keys.is_object()) {
      *error = "network.trace_hosts." + Shown(host) + ": expected an object of KEY: value";
      return false;
    }
    for (const auto& [key, value] : keys.items()) {
      if (!ScalarText(value, &text_value)) {
        *error = "network.trace_hosts." + Shown(host) + "." + Shown(key) +
                 ": expected a string or a number";
        return false;
      }
      if (!parsed.Set(host + ":" + key, text_value, error)) {
        *error = "network.trace_hosts: " + *error;
        return false;
      }
    }
  }
  for (const auto& [host, read] : parsed.hosts) {
    HostOverrides& o = config->network.trace_hosts[host];
    if (read.rtt) o.rtt = read.rtt;
    if (read.dns) o.dns = read.dns;
    if (read.dns_ttl) o.dns_ttl = read.dns_ttl;
    if (read.server_time) o.server_time = read.server_time;
    if (read.tls) o.tls = read.tls;
    if (read.tls_session_lifetime) o.tls_session_lifetime = read.tls_session_lifetime;
    if (read.http2) o.http2 = read.http2;
  }
  return true;
}

// Applies the members of a JSON config object (the "preset" member excepted: applied first by
// the caller). A member whose value is an object is either the nested network of ToJson()
// ("network": {..., "hosts": {...}}), the "hosts" object in it, or one host's overrides
// ("cdn.example": {"rtt_ms": 20}). `prefix` names where `object` is, for messages.
static bool ApplyJsonMembers(ReplayConfig* config, const nlohmann::json& object,
                             const std::string& prefix, int depth, std::string* error) {
  // ToJson()'s network lists the keys the user set and those the trace gave: the trace's are read
  // back as the trace's, the others it writes are defaults, taken only when their value was
  // edited.
  const nlohmann::json* user_keys = nullptr;
  const nlohmann::json* trace_keys = nullptr;
  if (depth == 1 && object.contains("user_keys") && object.at("user_keys").is_array())
    user_keys = &object.at("user_keys");
  if (depth == 1 && object.contains("trace_keys") && object.at("trace_keys").is_array())
    trace_keys = &object.at("trace_keys");
  for (const auto& [key, value] : object.items()) {
    std::string text_value;
    if (key == "preset") continue;
    if (depth == 1 && (key == "user_keys" || key == "trace_keys")) continue;
    if (depth == 1 && key == "trace_hosts") {
      if (!ApplyTraceHosts(config, value, error)) return false;
      continue;
    }
    if (trace_keys && !value.is_object() && key != "preset" && NetworkParams::IsKey(key) &&
        std::find(trace_keys->begin(), trace_keys->end(), key) != trace_keys->end()) {
      // The trace's value of a global key (an estimated downlink): kept as the trace's.
      const bool users = config->network.user_keys.count(key) > 0;
      if (!ScalarText(value, &text_value)) {
        *error = prefix + Shown(key) + ": expected a string, a number or a boolean";
        return false;
      }
      if (!config->SetKey(key, text_value, error)) return false;
      if (!users) {
        config->network.user_keys.erase(key);
        config->network.trace_keys.insert(key);
      }
      continue;
    }
    if (user_keys && !value.is_object() && NetworkParams::IsKey(key) &&
        std::find(user_keys->begin(), user_keys->end(), key) == user_keys->end()) {
      ReplayConfig probe = *config;
      if (ScalarText(value, &text_value) && probe.SetKey(key, text_value, error) &&
          probe.network.ToJson().value(key, nlohmann::json()) ==
              config->network.ToJson().value(key, nlohmann::json())) {
        continue;  // unchanged: not the user's
      }
    }
    if (value.is_object()) {
      if (depth == 0 && key == "predictor_config") {
        // ToJson()'s predictor knobs: {"max_in_flight": 8, ...}.
        for (const auto& [sub_key, sub_value] : value.items()) {
          if (!ScalarText(sub_value, &text_value)) {
            *error = "predictor_config." + Shown(sub_key) + ": expected a string or a number";
            return false;
          }
          if (!config->SetKey("predictor_" + sub_key, text_value, error)) return false;
        }
        continue;
      }
      if (depth == 0 && key == "network") {
        // ToJson()'s form. A preset inside it replaces the network first, as at the top.
        if (value.contains("preset") && (!ScalarText(value.at("preset"), &text_value) ||
                                         !config->SetKey("preset", text_value, error))) {
          if (error->empty()) *error = "network.preset: expected a name";
          return false;
        }
        if (!ApplyJsonMembers(config, value, "network.", 1, error)) return false;
        continue;
      }
      bool hosts = key == "hosts";
      for (const auto& [sub_key, sub_value] : value.items()) {
        if (hosts) {
          if (!sub_value.is_object()) {
            *error = prefix + "hosts." + Shown(sub_key) + ": expected an object of KEY: value";
            return false;
          }
          for (const auto& [host_key, host_value] : sub_value.items()) {
            if (!ScalarText(host_value, &text_value)) {
              *error = prefix + "hosts." + Shown(sub_key) + "." + Shown(host_key) +
                       ": expected a string or a number";
              return false;
            }
            if (!config->SetKey(sub_key + ":" + host_key, text_value, error)) return false;
          }
          continue;
        }
        // A host's overrides.
        if (!ScalarText(sub_value, &text_value)) {
          *error = prefix + Shown(key) + "." + Shown(sub_key) + ": expected a string or a number";
          return false;
        }
        if (!config->SetKey(key + ":" + sub_key, text_value, error)) return false;
      }
      continue;
    }
    if (!ScalarText(value, &text_value)) {
      *error = prefix + Shown(key) + ": expected a string, a number or a boolean";
      return false;
    }
    if (!config->SetKey(key, text_value, error)) return false;
  }
  return true;
}

bool ReplayConfig::Apply(const std::string& spec, std::string* error) {
  bool ok = ApplySpec(spec, error);
  // One printable line, however the input looked (a binary file given as --config).
  if (!ok) MakeOneLine(error);
  return ok;
}

bool ReplayConfig::ApplySpec(const std::string& spec, std::string* error) {
  if (IsRegularFile(spec)) {
    const std::string& name = spec;  // a path that exists: at most PATH_MAX, shown whole
    std::ifstream in(spec, std::ios::binary);
    if (!in) {
      *error = name + ": cannot open: " + std::strerror(errno);
      return false;
    }
    in.seekg(0, std::ios::end);
    std::streamoff size = in.tellg();
    if (size > kMaxConfigBytes) {
      *error = name + ": larger than 1 MiB: not a config file";
      return false;
    }
    in.seekg(0);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
      // ParseJsonText never throws: a number too large for a double ("1e400"), a NUL byte and
      // nesting deeper than kMaxJsonDepth are errors with a place, like any syntax error.
      nlohmann::json j;
      JsonSyntaxError syntax;
      if (!ParseJsonText(text, &j, &syntax)) {
        *error = name + ":" + std::to_string(syntax.line) + ":" + std::to_string(syntax.column) +
                 ": JSON syntax error: " + syntax.message;
        return false;
      }
      if (!j.is_object()) {
        *error = name + ": expected a JSON object of KEY: value, got " + JsonTypeName(j);
        return false;
      }
      // A preset replaces the whole network: applied first, whatever the keys' order.
      if (j.contains("preset")) {
        std::string text_value, e;
        if (!ScalarText(j["preset"], &text_value) || !SetKey("preset", text_value, &e)) {
          *error = name + ": " + (e.empty() ? "preset: expected a name" : e);
          return false;
        }
      }
      std::string e;
      if (!ApplyJsonMembers(this, j, "", /*depth=*/0, &e)) {
        *error = name + ": " + e;
        return false;
      }
      return true;
    }
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
      ++number;
      size_t hash = line.find('#');
      if (hash != std::string::npos) line.erase(hash);
      line = std::string(TrimWhitespaceAscii(line));
      if (line.empty()) continue;
      std::string e;
      if (!Set(line, &e)) {
        *error = name + ":" + std::to_string(number) + ": " + e;
        return false;
      }
    }
    return true;
  }
  if (spec.find('=') != std::string::npos) {
    std::string item;
    std::istringstream list(spec);
    while (std::getline(list, item, ',')) {
      if (TrimWhitespaceAscii(item).empty()) continue;
      if (!Set(std::string(TrimWhitespaceAscii(item)), error)) return false;
    }
    return true;
  }
  if (network.ApplyPreset(spec)) return true;
  *error = "'" + Shown(spec) + "' is not a config file, a KEY=VALUE list or a preset (" +
           PresetList() + ")";
  return false;
}

nlohmann::json ReplayConfig::ToJson() const {
  nlohmann::json j;
  j["network"] = network.ToJson();
  j["max_sockets_per_group"] = max_sockets_per_group;
  j["max_sockets"] = max_sockets;
  j["cache"] = cache ? "on" : "off";
  j["cache_mb"] = cache_bytes / (1024 * 1024);
  j["placement"] = PlacementName(placement);
  j["seed"] = seed;
  j["predictor"] = predictor.policy;
  j["predictor_config"] = predictor.ToJson();
  j["server_ms_from_trace"] = server_ms_from_trace ? "on" : "off";
  j["warm_start"] = warm_start ? "on" : "off";
  j["cold_runs"] = cold_runs ? "on" : "off";
  return j;
}

std::string ReplayConfig::Describe() const {
  auto ms = [](TimeDelta d) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g ms", ToMilliseconds(d));
    return std::string(buf);
  };
  auto rate = [](int64_t bps) {
    if (bps <= 0) return std::string("unlimited");
    char buf[32];
    if (bps >= 1'000'000) {
      std::snprintf(buf, sizeof(buf), "%g Mbit/s", static_cast<double>(bps) / 1e6);
    } else {
      std::snprintf(buf, sizeof(buf), "%g kbit/s", static_cast<double>(bps) / 1e3);
    }
    return std::string(buf);
  };
  const HostParams& d = network.defaults;
  std::string s = "rtt " + ms(d.rtt) + ", dns " + ms(d.dns) + ", tls " + TlsVersionName(d.tls) +
                  ", server " + ms(d.server_time) + ", down " + rate(network.downlink_bps) +
                  ", up " + rate(network.uplink_bps) + ", cwnd " +
                  std::to_string(network.initial_cwnd_segments) + ", " +
                  std::to_string(max_sockets_per_group) + "/group, cache " +
                  (cache ? "on" : "off") + ", " + PlacementName(placement);
  if (network.radio.enabled) s += ", radio";
  // Named only when switched from their defaults.
  if (!warm_start) s += ", warm start off";
  if (!cold_runs) s += ", cold runs off";
  if (network.http2_mode != Http2Mode::kAuto)
    s += std::string(", http2 ") + Http2ModeName(network.http2_mode);
  auto scale = [&](const char* name, double value) {
    if (value == 1) return;
    char buf[48];
    std::snprintf(buf, sizeof(buf), ", %s x%g", name, value);
    s += buf;
  };
  scale("rtt", network.rtt_scale);
  scale("dns", network.dns_scale);
  scale("server", network.server_scale);
  scale("bandwidth", network.bandwidth_scale);
  if (!network.hosts.empty())
    s += " (+" + std::to_string(network.hosts.size()) + " host override" +
         (network.hosts.size() == 1 ? "" : "s") + ")";
  return s;
}

}  // namespace netstack
