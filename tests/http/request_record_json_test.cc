// The one writer of a finished request (net/http/request_record_json.h): one hand-made completed
// request, written as a plain fetch, a page load's request and a replay entry, and the fields and
// meanings each world relies on (docs/request-record.md).
#include "net/http/request_record_json.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "net/base/time.h"

using namespace netstack;

namespace {

const TimeTicks kT0 = TimeTicks(TimeDelta(1'000'000));  // 1 s: TimeTicks{} is "unset"

TimeTicks At(double ms) { return kT0 + TimeDelta(static_cast<int64_t>(ms * 1000)); }

// A gzip'd 1000-byte body carried as 400 bytes, over a connect job a preconnect had begun (late),
// 30 ms after the page's start.
RequestRecord Completed() {
  RequestRecord r;
  r.url = "https://a.test/app.js";
  r.final_url = "https://a.test/app.js";
  r.method = "GET";
  r.status = 200;
  r.status_text = "OK";
  r.body_bytes = 1000;
  r.transfer_bytes = 400;
  r.cache = CacheDisposition::kMiss;
  r.start = At(30);
  r.end = At(150.0004);
  r.phases.dns_ms = 0;
  r.phases.connect_ms = 20;
  r.phases.tls_ms = 15.0000004;
  r.phases.send_ms = 0.1;
  r.phases.ttfb_ms = 60;
  r.phases.receive_ms = 24.9;
  r.connection.socket_id = 7;
  r.connection.socket_source = SocketSource::kPreconnectedLate;
  r.connection.peer_address = "192.0.2.1:443";
  r.connection.tls_version = "TLSv1.3";
  r.connection.dns_from_cache = true;
  return r;
}

}  // namespace

TEST_CASE("record writer: a plain fetch's fields (docs/fetch.md's contract)", "[record]") {
  RequestRecord r = Completed();
  r.headers = nlohmann::json{{"content-type", "text/javascript"}};
  r.speculative = nullptr;  // no predictor ran
  nlohmann::json j = RequestRecordToJson(r);
  CHECK(j["url"] == "https://a.test/app.js");
  CHECK(j["status"] == 200);
  CHECK(j["headers"]["content-type"] == "text/javascript");
  // bytes is the decoded body in every world; transfer_bytes what was carried.
  CHECK(j["bytes"] == 1000);
  CHECK(j["body_bytes"] == 1000);
  CHECK(j["transfer_bytes"] == 400);
  CHECK(j["error"].is_null());
  CHECK(j["error_code"].is_null());
  CHECK(j["timing"]["connect_ms"] == 20.0);
  CHECK(j["timing"]["tls_ms"] == 15.0);  // rounded to the microsecond
  CHECK(j["timing"]["total_ms"] == 120.0);
  CHECK(j["timing"]["queued_ms"] == 0.0);
  CHECK(j["socket"]["id"] == 7);
  CHECK(j["socket"]["reused"] == false);
  CHECK(j["socket"]["source"] == "preconnected-late");
  CHECK(j["socket"]["address"] == "192.0.2.1:443");
  CHECK(j["socket"]["tls_version"] == "TLSv1.3");
  CHECK(j["dns"]["from_cache"] == true);
  CHECK(j["cache"] == "miss");
  CHECK(j["redirects"].empty());
  CHECK(j.contains("speculative"));
  CHECK(j["speculative"].is_null());
  // No page or replay context, no model.
  for (const char* absent : {"kind", "type", "priority", "start_ms", "page", "entry", "model"})
    CHECK_FALSE(j.contains(absent));
}

TEST_CASE("record writer: a failed request has its message and its code", "[record]") {
  RequestRecord r = Completed();
  r.status = 0;
  r.error = ERR_CONNECTION_REFUSED;
  r.error_message = "connection refused: 192.0.2.1:443";
  r.connection = ConnectionInfo();
  nlohmann::json j = RequestRecordToJson(r);
  CHECK(j["error"] == "connection refused: 192.0.2.1:443");
  CHECK(j["error_code"] == "ERR_CONNECTION_REFUSED");
  CHECK(j["socket"]["source"].is_null());
  CHECK(j["socket"]["address"].is_null());
  CHECK(j["socket"]["reused"] == false);
}

TEST_CASE("record writer: a page load's request adds its place in the page", "[record]") {
  RequestRecord r = Completed();
  r.headers = nlohmann::json::object();
  r.speculative = nlohmann::json{{"preconnected", 1}, {"outcome", "late"}};
  r.placement = RequestPlacement{"script", LOW, At(0)};
  nlohmann::json j = RequestRecordToJson(r);
  CHECK(j["kind"] == "request");
  CHECK(j["type"] == "script");
  CHECK(j["priority"] == "LOW");
  CHECK(j["start_ms"] == 30.0);
  CHECK(j["end_ms"] == 150.0);
  CHECK(j["speculative"]["outcome"] == "late");
  CHECK(j["socket"]["source"] == "preconnected-late");  // replaces socket.preconnected
  CHECK_FALSE(j["socket"].contains("preconnected"));
  CHECK_FALSE(j.contains("model"));
}

