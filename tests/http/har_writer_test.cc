// The HAR writer (net/http/har_writer.h): hand-made records written as HAR 1.2 and parsed back;
// the mapping of a record's fields to HAR's, the -1 of phases a request did not go through, the
// streamed order (entries as they are added, pages at the end) and the pages' bound.
#include "net/http/har_writer.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/base/time.h"

using namespace netstack;

namespace {

const TimeTicks kT0 = TimeTicks(TimeDelta(1'000'000));

TimeTicks At(double ms) { return kT0 + TimeDelta(static_cast<int64_t>(ms * 1000)); }

// A script over a new TLS connection, 30 ms after its page's start, 120 ms long.
RequestRecord NewConnection() {
  RequestRecord r;
  r.url = "https://a.test/app.js?v=2&x";
  r.final_url = r.url;
  r.status = 200;
  r.status_text = "OK";
  r.body_bytes = 1000;
  r.transfer_bytes = 400;
  r.cache = CacheDisposition::kMiss;
  r.start = At(30);
  r.end = At(150);
  r.phases.queued_ms = 1;
  r.phases.dns_ms = 4;
  r.phases.connect_ms = 20;
  r.phases.tls_ms = 15;
  r.phases.send_ms = 0;
  r.phases.ttfb_ms = 60;
  r.phases.receive_ms = 20;
  r.connection.socket_id = 7;
  r.connection.socket_source = SocketSource::kNew;
  r.connection.peer_address = "192.0.2.1:443";
  r.connection.tls_version = "TLSv1.3";
  r.connection.protocol = "h2";
  r.headers = nlohmann::json{{"content-type", "text/javascript"},
                             {"set-cookie", nlohmann::json::array({"a=1", "b=2"})}};
  r.placement = RequestPlacement{"script", LOW, kT0};
  return r;
}

struct Written {
  std::string text;
  std::vector<std::string> pieces;
  HarWriter::Sink sink() {
    return [this](std::string_view piece) {
      text += piece;
      pieces.emplace_back(piece);
    };
  }
};

}  // namespace

TEST_CASE("har writer: a record's fields as HAR 1.2", "[har]") {
  Written out;
  HarWriter writer("1.2.3", out.sink());
  HarEntryContext context;
  context.pageref = "page_1";
  context.started_epoch_ms = 1'704'067'200'030.0;
  context.initiator_type = "parser";
  context.initiator_url = "https://a.test/";
  writer.AddEntry(NewConnection(), context);
  REQUIRE(writer.AddPage({"page_1", "https://a.test/", 1'704'067'200'000.0, 80, 150}));
  writer.Finish();

  nlohmann::json har = nlohmann::json::parse(out.text);
  const nlohmann::json& log = har["log"];
  CHECK(log["version"] == "1.2");
  CHECK(log["creator"]["name"] == "netstack");
  CHECK(log["creator"]["version"] == "1.2.3");
  REQUIRE(log["entries"].size() == 1);
  const nlohmann::json& e = log["entries"][0];
  CHECK(e["pageref"] == "page_1");
  CHECK(e["startedDateTime"] == "2024-01-01T00:00:00.030Z");
  CHECK(e["request"]["method"] == "GET");
  CHECK(e["request"]["url"] == "https://a.test/app.js?v=2&x");
  CHECK(e["request"]["queryString"] ==
        nlohmann::json::parse(R"([{"name":"v","value":"2"},{"name":"x","value":""}])"));
  CHECK(e["request"]["headersSize"] == -1);
  CHECK(e["response"]["status"] == 200);
  CHECK(e["response"]["httpVersion"] == "h2");
  CHECK(e["response"]["content"]["size"] == 1000);
  CHECK(e["response"]["content"]["mimeType"] == "text/javascript");
  CHECK(e["response"]["bodySize"] == 400);
  CHECK(e["response"]["redirectURL"] == "");
  // A header with two values is two HAR headers.
  CHECK(e["response"]["headers"].size() == 3);
  // TLS is inside connect (HAR 1.2), and time is the sum of the timings.
  const nlohmann::json& t = e["timings"];
  CHECK(t["blocked"] == 1);
  CHECK(t["dns"] == 4);
  CHECK(t["connect"] == 35);
  CHECK(t["ssl"] == 15);
  CHECK(t["wait"] == 60);
  CHECK(t["receive"] == 20);
  CHECK(e["time"] == 120);
  CHECK(e["serverIPAddress"] == "192.0.2.1");
  CHECK(e["connection"] == "7");
  CHECK(e["_initiator"]["type"] == "parser");
  CHECK(e["_initiator"]["url"] == "https://a.test/");
  CHECK(e["_priority"] == "Medium");  // net LOW is DevTools' "Medium"
  CHECK(e["_resourceType"] == "script");
  CHECK(e["_protocol"] == "h2");
  CHECK(e["_cache_disposition"] == "miss");
  CHECK_FALSE(e.contains("_fromCache"));

  REQUIRE(log["pages"].size() == 1);
  const nlohmann::json& p = log["pages"][0];
  CHECK(p["id"] == "page_1");
  CHECK(p["startedDateTime"] == "2024-01-01T00:00:00.000Z");
  CHECK(p["pageTimings"]["onContentLoad"] == 80);
  CHECK(p["pageTimings"]["onLoad"] == 150);
}

