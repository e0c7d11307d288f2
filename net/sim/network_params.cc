#include "net/sim/network_params.h"

#include <algorithm>
#include <cctype>

#include "net/base/string_util.h"
#include "net/sim/network_value.h"

namespace netstack {

namespace {

constexpr NetworkNumberKey kRttMs{"rtt_ms", 1000, 0, 60'000, false};
constexpr NetworkNumberKey kDnsMs{"dns_ms", 1000, 0, 60'000, false};
constexpr NetworkNumberKey kDnsTtlS{"dns_ttl_s", 1'000'000, 0, 604'800, false};
constexpr NetworkNumberKey kServerMs{"server_ms", 1000, 0, 600'000, false};
// RFC 8446 §4.6.1: a ticket lives at most 7 days.
constexpr NetworkNumberKey kTlsSessionLifetimeS{"tls_session_lifetime_s", 1'000'000, 0, 604'800,
                                                false};
constexpr NetworkNumberKey kTlsServerFlightBytes{"tls_server_flight_bytes", 1, 0, 100'000, true};
// RFC 8446 §5.1: a record carries at most 2^14 bytes.
constexpr NetworkNumberKey kTlsRecordBytes{"tls_record_bytes", 1, 0, 16'384, true};
constexpr NetworkNumberKey kDownKbps{"down_kbps", 1000, 0, 100'000'000, false};
constexpr NetworkNumberKey kUpKbps{"up_kbps", 1000, 0, 100'000'000, false};
constexpr NetworkNumberKey kInitCwnd{"init_cwnd", 1, 1, 1000, true};
constexpr NetworkNumberKey kMss{"mss", 1, 500, 9000, true};
constexpr NetworkNumberKey kIdleRestartMs{"idle_restart_ms", 1000, 0, 3'600'000, false};
constexpr NetworkNumberKey kRadioPromotionMs{"radio_promotion_ms", 1000, 0, 60'000, false};
constexpr NetworkNumberKey kRadioTailMs{"radio_tail_ms", 1000, 0, 3'600'000, false};
constexpr NetworkNumberKey kRadioDisconnectMs{"radio_disconnect_ms", 1000, 0, 3'600'000, false};
constexpr NetworkNumberKey kRadioReconnectMs{"radio_reconnect_ms", 1000, 0, 60'000, false};
// Scales: millionths, 0.01..100.
constexpr NetworkNumberKey kScale{"scale", 1'000'000, 0, 100, false, 10'000, "0.01..100"};

constexpr const char* kHostKeys[] = {"rtt_ms",    "dns_ms",
                                     "dns_ttl_s", "server_ms",
                                     "tls",       "tls_session_lifetime_s",
                                     "http2",     "tls_server_flight_bytes"};
constexpr const char* kLinkKeys[] = {"down_kbps",
                                     "up_kbps",
                                     "init_cwnd",
                                     "mss",
                                     "radio",
                                     "radio_promotion_ms",
                                     "idle_restart_ms",
                                     "radio_tail_ms",
                                     "radio_disconnect_ms",
                                     "radio_reconnect_ms",
                                     "tls_record_bytes",
                                     "link_queue"};
constexpr const char* kScaleKeys[] = {"rtt_scale", "dns_scale", "server_scale", "bandwidth_scale"};

// LTE: RRC connected with DRX for about 10 s after traffic, then RRC idle; waking takes about
// 100 ms, and with no traffic for a minute the device is treated as detached (reattaching adds
// signalling: a few hundred ms). 3G (HSPA): DCH for about 5 s, then FACH ("idle": ~1 s to
// promote back to DCH), then after about 12 s more RRC idle (~2 s to reach DCH in all).
RadioParams LteRadio() {
  return RadioParams{true, Milliseconds(100), Seconds(10), Seconds(60), Milliseconds(300)};
}
RadioParams ThreeGRadio() {
  return RadioParams{true, Milliseconds(1000), Seconds(5), Seconds(12), Milliseconds(1000)};
}

bool IsHostKey(const std::string& key) {
  return std::find_if(std::begin(kHostKeys), std::end(kHostKeys),
                      [&](const char* k) { return key == k; }) != std::end(kHostKeys);
}

bool IsLinkKey(const std::string& key) {
  return std::find_if(std::begin(kLinkKeys), std::end(kLinkKeys),
                      [&](const char* k) { return key == k; }) != std::end(kLinkKeys);
}

bool IsScaleKey(const std::string& key) {
  return std::find_if(std::begin(kScaleKeys), std::end(kScaleKeys),
                      [&](const char* k) { return key == k; }) != std::end(kScaleKeys);
}

TimeDelta ScaleDelta(TimeDelta d, double scale) {
  if (scale == 1) return d;
  return TimeDelta(static_cast<int64_t>(std::llround(static_cast<double>(d.count()) * scale)));
}

// A link rate times `scale`; 0 (unlimited) stays unlimited, a positive rate stays positive.
int64_t ScaleRate(int64_t bps, double scale) {
  if (scale == 1 || bps <= 0) return bps;
  return std::max<int64_t>(1, std::llround(static_cast<double>(bps) * scale));
}

// `overrides` without the fields whose global key the user set (they yield to it). http2 is
// decided by http2_mode in ForHost.
HostOverrides Unclaimed(HostOverrides o, const std::set<std::string>& user_keys) {
  if (user_keys.empty()) return o;
  if (user_keys.count("rtt_ms")) o.rtt.reset();
  if (user_keys.count("dns_ms")) o.dns.reset();
  if (user_keys.count("dns_ttl_s")) o.dns_ttl.reset();
  if (user_keys.count("server_ms")) o.server_time.reset();
  if (user_keys.count("tls")) o.tls.reset();
  if (user_keys.count("tls_session_lifetime_s")) o.tls_session_lifetime.reset();
  if (user_keys.count("tls_server_flight_bytes")) o.tls_server_flight_bytes.reset();
  return o;
}

// JSON number for a duration in `units` per unit: integral when it is, else a decimal.
nlohmann::json Scaled(int64_t value, int64_t units) {
  if (value % units == 0) return value / units;
  return static_cast<double>(value) / static_cast<double>(units);
}

nlohmann::json HostJson(const HostParams& p) {
  return nlohmann::json{
      {"rtt_ms", Scaled(p.rtt.count(), 1000)},
      {"dns_ms", Scaled(p.dns.count(), 1000)},
      {"dns_ttl_s", Scaled(p.dns_ttl.count(), 1'000'000)},
      {"server_ms", Scaled(p.server_time.count(), 1000)},
      {"tls", TlsVersionName(p.tls)},
      {"tls_session_lifetime_s", Scaled(p.tls_session_lifetime.count(), 1'000'000)},
      {"tls_server_flight_bytes", p.tls_server_flight_bytes}};
}

nlohmann::json OverridesJson(const HostOverrides& o) {
  nlohmann::json h = nlohmann::json::object();
  if (o.rtt) h["rtt_ms"] = Scaled(o.rtt->count(), 1000);
  if (o.dns) h["dns_ms"] = Scaled(o.dns->count(), 1000);
  if (o.dns_ttl) h["dns_ttl_s"] = Scaled(o.dns_ttl->count(), 1'000'000);
  if (o.server_time) h["server_ms"] = Scaled(o.server_time->count(), 1000);
  if (o.tls) h["tls"] = TlsVersionName(*o.tls);
  if (o.tls_session_lifetime) {
    h["tls_session_lifetime_s"] = Scaled(o.tls_session_lifetime->count(), 1'000'000);
  }
  if (o.tls_server_flight_bytes) h["tls_server_flight_bytes"] = *o.tls_server_flight_bytes;
  if (o.http2) h["http2"] = *o.http2 ? "on" : "off";
  return h;
}

// A scale as the key takes it: 1, 0.5, 0.333333.
nlohmann::json ScaleJson(double scale) {
  double rounded = std::round(scale * 1e6) / 1e6;
  if (rounded == std::floor(rounded)) return static_cast<int64_t>(rounded);
  return rounded;
}

// A profile: round trip and access link; DNS is one round trip to the access network's
// resolver (net/sim/README.md explains the choice).
NetworkParams Profile(int64_t rtt_us, int64_t down_bps, int64_t up_bps) {
  NetworkParams p;
  p.defaults.rtt = TimeDelta(rtt_us);
  p.defaults.dns = TimeDelta(rtt_us);
  p.downlink_bps = down_bps;
  p.uplink_bps = up_bps;
  return p;
}

}  // namespace

const char* Http2ModeName(Http2Mode mode) {
  return mode == Http2Mode::kOn ? "on" : mode == Http2Mode::kOff ? "off" : "auto";
}

const char* LinkQueueName(LinkQueue queue) { return queue == LinkQueue::kFifo ? "fifo" : "fair"; }

const char* TlsVersionName(TlsVersion version) {
  return version == TlsVersion::kTls12 ? "1.2" : "1.3";
}

HostParams HostOverrides::ApplyTo(HostParams base) const {
  if (rtt) base.rtt = *rtt;
  if (dns) base.dns = *dns;
  if (dns_ttl) base.dns_ttl = *dns_ttl;
  if (server_time) base.server_time = *server_time;
  if (tls) base.tls = *tls;
  if (tls_session_lifetime) base.tls_session_lifetime = *tls_session_lifetime;
  if (tls_server_flight_bytes) base.tls_server_flight_bytes = *tls_server_flight_bytes;
  if (http2) base.http2 = *http2;
  return base;
}

HostParams NetworkParams::ForHost(const std::string& host) const {
  HostParams p = defaults;
  if (auto t = trace_hosts.find(host); t != trace_hosts.end())
    p = Unclaimed(t->second, user_keys).ApplyTo(p);
  if (auto it = hosts.find(host); it != hosts.end()) p = it->second.ApplyTo(p);
  if (http2_mode != Http2Mode::kAuto) p.http2 = http2_mode == Http2Mode::kOn;
  p.rtt = ScaleDelta(p.rtt, rtt_scale);
  p.dns = ScaleDelta(p.dns, dns_scale);
  p.server_time = ScaleDelta(p.server_time, server_scale);
  return p;
}

bool NetworkParams::UserSetServerTime(const std::string& host) const {
  if (user_keys.count("server_ms")) return true;
  auto it = hosts.find(host);
  return it != hosts.end() && it->second.server_time.has_value();
}

NetworkParams NetworkParams::Resolved() const {
  NetworkParams out = *this;
  out.hosts.clear();
  out.trace_hosts.clear();
  out.user_keys.clear();
  out.trace_keys.clear();
  out.defaults.rtt = ScaleDelta(defaults.rtt, rtt_scale);
  out.defaults.dns = ScaleDelta(defaults.dns, dns_scale);
  out.defaults.server_time = ScaleDelta(defaults.server_time, server_scale);
  out.downlink_bps = ScaleRate(downlink_bps, bandwidth_scale);
  out.uplink_bps = ScaleRate(uplink_bps, bandwidth_scale);
  out.rtt_scale = out.dns_scale = out.server_scale = out.bandwidth_scale = 1;
  auto resolve = [&](const std::string& host) {
    HostParams p = ForHost(host);
    HostOverrides& o = out.hosts[host];
    o.rtt = p.rtt;
    o.dns = p.dns;
    o.dns_ttl = p.dns_ttl;
    o.server_time = p.server_time;
    o.tls = p.tls;
    o.tls_session_lifetime = p.tls_session_lifetime;
    o.tls_server_flight_bytes = p.tls_server_flight_bytes;
    o.http2 = p.http2;
  };
  for (const auto& entry : hosts) resolve(entry.first);
  for (const auto& entry : trace_hosts) resolve(entry.first);
  return out;
}

std::vector<std::string> NetworkParams::PresetKeys(const std::string& name) {
  if (!Preset(name)) return {};
  if (name == "unlimited") return {"down_kbps", "up_kbps"};
  std::vector<std::string> keys = {"rtt_ms", "dns_ms", "down_kbps", "up_kbps"};
  if (name == "lte") {
    keys.insert(keys.end(), {"radio", "radio_promotion_ms", "radio_tail_ms", "radio_disconnect_ms",
                             "radio_reconnect_ms"});
  }
  return keys;
}

bool NetworkParams::ApplyPreset(const std::string& name) {
  auto preset = Preset(name);
  if (!preset) return false;
  preset->trace_hosts = std::move(trace_hosts);
  preset->trace_keys = std::move(trace_keys);
  for (const std::string& key : PresetKeys(name)) {
    preset->user_keys.insert(key);
    preset->trace_keys.erase(key);
  }
  *this = std::move(*preset);
  return true;
}

bool NetworkParams::IsKey(const std::string& key) {
  return key == "preset" || IsHostKey(key) || IsLinkKey(key) || IsScaleKey(key);
}

bool NetworkParams::Set(const std::string& full_key, const std::string& value, std::string* error) {
  if (!SetValue(full_key, value, error)) return false;
  // A global key is the user's from now on: trace values for it yield (ForHost).
  if (full_key.find(':') == std::string::npos && full_key != "preset") {
    std::vector<std::string> keys = {full_key};
    // "radio=lte" and "radio=3g" set every radio time: each is the user's choice.
    if (full_key == "radio" && (value == "lte" || value == "3g")) {
      keys.insert(keys.end(), {"radio_promotion_ms", "radio_tail_ms", "radio_disconnect_ms",
                               "radio_reconnect_ms"});
    }
    for (const std::string& key : keys) {
      user_keys.insert(key);
      trace_keys.erase(key);
    }
  }
  return true;
}

bool NetworkParams::SetValue(const std::string& full_key, const std::string& value,
                             std::string* error) {
  std::string host;
  std::string key = full_key;
  // The host prefix ends at the last ':' (an IPv6 literal host has its own colons).
  if (size_t colon = full_key.rfind(':'); colon != std::string::npos) {
    host = full_key.substr(0, colon);
    key = full_key.substr(colon + 1);
    host = ToLowerAscii(host);
    if (!IsValidHostName(host)) {
      *error = "'" + ShownValue(full_key) + "': '" + ShownValue(host) + "' is not a host name";
      return false;
    }
    host = HostKey(host);
  }
  if (!IsKey(key)) {
    *error = "unknown key '" + ShownValue(full_key) + "'";
    return false;
  }
  if (!host.empty() && !IsHostKey(key)) {
    *error = "'" + key + "' applies to the whole network and takes no host prefix ('" +
             ShownValue(full_key) + "')";
    return false;
  }

  if (key == "preset") {
    if (!ApplyPreset(value)) {
      std::string names;
      for (const std::string& n : PresetNames()) names += (names.empty() ? "" : ", ") + n;
      *error = "preset: unknown preset '" + ShownValue(value) + "' (known: " + names + ")";
      return false;
    }
    return true;
  }

  if (IsHostKey(key)) {
    if (!host.empty() && hosts.size() >= kMaxHostOverrides && !hosts.count(host)) {
      *error = "'" + ShownValue(full_key) + "': too many per-host settings (at most " +
               std::to_string(kMaxHostOverrides) + " hosts)";
      return false;
    }
    if (key == "http2") {
      if (host.empty()) {
        if (value != "auto" && value != "on" && value != "off") {
          *error = "http2: '" + ShownValue(value) + "' is not auto, on or off";
          return false;
        }
        http2_mode = value == "on"    ? Http2Mode::kOn
                     : value == "off" ? Http2Mode::kOff
                                      : Http2Mode::kAuto;
        return true;
      }
      if (value != "on" && value != "off") {
        *error = "'" + ShownValue(full_key) + "': '" + ShownValue(value) + "' is not on or off";
        return false;
      }
      hosts[host].http2 = value == "on";
      return true;
    }
    TimeDelta duration{};
    TlsVersion tls{};
    int64_t n = 0;
    if (key == "tls") {
      if (!ParseTlsVersion(full_key, value, &tls, error)) return false;
    } else {
      const NetworkNumberKey& spec = key == "rtt_ms"                    ? kRttMs
                                     : key == "dns_ms"                  ? kDnsMs
                                     : key == "dns_ttl_s"               ? kDnsTtlS
                                     : key == "tls_session_lifetime_s"  ? kTlsSessionLifetimeS
                                     : key == "tls_server_flight_bytes" ? kTlsServerFlightBytes
                                                                        : kServerMs;
      if (!ParseNetworkNumber(spec, full_key, value, &n, error)) return false;
      duration = TimeDelta(n);
    }
    if (host.empty()) {
      HostParams& p = defaults;
      if (key == "rtt_ms") p.rtt = duration;
      if (key == "dns_ms") p.dns = duration;
      if (key == "dns_ttl_s") p.dns_ttl = duration;
      if (key == "server_ms") p.server_time = duration;
      if (key == "tls") p.tls = tls;
      if (key == "tls_session_lifetime_s") p.tls_session_lifetime = duration;
      if (key == "tls_server_flight_bytes") p.tls_server_flight_bytes = n;
    } else {
      HostOverrides& o = hosts[host];
      if (key == "rtt_ms") o.rtt = duration;
      if (key == "dns_ms") o.dns = duration;
      if (key == "dns_ttl_s") o.dns_ttl = duration;
      if (key == "server_ms") o.server_time = duration;
      if (key == "tls") o.tls = tls;
      if (key == "tls_session_lifetime_s") o.tls_session_lifetime = duration;
      if (key == "tls_server_flight_bytes") o.tls_server_flight_bytes = n;
    }
    return true;
  }

  if (key == "link_queue") {
    if (value != "fair" && value != "fifo") {
      *error = "link_queue: '" + ShownValue(value) + "' is not fair or fifo";
      return false;
    }
    link_queue = value == "fifo" ? LinkQueue::kFifo : LinkQueue::kFair;
    return true;
  }

  if (key == "radio") {
    if (value == "off") {
      radio.enabled = false;
    } else if (value == "on") {
      radio.enabled = true;
    } else if (value == "lte") {
      radio = LteRadio();
    } else if (value == "3g") {
      radio = ThreeGRadio();
    } else {
      *error = "radio: '" + ShownValue(value) + "' is not off, on, lte or 3g";
      return false;
    }
    return true;
  }

  if (IsScaleKey(key)) {
    int64_t millionths = 0;
    if (!ParseNetworkNumber(kScale, full_key, value, &millionths, error)) return false;
    const double scale = static_cast<double>(millionths) / 1e6;
    if (key == "rtt_scale") rtt_scale = scale;
    if (key == "dns_scale") dns_scale = scale;
    if (key == "server_scale") server_scale = scale;
    if (key == "bandwidth_scale") bandwidth_scale = scale;
    return true;
  }

  const NetworkNumberKey& spec = key == "down_kbps"             ? kDownKbps
                                 : key == "up_kbps"             ? kUpKbps
                                 : key == "init_cwnd"           ? kInitCwnd
                                 : key == "mss"                 ? kMss
                                 : key == "idle_restart_ms"     ? kIdleRestartMs
                                 : key == "radio_promotion_ms"  ? kRadioPromotionMs
                                 : key == "radio_disconnect_ms" ? kRadioDisconnectMs
                                 : key == "radio_reconnect_ms"  ? kRadioReconnectMs
                                 : key == "tls_record_bytes"    ? kTlsRecordBytes
                                                                : kRadioTailMs;
  int64_t n = 0;
  if (!ParseNetworkNumber(spec, full_key, value, &n, error)) return false;
  if (key == "down_kbps") downlink_bps = n;
  if (key == "up_kbps") uplink_bps = n;
  if (key == "init_cwnd") initial_cwnd_segments = static_cast<int>(n);
  if (key == "mss") mss = static_cast<int>(n);
  if (key == "idle_restart_ms") idle_restart = TimeDelta(n);
  if (key == "radio_promotion_ms") radio.promotion = TimeDelta(n);
  if (key == "radio_tail_ms") radio.tail = TimeDelta(n);
  if (key == "radio_disconnect_ms") radio.disconnect_after = TimeDelta(n);
  if (key == "radio_reconnect_ms") radio.reconnect = TimeDelta(n);
  if (key == "tls_record_bytes") tls_record_bytes = n;
  return true;
}

std::vector<std::string> NetworkParams::PresetNames() {
  return {"desktop", "slow-4g", "fast-4g", "3g", "slow-3g", "lte", "wifi", "unlimited"};
}

std::optional<NetworkParams> NetworkParams::Preset(const std::string& name) {
  // Rates in bit/s. Lighthouse counts a "Mbps" as 1024 kbit/s; its figures are kept as written.
  if (name == "desktop") return Profile(40'000, 10'240'000, 10'240'000);
  if (name == "slow-4g") return Profile(150'000, 1'638'400, 750'000);
  if (name == "fast-4g") return Profile(60'000, 9'000'000, 1'500'000);
  if (name == "3g") return Profile(300'000, 700'000, 700'000);
  if (name == "slow-3g") return Profile(400'000, 400'000, 400'000);
  if (name == "lte") {
    NetworkParams p = Profile(70'000, 12'000'000, 12'000'000);
    p.radio = LteRadio();
    return p;
  }
  if (name == "wifi") return Profile(2'000, 30'720'000, 15'360'000);
  if (name == "unlimited") {
    NetworkParams p;
    p.downlink_bps = 0;
    p.uplink_bps = 0;
    return p;
  }
  return std::nullopt;
}

nlohmann::json NetworkParams::ToJson() const {
  nlohmann::json out = HostJson(defaults);
  out["down_kbps"] = Scaled(downlink_bps, 1000);
  out["up_kbps"] = Scaled(uplink_bps, 1000);
  out["init_cwnd"] = initial_cwnd_segments;
  out["mss"] = mss;
  out["idle_restart_ms"] = Scaled(idle_restart.count(), 1000);
  out["tls_record_bytes"] = tls_record_bytes;
  out["link_queue"] = LinkQueueName(link_queue);
  out["radio"] = radio.enabled ? "on" : "off";
  out["radio_promotion_ms"] = Scaled(radio.promotion.count(), 1000);
  out["radio_tail_ms"] = Scaled(radio.tail.count(), 1000);
  out["radio_disconnect_ms"] = Scaled(radio.disconnect_after.count(), 1000);
  out["radio_reconnect_ms"] = Scaled(radio.reconnect.count(), 1000);
  out["http2"] = Http2ModeName(http2_mode);
  out["rtt_scale"] = ScaleJson(rtt_scale);
  out["dns_scale"] = ScaleJson(dns_scale);
  out["server_scale"] = ScaleJson(server_scale);
  out["bandwidth_scale"] = ScaleJson(bandwidth_scale);
  nlohmann::json per_host = nlohmann::json::object();
  for (const auto& [host, o] : hosts) per_host[host] = OverridesJson(o);
  out["hosts"] = std::move(per_host);
  // Only what is in effect: a field a user key overrides is left out (user_keys says which).
  nlohmann::json trace = nlohmann::json::object();
  for (const auto& [host, o] : trace_hosts) {
    HostOverrides effective = Unclaimed(o, user_keys);
    if (http2_mode != Http2Mode::kAuto) effective.http2.reset();
    auto user = hosts.find(host);
    if (user != hosts.end()) {
      const HostOverrides& u = user->second;
      if (u.rtt) effective.rtt.reset();
      if (u.dns) effective.dns.reset();
      if (u.dns_ttl) effective.dns_ttl.reset();
      if (u.server_time) effective.server_time.reset();
      if (u.tls) effective.tls.reset();
      if (u.tls_session_lifetime) effective.tls_session_lifetime.reset();
      if (u.tls_server_flight_bytes) effective.tls_server_flight_bytes.reset();
      if (u.http2) effective.http2.reset();
    }
    nlohmann::json h = OverridesJson(effective);
    if (!h.empty()) trace[host] = std::move(h);
  }
  out["trace_hosts"] = std::move(trace);
  out["user_keys"] = user_keys;
  out["trace_keys"] = trace_keys;
  return out;
}

}  // namespace netstack
