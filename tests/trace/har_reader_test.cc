// The HAR reader on small HAR documents built in each test: what real writers put in files
// (byte order marks, -1 timings, several pages, missing pages, pseudo-headers, cache entries,
// non-http entries, sizes written in different places).
#include "tools/replay/trace/har_reader.h"

#include <catch2/catch.hpp>

#include "tests/trace/trace_test_util.h"

namespace netstack {
namespace {

using nlohmann::json;
using test::HarDocument;
using test::HarEntry;
using test::ParseOrFail;

TEST_CASE("HAR: one page, entries sorted by start, times relative to the first", "[trace][har]") {
  json doc = HarDocument({
      HarEntry("https://a.test/app.js", "2024-01-01T00:00:00.250Z", 50, "application/javascript"),
      HarEntry("https://a.test/", "2024-01-01T00:00:00.100Z", 120),
      HarEntry("https://a.test/style.css", "2024-01-01T00:00:00.240Z", 30, "text/css"),
  });
  HarFile har = ParseOrFail(doc);
  CHECK(har.creator == "test");
  REQUIRE(har.pages.size() == 1);
  const TracePage& page = har.pages[0];
  CHECK(page.id == "page_1");
  CHECK(page.title == "Page one");
  CHECK(page.source == "t.har#page_1");
  CHECK(page.skipped_entries == 0);
  // The page's startedDateTime is 100 ms before its first entry: pageTimings move with it.
  CHECK(page.started_epoch_ms == 1704067200100);
  CHECK(page.recorded_content_load_ms == Approx(50));
  CHECK(page.recorded_onload_ms == Approx(200));
  REQUIRE(page.entries.size() == 3);
  CHECK(page.entries[0].url == "https://a.test/");
  CHECK(page.entries[1].url == "https://a.test/style.css");
  CHECK(page.entries[2].url == "https://a.test/app.js");
  CHECK(page.entries[0].start_ms == 0);
  CHECK(page.entries[1].start_ms == Approx(140));
  CHECK(page.entries[2].start_ms == Approx(150));
  CHECK(page.RecordedLastEndMs() == Approx(200));

  const TraceEntry& doc_entry = page.entries[0];
  CHECK(doc_entry.method == "GET");
  CHECK(doc_entry.status == 200);
  CHECK(doc_entry.status_text == "OK");
  CHECK(doc_entry.http_version == "HTTP/1.1");
  CHECK(doc_entry.resource_type == "document");
  CHECK(doc_entry.response_body_bytes == 1000);
  CHECK(doc_entry.recorded_total_ms == 120);
  CHECK(doc_entry.timings.wait == 60);
  CHECK(doc_entry.timings.dns == -1);
  CHECK(doc_entry.parent == -1);
  CHECK(doc_entry.initiator == InitiatorKind::kNone);
  CHECK(doc_entry.request_headers == HeaderList{{"Accept", "*/*"}});
  CHECK(doc_entry.response_headers == HeaderList{{"Content-Type", "text/html"}});
  CHECK(page.entries[1].resource_type == "stylesheet");
  CHECK(page.entries[2].resource_type == "script");
}

TEST_CASE("HAR: a byte order mark is skipped", "[trace][har]") {
  std::string text =
      "\xEF\xBB\xBF" + HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z")}).dump(2);
  HarFile har;
  std::string error;
  REQUIRE(ParseHar(text, "bom.har", &har, &error));
  CHECK(har.pages.size() == 1);
  CHECK(LooksLikeHar(text));
}

TEST_CASE("HAR: -1, null and missing timings", "[trace][har]") {
  json entry = HarEntry("https://a.test/", "2024-01-01T00:00:00Z");
  entry["time"] = nullptr;  // Firefox writes null
  entry["timings"] = {{"blocked", -1}, {"dns", 12.5}, {"connect", -1},
                      {"send", 1},     {"wait", 40},  {"receive", -5}};
  json zeros = HarEntry("https://a.test/b", "2024-01-01T00:00:01Z");
  zeros["time"] = 0;
  zeros["timings"] = {{"send", 0}, {"wait", -1}};
  // Neither a time nor timings (a hand-written HAR): read, with a duration of 0.
  json bare = HarEntry("https://a.test/c", "2024-01-01T00:00:02Z");
  bare.erase("timings");
  bare.erase("time");
  HarFile har = ParseOrFail(HarDocument({entry, zeros, bare}));
  const TraceEntry& first = har.pages[0].entries[0];
  CHECK(first.timings.blocked == -1);
  CHECK(first.timings.ssl == -1);      // absent
  CHECK(first.timings.receive == -1);  // any negative reads as "does not apply"
  CHECK(first.timings.dns == 12.5);
  CHECK(first.recorded_total_ms == Approx(53.5));  // time rebuilt from the phases
  CHECK(first.RecordedFirstByteMs() == Approx(53.5));
  REQUIRE(har.pages[0].entries.size() == 3);
  const TraceEntry& second = har.pages[0].entries[1];
  CHECK(second.recorded_total_ms == 0);
  CHECK(second.timings.wait == -1);
  CHECK(second.timings.send == 0);
  const TraceEntry& third = har.pages[0].entries[2];
  CHECK(third.recorded_total_ms == 0);
  CHECK(third.timings.wait == -1);
}

TEST_CASE("HAR: several pages, entries by pageref, pages in start order", "[trace][har]") {
  json doc = HarDocument({});
  json& log = doc["log"];
  log["pages"] = json::array({
      {{"id", "second"}, {"startedDateTime", "2024-01-01T00:01:00Z"}, {"title", "Two"}},
      {{"id", "first"}, {"startedDateTime", "2024-01-01T00:00:00Z"}, {"title", "One"}},
      {{"id", "empty"}, {"startedDateTime", "2024-01-01T00:02:00Z"}, {"title", "Nothing"}},
  });
  json a = HarEntry("https://a.test/", "2024-01-01T00:00:00Z");
  a["pageref"] = "first";
  json b = HarEntry("https://b.test/", "2024-01-01T00:01:00Z");
  b["pageref"] = "second";
  json b2 = HarEntry("https://b.test/x.png", "2024-01-01T00:01:00.500Z", 10, "image/png");
  b2["pageref"] = "second";
  json orphan = HarEntry("https://a.test/late.js", "2024-01-01T00:00:30Z", 10, "text/javascript");
  orphan.erase("pageref");  // belongs to the latest page started before it: "first"
  log["entries"] = json::array({b, a, b2, orphan});
  HarFile har = ParseOrFail(doc);
  REQUIRE(har.pages.size() == 2);  // a page without entries has nothing to replay
  CHECK(har.pages[0].id == "first");
  CHECK(har.pages[1].id == "second");
  CHECK(har.pages[0].entries.size() == 2);
  CHECK(har.pages[0].entries[1].url == "https://a.test/late.js");
  CHECK(har.pages[1].entries.size() == 2);
  CHECK(har.pages[1].entries[1].start_ms == Approx(500));
  CHECK(har.pages[1].started_epoch_ms - har.pages[0].started_epoch_ms == 60000);
  CHECK(har.pages[0].recorded_onload_ms == -1);  // no pageTimings
}

TEST_CASE("HAR: no pages array makes one page of every entry", "[trace][har]") {
  json doc = HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"),
                          HarEntry("https://a.test/2", "2024-01-01T00:00:01Z")});
  doc["log"].erase("pages");
  for (json& entry : doc["log"]["entries"]) entry.erase("pageref");
  HarFile har = ParseOrFail(doc);
  REQUIRE(har.pages.size() == 1);
  CHECK(har.pages[0].id == "(no page)");
  CHECK(har.pages[0].title == "https://a.test/");
  CHECK(har.pages[0].entries.size() == 2);
}