TEST_CASE("har writer: phases not gone through are -1, time before the last hop is blocked",
          "[har]") {
  Written out;
  HarWriter writer("x", out.sink());
  RequestRecord reused = NewConnection();
  reused.connection.socket_source = SocketSource::kReused;
  reused.phases.dns_ms = reused.phases.connect_ms = reused.phases.tls_ms = 0;
  reused.phases.queued_ms = 0;
  // 120 ms in all, 80 of them in the last hop: 40 ms before it (a redirect) are blocked.
  reused.redirects = {"https://a.test/b.js"};
  writer.AddEntry(reused, {});
  RequestRecord cached = NewConnection();
  cached.cache = CacheDisposition::kHit;
  cached.connection = ConnectionInfo{};
  cached.phases = LoadTimingPhases{};
  cached.end = cached.start;
  writer.AddEntry(cached, {});
  RequestRecord failed = NewConnection();
  failed.error = ERR_CONNECTION_REFUSED;
  failed.status = 0;
  failed.headers.reset();
  writer.AddEntry(failed, {});
  writer.Finish();

  nlohmann::json entries = nlohmann::json::parse(out.text)["log"]["entries"];
  REQUIRE(entries.size() == 3);
  const nlohmann::json& t = entries[0]["timings"];
  CHECK(t["dns"] == -1);
  CHECK(t["connect"] == -1);
  CHECK(t["ssl"] == -1);
  CHECK(t["blocked"] == 40);
  CHECK(entries[0]["time"] == 120);
  CHECK(entries[0]["_redirects"][0] == "https://a.test/b.js");
  CHECK(entries[1]["_fromCache"] == "disk");
  CHECK(entries[1]["_cache_disposition"] == "hit");
  CHECK(entries[1]["time"] == 0);
  CHECK_FALSE(entries[1].contains("connection"));
  CHECK(entries[2]["_error"] == "net::ERR_CONNECTION_REFUSED");
  CHECK(entries[2]["response"]["status"] == 0);
  // Without a page the entry has no pageref, and its initiator's type is "other".
  CHECK_FALSE(entries[2].contains("pageref"));
  CHECK(entries[2]["_initiator"] == nlohmann::json{{"type", "other"}});
}

TEST_CASE("har writer: entries are streamed as added, pages written at the end", "[har]") {
  Written out;
  HarWriter writer("x", out.sink());
  size_t head = out.pieces.size();
  CHECK(head == 1);
  writer.AddEntry(NewConnection(), {});
  // The entry reached the sink at once: the writer does not hold it.
  CHECK(out.pieces.size() == head + 1);
  CHECK(out.pieces.back().find("app.js") != std::string::npos);
  writer.AddPage({"p", "t", 0, -1, -1});
  CHECK(out.pieces.size() == head + 1);
  writer.Finish();
  nlohmann::json har = nlohmann::json::parse(out.text);
  CHECK(har["log"]["pages"][0]["pageTimings"]["onLoad"] == -1);
  CHECK(har["log"]["pages"][0]["pageTimings"]["onContentLoad"] == -1);
  // Finish closes the archive once: later calls write nothing.
  std::string closed = out.text;
  writer.AddEntry(NewConnection(), {});
  writer.Finish();
  CHECK(out.text == closed);
}

TEST_CASE("har writer: at most kMaxPages pages are kept", "[har]") {
  Written out;
  HarWriter writer("x", out.sink());
  for (size_t i = 0; i < HarWriter::kMaxPages; ++i)
    REQUIRE(writer.AddPage({"p" + std::to_string(i), "t", 0, -1, -1}));
  CHECK_FALSE(writer.AddPage({"over", "t", 0, -1, -1}));
  CHECK(writer.pages() == HarWriter::kMaxPages);
}

TEST_CASE("har writer: dates in ISO 8601 UTC, clamped to 1970..9999", "[har]") {
  CHECK(FormatHarDate(0) == "1970-01-01T00:00:00.000Z");
  CHECK(FormatHarDate(1'704'067'200'123.4) == "2024-01-01T00:00:00.123Z");
  CHECK(FormatHarDate(-5) == "1970-01-01T00:00:00.000Z");
  CHECK(FormatHarDate(1e300) == "9999-12-31T23:59:59.999Z");
}

TEST_CASE("har writer: text that is not UTF-8 is replaced, never thrown on", "[har]") {
  Written out;
  HarWriter writer("x", out.sink());
  RequestRecord r = NewConnection();
  r.url = "https://a.test/\xff\xfe";
  r.status_text = "O\xc3K";
  writer.AddEntry(r, {});
  writer.Finish();
  nlohmann::json har = nlohmann::json::parse(out.text);
  CHECK(har["log"]["entries"][0]["request"]["url"] == "https://a.test/\xef\xbf\xbd\xef\xbf\xbd");
}
