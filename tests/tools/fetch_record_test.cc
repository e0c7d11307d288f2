// `netstack fetch`'s outputs of a request record: the human line (tools/netstack/fetch_record.h)
// and the --json object (the record's one writer, net/http/request_record_json.h).
#include "tools/netstack/fetch_record.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "net/http/request_record_json.h"

using namespace netstack;

namespace {

const TimeTicks kT0 = TimeTicks(TimeDelta(1'000'000));

// A record of `total_ms` (start and end on the microsecond ticks a request has).
void SetTotal(RequestRecord* r, double total_ms) {
  r->start = kT0;
  r->end = kT0 + TimeDelta(static_cast<int64_t>(std::llround(total_ms * 1000)));
}

}  // namespace

TEST_CASE("fetch record: JSON has every field of the contract") {
  RequestRecord r;
  r.url = r.final_url = "http://a.test/";
  r.method = "GET";
  r.status = 200;
  r.status_text = "OK";
  r.body_bytes = 10;
  r.phases.dns_ms = 1.23456;
  SetTotal(&r, 5);
  r.connection.socket_id = 7;
  r.connection.socket_source = SocketSource::kNew;
  r.headers = nlohmann::json::object();
  r.speculative = nullptr;
  auto j = RequestRecordToJson(r);
  for (const char* key :
       {"url", "status", "headers", "bytes", "error", "timing", "socket", "cache", "speculative",
        "redirects", "dns", "body_bytes", "transfer_bytes", "error_code"})
    CHECK(j.contains(key));
  for (const char* key :
       {"dns_ms", "connect_ms", "tls_ms", "send_ms", "ttfb_ms", "receive_ms", "total_ms"})
    CHECK(j["timing"].contains(key));
  CHECK(j["timing"]["dns_ms"] == Approx(1.235));
  CHECK(j["timing"]["total_ms"] == 5.0);
  CHECK(j["error"].is_null());
  CHECK(j["socket"]["id"] == 7);
  CHECK(j["socket"]["reused"] == false);
  CHECK(j["socket"]["source"] == "new");
  CHECK(j["cache"] == "bypass");
  CHECK_FALSE(j.contains("encoded_bytes"));  // transfer_bytes since issue 15
}