TEST_CASE("HAR: HTTP/2 pseudo-headers are dropped", "[trace][har]") {
  json entry = HarEntry("https://a.test/", "2024-01-01T00:00:00Z");
  entry["request"]["httpVersion"] = "unknown";
  entry["response"]["httpVersion"] = "unknown";
  entry["request"]["headers"] = json::array({{{"name", ":method"}, {"value", "GET"}},
                                             {{"name", ":authority"}, {"value", "a.test"}},
                                             {{"name", "accept"}, {"value", "*/*"}}});
  entry["response"]["headers"] = json::array({{{"name", ":status"}, {"value", "200"}},
                                              {{"name", "content-type"}, {"value", "text/html"}}});
  HarFile har = ParseOrFail(HarDocument({entry}));
  const TraceEntry& e = har.pages[0].entries[0];
  CHECK(e.request_headers == HeaderList{{"accept", "*/*"}});
  CHECK(e.response_headers == HeaderList{{"content-type", "text/html"}});
  CHECK(e.http_version == "h2");
}

TEST_CASE("HAR: entries the browser's cache served", "[trace][har]") {
  json chrome_memory = HarEntry("https://a.test/", "2024-01-01T00:00:00Z");
  chrome_memory["response"]["_fromCache"] = "memory";
  chrome_memory["_fromCache"] = "memory";
  chrome_memory["response"]["content"] = {{"size", 5000}, {"compression", 3000}};
  json transfer_zero = HarEntry("https://a.test/1", "2024-01-01T00:00:01Z");
  transfer_zero["response"]["_transferSize"] = 0;
  transfer_zero["response"]["bodySize"] = -1;
  json zero_time = HarEntry("https://a.test/2", "2024-01-01T00:00:02Z", 0);
  zero_time["response"]["bodySize"] = 0;
  json network = HarEntry("https://a.test/3", "2024-01-01T00:00:03Z");
  network["response"]["_transferSize"] = 1100;
  HarFile har = ParseOrFail(HarDocument({chrome_memory, transfer_zero, zero_time, network}));
  const auto& entries = har.pages[0].entries;
  CHECK(entries[0].recorded_from_cache);
  CHECK(entries[0].response_body_bytes == 2000);  // content.size - compression
  CHECK(entries[1].recorded_from_cache);
  CHECK(entries[1].response_body_bytes == 1000);  // the resource's size, for a cold cache
  CHECK(entries[2].recorded_from_cache);
  CHECK_FALSE(entries[3].recorded_from_cache);
}

