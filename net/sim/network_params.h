// NetworkParams: the modelled network of the simulated world, as a value. Global defaults, per-host
// overrides, presets (DevTools', Lighthouse's and WebPageTest's throttling profiles), and
// `--set KEY=VALUE` parsing so the CLI, config files and tests share one vocabulary.
//
// Keys (`Set`), the host-level ones also accepted with a host prefix "HOST:KEY=VALUE":
//   host-level:  rtt_ms, dns_ms, dns_ttl_s, server_ms, tls (1.2 | 1.3), tls_session_lifetime_s,
//                http2 (on | off: whether the server speaks HTTP/2, over TLS; only with a host
//                prefix, "HOST:http2=on"; traces set it per host), tls_server_flight_bytes (the
//                server's first handshake flight, certificate chain included: 0 = the handshake
//                is round trips only)
//   http2:       without a host prefix, auto | on | off (Http2Mode): auto (the default) lets each
//                host speak what its own `http2` says (off unless a trace said otherwise); on and
//                off force every HTTPS host, whatever the per-host settings say
//   link-level:  down_kbps, up_kbps (0 = unlimited), init_cwnd (segments), mss (bytes),
//                idle_restart_ms (slow start restarts after this long idle; 0 = never),
//                radio (off | on | lte | 3g), radio_promotion_ms, radio_tail_ms,
//                radio_disconnect_ms, radio_reconnect_ms, tls_record_bytes (TLS application data
//                is readable per record of this size; 0 = as it arrives), link_queue (fair |
//                fifo: the access link shares its rate among the connections, or serves one
//                queue in order, where a new connection's handshake waits behind queued bytes)
//   scales:      rtt_scale, dns_scale, server_scale, bandwidth_scale (1; 0.01..100): multiply
//                every host's round trip, DNS lookup and server time (per-entry server times of
//                a trace too: the replay's), and both link rates, after everything else
//   preset:      preset=NAME replaces everything with the preset (the user's host overrides are
//                cleared; the trace's are kept) and counts as the user setting the keys it
//                defines (PresetKeys)
//
// Where a value comes from (the what-if precedence, docs/replay.md "Keys"): a key Set without a
// host prefix is the user's and is remembered in `user_keys`; a host-prefixed one goes to
// `hosts`. Values the trace gave (a HAR's estimated network, a trace's recorded protocols) go to
// `trace_hosts` and `trace_keys` and yield to the user: for a host, its user override wins, then
// a global key the user set, then the trace's value, then the global default.
// Times and rates take decimals ("rtt_ms=62.5", "down_kbps=1638.4"); the model keeps
// microseconds and bits per second. ToJson() writes the same keys, so its output can be read back
// key by key.
#ifndef NET_SIM_NETWORK_PARAMS_H_
#define NET_SIM_NETWORK_PARAMS_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "net/base/time.h"

