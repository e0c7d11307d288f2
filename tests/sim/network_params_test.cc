// NetworkParams: --set keys, bounds and their one-line errors, presets, per-host overrides,
// JSON.
#include "net/sim/network_params.h"

#include <catch2/catch.hpp>
#include <string>

namespace netstack::test {
namespace {

// Set must fail with exactly `message`, one line, and leave the params unchanged.
void CheckRejected(const std::string& key, const std::string& value, const std::string& message) {
  NetworkParams params;
  std::string error;
  REQUIRE(params.Set("a.test:rtt_ms", "10", &error));
  const nlohmann::json before = params.ToJson();
  INFO(key << "=" << value);
  CHECK_FALSE(params.Set(key, value, &error));
  CHECK(error == message);
  CHECK(error.find('\n') == std::string::npos);
  CHECK(params.ToJson() == before);
}

TEST_CASE("params: each key sets its field, decimals kept to the microsecond", "[sim][params]") {
  NetworkParams p;
  std::string error;
  REQUIRE(p.Set("rtt_ms", "62.5", &error));
  REQUIRE(p.Set("dns_ms", "7", &error));
  REQUIRE(p.Set("dns_ttl_s", "0.25", &error));
  REQUIRE(p.Set("server_ms", "0.0015", &error));  // rounds to 2 us
  REQUIRE(p.Set("tls", "1.2", &error));
  CHECK(p.defaults.tls_session_lifetime == Seconds(7200));  // OpenSSL's default
  REQUIRE(p.Set("tls_session_lifetime_s", "300", &error));
  REQUIRE(p.Set("down_kbps", "1638.4", &error));
  REQUIRE(p.Set("up_kbps", "0", &error));
  REQUIRE(p.Set("init_cwnd", "4", &error));
  REQUIRE(p.Set("mss", "1200", &error));
  REQUIRE(p.Set("idle_restart_ms", "0", &error));
  REQUIRE(p.Set("radio", "3g", &error));
  REQUIRE(p.Set("radio_tail_ms", "5000", &error));
  CHECK(p.defaults.rtt == TimeDelta(62'500));
  CHECK(p.defaults.dns == Milliseconds(7));
  CHECK(p.defaults.dns_ttl == Milliseconds(250));
  CHECK(p.defaults.server_time == TimeDelta(2));
  CHECK(p.defaults.tls == TlsVersion::kTls12);
  CHECK(p.defaults.tls_session_lifetime == Seconds(300));
  CHECK(p.downlink_bps == 1'638'400);
  CHECK(p.uplink_bps == 0);
  CHECK(p.initial_cwnd_segments == 4);
  CHECK(p.mss == 1200);
  CHECK(p.idle_restart == TimeDelta::zero());
  CHECK(p.radio.enabled);
  CHECK(p.radio.promotion == Seconds(1));  // 3g: FACH -> DCH
  CHECK(p.radio.tail == Seconds(5));
  CHECK(p.radio.disconnect_after == Seconds(12));
  CHECK(p.radio.reconnect == Seconds(1));  // RRC idle -> DCH: 2 s in all
  REQUIRE(p.Set("radio_disconnect_ms", "0", &error));
  CHECK(p.radio.disconnect_after == TimeDelta::zero());
  REQUIRE(p.Set("radio_reconnect_ms", "250", &error));
  CHECK(p.radio.reconnect == Milliseconds(250));
  REQUIRE(p.Set("radio", "off", &error));
  CHECK_FALSE(p.radio.enabled);
  REQUIRE(p.Set("rtt_ms", "0060000", &error));  // leading zeros, the upper bound
  CHECK(p.defaults.rtt == Seconds(60));
}

TEST_CASE("params: per-host overrides apply to their host only", "[sim][params]") {
  NetworkParams p;
  std::string error;
  REQUIRE(p.Set("CDN.Example:rtt_ms", "15", &error));
  REQUIRE(p.Set("cdn.example:tls", "1.2", &error));
  REQUIRE(p.Set("[::1]:server_ms", "5", &error));
  REQUIRE(p.Set("[::1]:tls_session_lifetime_s", "0", &error));
  HostParams cdn = p.ForHost("cdn.example");
  CHECK(cdn.rtt == Milliseconds(15));
  CHECK(cdn.tls == TlsVersion::kTls12);
  CHECK(cdn.dns == p.defaults.dns);
  // An IPv6 literal is kept as Url::host() gives it, without brackets; both spellings name it.
  CHECK(p.ForHost("::1").server_time == Milliseconds(5));
  CHECK(p.ForHost("::1").tls_session_lifetime == TimeDelta::zero());
  REQUIRE(p.Set("::1:rtt_ms", "7", &error));
  CHECK(p.ForHost("::1").rtt == Milliseconds(7));
  REQUIRE(p.Set("127.0.0.1:rtt_ms", "8", &error));
  CHECK(p.ForHost("127.0.0.1").rtt == Milliseconds(8));
  CHECK(p.ForHost("localhost").rtt == p.defaults.rtt);
  CHECK(cdn.tls_session_lifetime == p.defaults.tls_session_lifetime);
  CHECK(p.ForHost("other.example").rtt == p.defaults.rtt);
  nlohmann::json json = p.ToJson();
  CHECK(json["hosts"]["cdn.example"] == nlohmann::json{{"rtt_ms", 15}, {"tls", "1.2"}});
}

TEST_CASE("params: every error is one line naming the key or value", "[sim][params]") {
  CheckRejected("rt_ms", "80", "unknown key 'rt_ms'");
  CheckRejected("a.test:foo", "1", "unknown key 'a.test:foo'");
  CheckRejected("rtt_ms", "abc", "rtt_ms: 'abc' is not a number");
  CheckRejected("rtt_ms", "", "rtt_ms: '' is not a number");
  // A negative number is a number below the range (issue 17), not malformed text.
  CheckRejected("rtt_ms", "-5", "rtt_ms: -5 is out of range (0..60000)");
  CheckRejected("rtt_ms", "-0.25", "rtt_ms: -0.25 is out of range (0..60000)");
  CheckRejected("rtt_ms", "--5", "rtt_ms: '--5' is not a number");
  CheckRejected("rtt_ms", "-", "rtt_ms: '-' is not a number");
  CheckRejected("rtt_ms", "nan", "rtt_ms: 'nan' is not a number");
  CheckRejected("rtt_ms", "inf", "rtt_ms: 'inf' is not a number");
  // Echoes are bounded: 64 bytes of a 100 KB value.
  CheckRejected("rtt_ms", std::string(100'000, 'z'),
                "rtt_ms: '" + std::string(64, 'z') + "...' is not a number");
  CheckRejected("rtt_ms", "1.", "rtt_ms: '1.' is not a number");
  CheckRejected("rtt_ms", ".5", "rtt_ms: '.5' is not a number");
  CheckRejected("rtt_ms", "1e3", "rtt_ms: '1e3' is not a number");
  CheckRejected("rtt_ms", "60000.1", "rtt_ms: 60000.1 is out of range (0..60000)");
  CheckRejected("dns_ms", "99999999999999999999",
                "dns_ms: 99999999999999999999 is out of range (0..60000)");
  CheckRejected("dns_ttl_s", "604801", "dns_ttl_s: 604801 is out of range (0..604800)");
  CheckRejected("server_ms", "600001", "server_ms: 600001 is out of range (0..600000)");
  CheckRejected("tls_session_lifetime_s", "604801",
                "tls_session_lifetime_s: 604801 is out of range (0..604800)");
  CheckRejected("tls_server_flight_bytes", "100001",
                "tls_server_flight_bytes: 100001 is out of range (0..100000)");
  CheckRejected("tls_server_flight_bytes", "1.5",
                "tls_server_flight_bytes: '1.5' is not a whole number");
  CheckRejected("tls_record_bytes", "16385", "tls_record_bytes: 16385 is out of range (0..16384)");
  CheckRejected("tls_record_bytes", "-1", "tls_record_bytes: -1 is out of range (0..16384)");
  CheckRejected("x.test:tls_record_bytes", "100",
                "'tls_record_bytes' applies to the whole network and takes no host prefix "
                "('x.test:tls_record_bytes')");
  CheckRejected("link_queue", "lifo", "link_queue: 'lifo' is not fair or fifo");
  CheckRejected("down_kbps", "100000001", "down_kbps: 100000001 is out of range (0..100000000)");
  CheckRejected("init_cwnd", "0", "init_cwnd: 0 is out of range (1..1000)");
  CheckRejected("init_cwnd", "1.5", "init_cwnd: '1.5' is not a whole number");
  CheckRejected("mss", "499", "mss: 499 is out of range (500..9000)");
  CheckRejected("idle_restart_ms", "3600001",
                "idle_restart_ms: 3600001 is out of range (0..3600000)");
  CheckRejected("radio_promotion_ms", "x", "radio_promotion_ms: 'x' is not a number");
  CheckRejected("radio_tail_ms", "3600001", "radio_tail_ms: 3600001 is out of range (0..3600000)");
  CheckRejected("tls", "1.1", "tls: '1.1' is not 1.2 or 1.3");
  CheckRejected("a.test:tls", "", "a.test:tls: '' is not 1.2 or 1.3");
  CheckRejected("radio", "maybe", "radio: 'maybe' is not off, on, lte or 3g");
  CheckRejected("radio_reconnect_ms", "60001",
                "radio_reconnect_ms: 60001 is out of range (0..60000)");
  CheckRejected("radio_disconnect_ms", "-1",
                "radio_disconnect_ms: -1 is out of range (0..3600000)");
  CheckRejected("a.test:down_kbps", "5",
                "'down_kbps' applies to the whole network and takes no host prefix "
                "('a.test:down_kbps')");
  CheckRejected("a.test:preset", "3g",
                "'preset' applies to the whole network and takes no host prefix "
                "('a.test:preset')");
  CheckRejected("a b:rtt_ms", "5", "'a b:rtt_ms': 'a b' is not a host name");
  CheckRejected(":rtt_ms", "5", "':rtt_ms': '' is not a host name");
  CheckRejected("a:b:rtt_ms", "5", "'a:b:rtt_ms': 'a:b' is not a host name");
  CheckRejected("preset", "5g",
                "preset: unknown preset '5g' (known: desktop, slow-4g, fast-4g, 3g, slow-3g, "
                "lte, wifi, unlimited)");
}

TEST_CASE("params: per-host settings are bounded", "[sim][params]") {
  NetworkParams p;
  std::string error;
  for (size_t i = 0; i < NetworkParams::kMaxHostOverrides; ++i) {
    std::string key = "h";  // appended, not "h" + ...: GCC 12 warns on that falsely
    key += std::to_string(i);
    key += ".test:rtt_ms";
    REQUIRE(p.Set(key, "1", &error));
  }
  CHECK(p.Set("h0.test:dns_ms", "1", &error));  // an existing host still takes keys
  CHECK_FALSE(p.Set("one-more.test:rtt_ms", "1", &error));
  CHECK(error == "'one-more.test:rtt_ms': too many per-host settings (at most 10000 hosts)");
  CHECK(p.hosts.size() == NetworkParams::kMaxHostOverrides);
}

TEST_CASE("params: presets, and preset= replaces everything", "[sim][params]") {
  for (const std::string& name : NetworkParams::PresetNames()) {
    INFO(name);
    CHECK(NetworkParams::Preset(name).has_value());
  }
  CHECK_FALSE(NetworkParams::Preset("Slow-4G").has_value());
  NetworkParams slow = *NetworkParams::Preset("slow-4g");
  CHECK(slow.defaults.rtt == Milliseconds(150));
  CHECK(slow.downlink_bps == 1'638'400);
  CHECK(slow.uplink_bps == 750'000);
  NetworkParams g3 = *NetworkParams::Preset("3g");
  CHECK(g3.defaults.rtt == Milliseconds(300));
  CHECK(g3.downlink_bps == 700'000);
  NetworkParams desktop = *NetworkParams::Preset("desktop");
  CHECK(desktop.defaults.rtt == Milliseconds(40));
  CHECK(desktop.downlink_bps == 10'240'000);
  CHECK(NetworkParams::Preset("lte")->radio.enabled);
  CHECK_FALSE(NetworkParams::Preset("wifi")->radio.enabled);
  CHECK(NetworkParams::Preset("unlimited")->downlink_bps == 0);

  NetworkParams p;
  std::string error;
  REQUIRE(p.Set("a.test:rtt_ms", "5", &error));
  REQUIRE(p.Set("mss", "9000", &error));
  REQUIRE(p.Set("preset", "3g", &error));
  CHECK(p.hosts.empty());
  CHECK(p.mss == 1460);
  // The preset's keys are the user's now (they win over a trace's values); the rest is 3g's.
  nlohmann::json set = p.ToJson();
  CHECK(set["user_keys"] == nlohmann::json::array({"dns_ms", "down_kbps", "rtt_ms", "up_kbps"}));
  set["user_keys"] = nlohmann::json::array();
  CHECK(set == g3.ToJson());
}

TEST_CASE("params: ToJson writes Set's keys, and reads back through Set", "[sim][params]") {
  NetworkParams original = *NetworkParams::Preset("slow-4g");
  std::string error;
  REQUIRE(original.Set("radio", "lte", &error));
  REQUIRE(original.Set("rtt_ms", "62.5", &error));
  REQUIRE(original.Set("x.test:server_ms", "12", &error));
  REQUIRE(original.Set("x.test:tls_session_lifetime_s", "86400", &error));
  REQUIRE(original.Set("x.test:tls_server_flight_bytes", "4500", &error));
  REQUIRE(original.Set("tls_record_bytes", "16384", &error));
  nlohmann::json json = original.ToJson();
  CHECK(json["tls_server_flight_bytes"] == 0);
  CHECK(json["hosts"]["x.test"]["tls_server_flight_bytes"] == 4500);
  CHECK(json["tls_record_bytes"] == 16384);
  CHECK(json["link_queue"] == "fair");
  CHECK(original.ForHost("x.test").tls_server_flight_bytes == 4500);
  CHECK(original.ForHost("y.test").tls_server_flight_bytes == 0);
  CHECK(json["rtt_ms"] == 62.5);
  CHECK(json["down_kbps"] == 1638.4);
  CHECK(json["up_kbps"] == 750);
  CHECK(json["tls"] == "1.3");
  CHECK(json["radio"] == "on");
  CHECK(json["tls_session_lifetime_s"] == 7200);
  CHECK(json["hosts"]["x.test"]["tls_session_lifetime_s"] == 86400);

  NetworkParams copy;
  // Where values came from (not keys): hosts, the trace's host values, the provenance lists.
  for (const char* listed : {"trace_hosts", "user_keys", "trace_keys"})
    CHECK(json.contains(listed));
  for (const auto& [key, value] : json.items()) {
    if (key == "hosts" || key == "trace_hosts" || key == "user_keys" || key == "trace_keys")
      continue;
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    INFO(key << "=" << text);
    REQUIRE(NetworkParams::IsKey(key));
    REQUIRE(copy.Set(key, text, &error));
  }
  for (const auto& [host, keys] : json["hosts"].items()) {
    for (const auto& [key, value] : keys.items()) {
      std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      REQUIRE(copy.Set(host + ":" + key, text, &error));
    }
  }
  // Every key Set here is the copy's user's; the rest is the same.
  nlohmann::json copied = copy.ToJson();
  CHECK(copied["user_keys"].size() == copied.size() - 4);
  for (nlohmann::json* j : {&copied, &json}) j->erase("user_keys");
  CHECK(copied == json);
  CHECK(NetworkParams::IsKey("preset"));
  CHECK(NetworkParams::IsKey("rtt_scale"));
  CHECK_FALSE(NetworkParams::IsKey("max_sockets_per_group"));
  CHECK(std::string(TlsVersionName(TlsVersion::kTls12)) == "1.2");
}

}  // namespace
}  // namespace netstack::test