TEST_CASE("HAR: response body size fallbacks", "[trace][har]") {
  json from_transfer = HarEntry("https://a.test/", "2024-01-01T00:00:00Z");
  from_transfer["response"]["bodySize"] = -1;
  from_transfer["response"]["headersSize"] = 300;
  from_transfer["response"]["_transferSize"] = 4300;
  json estimated_headers = HarEntry("https://a.test/1", "2024-01-01T00:00:01Z");
  estimated_headers["response"]["bodySize"] = -1;
  estimated_headers["response"]["headersSize"] = -1;
  estimated_headers["response"]["_transferSize"] = 4300;
  json from_content = HarEntry("https://a.test/2", "2024-01-01T00:00:02Z");
  from_content["response"]["bodySize"] = -1;
  from_content["response"]["content"] = {{"size", 9000}, {"compression", 1000}};
  json post = HarEntry("https://a.test/3", "2024-01-01T00:00:03Z");
  post["request"]["method"] = "POST";
  post["request"]["bodySize"] = -1;
  post["request"]["postData"] = {{"mimeType", "text/plain"}, {"text", "hello"}};
  HarFile har = ParseOrFail(HarDocument({from_transfer, estimated_headers, from_content, post}));
  const auto& entries = har.pages[0].entries;
  CHECK(entries[0].response_body_bytes == 4000);
  // Status line (17 + "OK") plus "Content-Type: text/html\r\n" (9 + 12 + 4) = 44 bytes.
  CHECK(entries[1].response_body_bytes == 4300 - 44);
  CHECK(entries[2].response_body_bytes == 8000);
  CHECK(entries[3].method == "POST");
  CHECK(entries[3].request_body_bytes == 5);
}