namespace netstack {

enum class TlsVersion { kTls12, kTls13 };

// "1.2" | "1.3".
const char* TlsVersionName(TlsVersion version);

// What one server (host) looks like from the client.
struct HostParams {
  TimeDelta rtt = Milliseconds(40);          // round trip between client and this host
  TimeDelta dns = Milliseconds(40);          // one lookup of this name, answer included
  TimeDelta dns_ttl = Seconds(300);          // TTL of the answer (the host cache keeps it)
  TimeDelta server_time = Milliseconds(30);  // request fully received -> first response byte sent
  TlsVersion tls = TlsVersion::kTls13;       // full handshake 2 RTT (1.2) or 1 RTT (1.3);
                                             // a resumed session takes one round trip less
  // How long a session this server issues may be resumed (the ticket lifetime of TLS 1.3, the
  // session timeout of 1.2): OpenSSL's default, 2 hours; 0 = the server issues none.
  TimeDelta tls_session_lifetime = Seconds(7200);
  // The server's first flight of a full handshake (ServerHello to Finished, the certificate
  // chain included: ~1-2 KB with an EC certificate, 3-5 KB with real sites' RSA chains). When
  // > 0 the handshake's flights cross the connection's flows (slow start and the access link
  // included) besides its round trips; 0 = round trips only.
  int64_t tls_server_flight_bytes = 0;
  // The server offers h2 in ALPN (only over TLS, as browsers use it). A host no trace described
  // speaks HTTP/1.1.
  bool http2 = false;
};

// The access link's discipline (the `link_queue` key): processor sharing among the connections
// with bytes on it, or one first-in first-out queue (a drop-tail bottleneck's, without drops).
enum class LinkQueue { kFair, kFifo };
// "fair" | "fifo".
const char* LinkQueueName(LinkQueue queue);

// The `http2` key without a host prefix: what decides whether a simulated server speaks h2.
enum class Http2Mode { kAuto, kOn, kOff };
// "auto" | "on" | "off".
const char* Http2ModeName(Http2Mode mode);

// Per-host overrides: only the fields that were set.
struct HostOverrides {
  std::optional<TimeDelta> rtt, dns, dns_ttl, server_time, tls_session_lifetime;
  std::optional<int64_t> tls_server_flight_bytes;
  std::optional<TlsVersion> tls;
  std::optional<bool> http2;
  // Applies the set fields to `base`.
  HostParams ApplyTo(HostParams base) const;
};

// Mobile radio states (radio resource management, as in the mobile networking chapter's three
// states): the radio is *active* while anything is sent or received and for `tail` after; then
// *idle* (still attached, radio mostly off); after `disconnect_after` more without traffic,
// *disconnected*. Traffic that finds the radio idle first waits `promotion` (repowering and
// resynchronising); traffic that finds it disconnected waits `promotion` + `reconnect` (the
// signalling of reattaching). Disabled by default (wired networks). The radio starts idle.
struct RadioParams {
  bool enabled = false;
  TimeDelta promotion = Milliseconds(100);  // idle -> active (LTE ~100 ms; 3G FACH -> DCH ~1 s)
  TimeDelta tail = Seconds(10);             // active -> idle after this long without traffic
  TimeDelta disconnect_after = TimeDelta::zero();  // idle -> disconnected; zero: never
  TimeDelta reconnect = TimeDelta::zero();         // extra delay out of disconnected
};

struct NetworkParams {
  // Hosts Set accepts overrides for.
  static constexpr size_t kMaxHostOverrides = 10'000;

  HostParams defaults;
  std::map<std::string, HostOverrides> hosts;  // the user's, by lowercase host name
  // Per-host values the trace gave (har_estimate.h, host_protocol.h), by lowercase host name. A
  // field yields to the same host's field in `hosts` and to a global key in `user_keys` (http2
  // to http2_mode on or off). Not bounded by kMaxHostOverrides: the trace readers bound hosts.
  std::map<std::string, HostOverrides> trace_hosts;
  // Global keys the user set (Set without a host prefix; a preset's PresetKeys), by key name.
  std::set<std::string> user_keys;
  // Global keys whose value the trace gave ("down_kbps" from a HAR's estimate); a key leaves it
  // when the user sets it.
  std::set<std::string> trace_keys;

  // The client's access link, shared by every connection (fair share, or one FIFO queue with
  // link_queue=fifo). 0 = unlimited.
  int64_t downlink_bps = 10'000'000;
  int64_t uplink_bps = 10'000'000;
  LinkQueue link_queue = LinkQueue::kFair;
  // TCP: initial congestion window (segments of `mss` bytes), doubled per round trip in slow
  // start; kept across keep-alive requests; back to the initial window after `idle_restart`
  // without traffic (RFC 5681 §4.1; zero disables the restart).
  int initial_cwnd_segments = 10;
  int mss = 1460;
  TimeDelta idle_restart = Seconds(1);
  // TLS records: application data a server sends is readable by the client per record of up to
  // this many bytes (the last of a write may be shorter), when its last byte has arrived (nginx's
  // ssl_buffer_size and most servers: 16384). 0 = readable as it arrives.
  int64_t tls_record_bytes = 0;
  RadioParams radio;
  Http2Mode http2_mode = Http2Mode::kAuto;
  // What-if multipliers (the *_scale keys), applied last by ForHost and Resolved.
  double rtt_scale = 1, dns_scale = 1, server_scale = 1, bandwidth_scale = 1;