TEST_CASE("fetch record: errors carry a message and Chrome's name") {
  RequestRecord r;
  r.url = "http://nx.test/";
  r.error = ERR_NAME_NOT_RESOLVED;
  r.error_message = ErrorToMessage(ERR_NAME_NOT_RESOLVED);
  auto j = RequestRecordToJson(r);
  CHECK(j["error_code"] == "ERR_NAME_NOT_RESOLVED");
  CHECK(j["error"] == ErrorToMessage(ERR_NAME_NOT_RESOLVED));
  CHECK(j["status"] == 0);
  std::string line = FetchRecordToLine(r);
  CHECK(line.find("ERR_NAME_NOT_RESOLVED") != std::string::npos);
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("fetch record: the human line shows status, size, timing and reuse") {
  RequestRecord r;
  r.final_url = "http://a.test/x";
  r.status = 404;
  r.status_text = "Not Found";
  r.body_bytes = 20000;
  SetTotal(&r, 12.34);
  r.connection.socket_id = 3;
  r.connection.socket_source = SocketSource::kReused;
  std::string line = FetchRecordToLine(r);
  CHECK(line.rfind("404 Not Found", 0) == 0);
  CHECK(line.find("19.5 KiB") != std::string::npos);
  CHECK(line.find("12.3 ms") != std::string::npos);
  CHECK(line.find("socket 3 reused") != std::string::npos);
  r.connection.socket_source = SocketSource::kPreconnected;
  CHECK(FetchRecordToLine(r).find("socket 3 preconnected") != std::string::npos);
}

TEST_CASE("fetch record: the human line, byte for byte") {
  RequestRecord r;
  r.url = "https://a.test/old";
  r.final_url = "https://a.test/x";
  r.status = 200;
  r.status_text = "OK";
  r.body_bytes = 20000;
  r.transfer_bytes = 900;  // the line shows the decoded size
  SetTotal(&r, 12.34);
  r.phases.dns_ms = 1.26;
  r.phases.tls_ms = 2.44;
  r.phases.send_ms = 0.05;
  r.phases.ttfb_ms = 40.1;
  r.phases.receive_ms = 3.66;
  r.connection.socket_id = 7;
  r.connection.socket_source = SocketSource::kNew;
  r.connection.tls_version = "TLSv1.3";
  r.connection.tls_resumed = true;
  r.redirects = {"https://a.test/old", "https://a.test/older"};
  r.cache = CacheDisposition::kMiss;
  CHECK(FetchRecordToLine(r) ==
        "200 OK  https://a.test/x  19.5 KiB  12.3 ms  [dns 1.3 connect 0.0 tls 2.4 send 0.1 wait "
        "40.1 receive 3.7]  socket 7 new  TLSv1.3 resumed  (2 redirects)  cache miss");
  // A cache hit: no socket, no TLS; sizes below 10 KiB in bytes, from 10 MiB in MiB.
  r.connection = ConnectionInfo();
  r.redirects.clear();
  r.cache = CacheDisposition::kHit;
  r.body_bytes = 612;
  SetTotal(&r, 0);
  r.phases = LoadTimingPhases();
  CHECK(FetchRecordToLine(r) ==
        "200 OK  https://a.test/x  612 B  0.0 ms  [dns 0.0 connect 0.0 tls 0.0 send 0.0 wait 0.0 "
        "receive 0.0]  cache hit");
  r.body_bytes = 12 * 1024 * 1024 + 100 * 1024;
  r.cache = CacheDisposition::kBypass;
  CHECK(FetchRecordToLine(r) ==
        "200 OK  https://a.test/x  12.1 MiB  0.0 ms  [dns 0.0 connect 0.0 tls 0.0 send 0.0 wait "
        "0.0 receive 0.0]");
  RequestRecord e;
  e.url = "http://nx.test/\x1b";
  e.error = ERR_NAME_NOT_RESOLVED;
  e.error_message = "no such host";
  CHECK(FetchRecordToLine(e) ==
        "error  http://nx.test/\\x1b  no such host (ERR_NAME_NOT_RESOLVED)");
}

TEST_CASE("fetch record: timings print as printf's %.1f would, ties included") {
  std::vector<double> values = {0.0,  -0.0, 0.05,  0.15, 0.25, 0.35, 0.45,  1.25,  2.5,
                                0.95, 9.95, 99.95, 1e14, 1e15, 1e16, -1.25, -0.04, 123456.789};
  for (int i = 0; i <= 20000; ++i) values.push_back(i / 1000.0);  // microseconds as ms
  for (int i = 0; i <= 4000; ++i) values.push_back(i * 0.05 + 0.025);
  uint64_t x = 88172645463325252ull;  // xorshift: doubles of every magnitude up to ~1e6
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    values.push_back(static_cast<double>(x % 1000000000) / std::pow(10.0, static_cast<int>(x % 7)));
  }
  RequestRecord r;
  r.final_url = "http://a.test/";
  r.status = 200;
  int mismatches = 0;
  for (double v : values) {
    r.phases.dns_ms = v;
    char expected[64];
    std::snprintf(expected, sizeof(expected), "[dns %.1f connect", v);
    if (FetchRecordToLine(r).find(expected) == std::string::npos && ++mismatches <= 5)
      FAIL_CHECK("value " << v << " not printed as" << expected);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("fetch record: the human line escapes what the server sent") {
  RequestRecord r;
  r.url = r.final_url = "http://a.test/";
  r.status = 200;
  r.status_text =
      "OK\x1b]0;pwned\x07 \xc2\x9b"
      "2J";
  std::string line = FetchRecordToLine(r);
  CHECK(line.find('\x1b') == std::string::npos);
  CHECK(line.find('\x07') == std::string::npos);
  CHECK(line.find("\xc2\x9b") == std::string::npos);
  CHECK(line.rfind("200 OK\\x1b]0;pwned\\x07 \\u009b2J  http://a.test/", 0) == 0);
  // JSON keeps the text as sent (its writer escapes it).
  CHECK(RequestRecordToJson(r)["status_text"] == r.status_text);
}