TEST_CASE("HAR: non-http entries and unanswered requests are skipped and counted", "[trace][har]") {
  json data = HarEntry("data:image/png;base64,AAAA", "2024-01-01T00:00:01Z");
  json extension = HarEntry("chrome-extension://abc/x.js", "2024-01-01T00:00:01Z");
  json socket = HarEntry("wss://a.test/socket", "2024-01-01T00:00:01Z");
  json blocked = HarEntry("https://ads.test/x.js", "2024-01-01T00:00:01Z");
  blocked["response"]["status"] = 0;
  blocked["response"]["bodySize"] = -1;
  blocked["response"]["content"] = {{"size", 0}};
  json pushed = HarEntry("https://a.test/pushed.css", "2024-01-01T00:00:02Z", 0, "text/css");
  pushed["response"]["status"] = 0;  // Firefox's pushed streams
  pushed["timings"] = json::object();
  HarFile har = ParseOrFail(HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"), data,
                                         extension, socket, blocked, pushed}));
  const TracePage& page = har.pages[0];
  CHECK(page.skipped_entries == 4);
  REQUIRE(page.entries.size() == 2);
  CHECK(page.entries[1].url == "https://a.test/pushed.css");
  CHECK(page.entries[1].status == 200);
}

TEST_CASE("HAR: URLs are percent-encoded as a browser would send them", "[trace][har]") {
  json raw = HarEntry("https://a.test/css?family=A|B&x={1} 2", "2024-01-01T00:00:01Z");
  json unicode = HarEntry("https://a.test/caf\u00e9", "2024-01-01T00:00:02Z");
  // As Chrome sends a GitHub page view: brackets raw in the query (RFC 3986 wants them encoded).
  json brackets = HarEntry("https://[::1]:8080/p?dimensions[page]=x", "2024-01-01T00:00:03Z");
  HarFile har = ParseOrFail(
      HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"), raw, unicode, brackets}));
  const auto& entries = har.pages[0].entries;
  REQUIRE(entries.size() == 4);
  CHECK(har.pages[0].skipped_entries == 0);
  CHECK(entries[1].url == "https://a.test/css?family=A%7CB&x=%7B1%7D%202");
  CHECK(entries[2].url == "https://a.test/caf%C3%A9");
  CHECK(entries[3].url == "https://[::1]:8080/p?dimensions%5Bpage%5D=x");
}

TEST_CASE("HAR: resource types from _resourceType, else the MIME type", "[trace][har]") {
  json typed = HarEntry("https://a.test/data", "2024-01-01T00:00:01Z", 10, "text/html");
  typed["_resourceType"] = "Fetch";
  json font = HarEntry("https://a.test/f.woff2", "2024-01-01T00:00:02Z", 10, "font/woff2");
  json image = HarEntry("https://a.test/i.webp", "2024-01-01T00:00:03Z", 10, "image/webp");
  json json_body =
      HarEntry("https://a.test/j", "2024-01-01T00:00:04Z", 10, "application/json; charset=utf-8");
  json unknown = HarEntry("https://a.test/u", "2024-01-01T00:00:05Z", 10, "");
  unknown["response"]["headers"] = json::array({{{"name", "content-type"}, {"value", "text/css"}}});
  HarFile har = ParseOrFail(HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"), typed,
                                         font, image, json_body, unknown}));
  const auto& entries = har.pages[0].entries;
  CHECK(entries[1].resource_type == "fetch");
  CHECK(entries[2].resource_type == "font");
  CHECK(entries[3].resource_type == "image");
  CHECK(entries[4].resource_type == "xhr");
  CHECK(entries[5].resource_type == "stylesheet");  // from the Content-Type header
}

TEST_CASE("LooksLikeHar tells HAR files from sessions by content", "[trace][har]") {
  CHECK(LooksLikeHar("{\n  \"log\": {"));
  CHECK(LooksLikeHar("\xEF\xBB\xBF{\"log\":{\"version\":\"1.2\"}}"));
  CHECK(LooksLikeHar("  {\"version\": 1, \"log\" : {}}"));
  CHECK(LooksLikeHar("{\r\n"));  // pretty-printed: a session line is never just "{"
  CHECK_FALSE(LooksLikeHar("{\"t\": 0, \"type\": \"startup\"}\n{\"t\": 5, \"type\": \"wait\"}"));
  CHECK_FALSE(LooksLikeHar("# a session\n{\"t\": 0, \"type\": \"startup\"}"));
  CHECK_FALSE(LooksLikeHar("{\"t\": 0, \"type\": \"navigate\", \"url\": \"https://log/\"}"));
  CHECK_FALSE(LooksLikeHar(""));
  CHECK_FALSE(LooksLikeHar("[1, 2]"));
}

}  // namespace
}  // namespace netstack