  // The parameters for `host` (lowercase): defaults, then the trace's values for it that no
  // user key overrides, then the user's overrides for it, then the scales. Their `http2` is
  // already decided by http2_mode (on and off override the host's own setting).
  HostParams ForHost(const std::string& host) const;
  // True when the user set `server_ms` for `host`: globally (user_keys) or for that host. A
  // trace's per-entry server times yield to it (the replay's prepared page).
  bool UserSetServerTime(const std::string& host) const;
  // The network as the simulator uses it: every host of `hosts` and `trace_hosts` resolved as
  // ForHost does (into `hosts`), the scales applied to the defaults and the link and then 1,
  // the trace's layer and the provenance sets emptied. ForHost gives the same on the result.
  NetworkParams Resolved() const;
  // Replaces the network with the preset `name` (false if there is none): the user's hosts,
  // scales and every other key are reset, the trace's layer is kept (minus the keys the preset
  // defines, now the user's).
  bool ApplyPreset(const std::string& name);
  // The global keys preset `name` defines (rtt_ms, dns_ms, down_kbps, up_kbps; the radio's for
  // lte); empty for an unknown name.
  static std::vector<std::string> PresetKeys(const std::string& name);

  // Applies one KEY=VALUE (see the file comment). Returns false with a one-line `error` naming
  // the key or value ("unknown key 'rt_ms'", "rtt_ms: 'abc' is not a number", "rtt_ms: -1 is out
  // of range (0..60000)"; a value is echoed up to 64 bytes) and leaves the params unchanged.
  // Values are checked against bounds: rtt_ms and dns_ms 0..60000,
  // dns_ttl_s 0..604800, server_ms 0..600000, tls_session_lifetime_s 0..604800,
  // tls_server_flight_bytes 0..100000, tls_record_bytes 0..16384, down_kbps and up_kbps
  // 0..100000000, init_cwnd 1..1000, mss 500..9000, idle_restart_ms 0..3600000,
  // link_queue fair | fifo, radio_promotion_ms 0..60000, radio_tail_ms 0..3600000,
  // radio_disconnect_ms 0..3600000, radio_reconnect_ms 0..60000, the *_scale keys 0.01..100; at
  // most kMaxHostOverrides hosts. A global key goes in `user_keys`, out of `trace_keys`
  // (radio=lte|3g: the radio times too).
  bool Set(const std::string& key, const std::string& value, std::string* error);
  // True if `key` (without host prefix) is a network key Set understands ("preset" included).
  static bool IsKey(const std::string& key);

  // A named preset ("desktop", "slow-4g", "fast-4g", "3g", "slow-3g", "lte", "wifi",
  // "unlimited"), or nullopt. `PresetNames()` lists them for help text and errors. Sources and
  // values are in net/sim/README.md.
  static std::optional<NetworkParams> Preset(const std::string& name);
  static std::vector<std::string> PresetNames();

  // Everything, with the user's host overrides ("hosts": {"a.example": {"rtt_ms": 80}}), the
  // trace's host values still in effect ("trace_hosts": the ones a user key overrides are left
  // out), "user_keys" and "trace_keys" (sorted arrays), for --json output and the report. Keys
  // are Set's keys.
  nlohmann::json ToJson() const;

 private:
  // Set without recording the key's provenance.
  bool SetValue(const std::string& key, const std::string& value, std::string* error);
};

}  // namespace netstack

#endif  // NET_SIM_NETWORK_PARAMS_H_