TEST_CASE("record writer: a replay entry adds its page, entry and the model", "[record]") {
  RequestRecord r = Completed();
  r.placement = RequestPlacement{"script", LOW, At(0)};
  r.entry = ReplayEntryRef{3, 12, "a.test"};
  r.model = RequestModel{20, 30, 10, 28.5, -1};
  nlohmann::json j = RequestRecordToJson(r);
  CHECK(j["page"] == 3);
  CHECK(j["entry"] == 12);
  CHECK(j["host"] == "a.test");
  CHECK(j["start_ms"] == 30.0);
  CHECK(j["model"]["request_ms"] == 20.0);
  CHECK(j["model"]["server_ms"] == 30.0);
  CHECK(j["model"]["response_ms"] == 10.0);
  CHECK(j["model"]["recorded"]["start_ms"] == 28.5);
  CHECK(j["model"]["recorded"]["end_ms"].is_null());
  // The same meanings as a live fetch: bytes decoded, transfer_bytes carried, socket.source.
  CHECK(j["bytes"] == 1000);
  CHECK(j["transfer_bytes"] == 400);
  CHECK(j["socket"]["source"] == "preconnected-late");
  // Replay captures no headers and has no predictor view per request.
  CHECK_FALSE(j.contains("headers"));
  CHECK_FALSE(j.contains("speculative"));
  // Replaced fields are gone.
  for (const char* old : {"connection", "recorded", "encoded_bytes"}) CHECK_FALSE(j.contains(old));
  CHECK_FALSE(j["timing"].contains("request_ms"));

  SECTION("a recorded hit") {
    ClearRequestRecord(&r);
    r.recorded_hit = true;
    r.status = 200;
    r.body_bytes = r.transfer_bytes = 5000;
    r.start = At(30);
    r.end = At(38);
    nlohmann::json hit = RequestRecordToJson(r);
    CHECK(hit["cache"] == "recorded-hit");
    CHECK(hit["socket"]["id"] == 0);
    CHECK(hit["socket"]["source"].is_null());
    CHECK(hit["final_url"] == "https://a.test/app.js");
    CHECK(hit["timing"]["total_ms"] == 8.0);
    CHECK(hit["timing"]["dns_ms"] == 0.0);
  }
}

TEST_CASE("record writer: rounds to the microsecond, once", "[record]") {
  CHECK(RoundMsForJson(1.0004999) == 1.0);
  CHECK(RoundMsForJson(1.0005001) == 1.001);
  CHECK(RoundMsForJson(0.1 + 0.2) == 0.3);
}

TEST_CASE("record writer: its text is the bytes nlohmann's dump writes for the same object",
          "[record]") {
  // Every part present, text that needs escaping, invalid UTF-8, a redirect chain.
  RequestRecord r = Completed();
  r.url = "https://a.test/q?x=\"1\"&y=\\\x01\xc3\xa9\xff";
  r.status_text = "OK\ttab";
  r.redirects = {"https://a.test/a", "https://a.test/\xe2\x82\xac"};
  r.headers = nlohmann::json{{"set-cookie", {"a=1", "b=2"}}, {"x", "\x1b[0m"}};
  r.speculative = nlohmann::json{{"preconnected", 2}, {"outcome", nullptr}};
  r.placement = RequestPlacement{"script", IDLE, At(0)};
  r.entry = ReplayEntryRef{18446744073709551615ull, 7, "a.test"};
  r.model = RequestModel{0.0005, 1e10, -0.0, 1.5, 2.25};
  r.error = ERR_CONTENT_DECODING_FAILED;
  r.error_message = "bad \"gzip\"";
  std::string text;
  AppendRequestRecordJson(r, &text);
  const nlohmann::json tree = nlohmann::json::parse(text);
  CHECK(tree.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) == text);
  CHECK(tree["status_text"] == "OK\ttab");
  CHECK(tree["redirects"][1] == "https://a.test/\xe2\x82\xac");
  CHECK(tree["model"]["server_ms"] == 1e10);
  CHECK(RequestRecordToJson(r) == tree);

  // The smallest record, and one without context parts.
  RequestRecord empty;
  text.clear();
  AppendRequestRecordJson(empty, &text);
  CHECK(nlohmann::json::parse(text).dump() == text);
}

TEST_CASE("record writer: milliseconds print as nlohmann prints the rounded double", "[record]") {
  std::vector<double> values = {0.0,           -0.0,          0.0004, 0.0005,  0.001,      0.1,
                                0.3,           1.0,           40.0,   99.9995, 123.456789, 1e6,
                                123456789.123, 999999999.999, 1e9,    5e11,    -2.5};
  for (int i = 0; i <= 200000; ++i) values.push_back(i / 1000.0);       // every microsecond
  for (int i = 0; i <= 20000; ++i) values.push_back(i * 0.0123456789);  // rounding noise
  uint64_t x = 88172645463325252ull;  // xorshift: values of every magnitude up to ~1e9
  for (int i = 0; i < 50000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    values.push_back(static_cast<double>(x % 1000000000000ull) / std::pow(10.0, x % 7));
  }
  RequestRecord r;
  int mismatches = 0;
  for (double v : values) {
    r.phases.dns_ms = v;
    std::string text;
    AppendRequestRecordJson(r, &text);
    const std::string want = "\"dns_ms\":" + nlohmann::json(RoundMsForJson(v)).dump() + ",";
    if (text.find(want) == std::string::npos && ++mismatches <= 5)
      FAIL_CHECK("value " << v << " not written as " << want);
  }
  CHECK(mismatches == 0);
}
