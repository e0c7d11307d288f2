// The DevTools protocol log reader (devtools_log.h) on small logs written in the tests: every
// event it reads, and how each maps onto the model (trace.h).
#include <catch2/catch.hpp>

#include "net/base/net_error.h"
#include "tests/trace/devtools_test_util.h"

namespace netstack {
namespace {

using test::AddLoad;
using test::Data;
using test::Failed;
using test::Finished;
using test::Json;
using test::Message;
using test::ParseOk;
using test::Received;
using test::WillBeSent;

TEST_CASE("DevTools log: a request, its response, data and finish make one entry",
          "[trace][devtools]") {
  Json timing = {{"requestTime", 100.001}, {"dnsStart", 0},
                 {"dnsEnd", 10},           {"connectStart", 10},
                 {"connectEnd", 50},       {"sslStart", 20},
                 {"sslEnd", 50},           {"sendStart", 50},
                 {"sendEnd", 51},          {"receiveHeadersEnd", 150},
                 {"proxyStart", -1},       {"workerStart", -1}};
  Json extra = {{"timing", timing},
                {"protocol", "h2"},
                {"connectionId", 12},
                {"encodedDataLength", 300},
                {"headers", {{"content-type", "text/html"}, {"set-cookie", "a=1\nb=2"}}}};
  Json log = Json::array({WillBeSent("1", "https://a.test/", 100.0, "Document"),
                          Received("1", "https://a.test/", 100.2, 200, extra),
                          Data("1", 100.25, 4000, 600), Finished("1", 100.3, 1500)});
  HarFile har = ParseOk(log);
  REQUIRE(har.pages.size() == 1);
  const TracePage& page = har.pages[0];
  CHECK(page.id == "page_1");
  CHECK(page.source == "t.json#page_1");
  CHECK(page.title == "https://a.test/");
  CHECK(page.new_run);
  CHECK(page.started_epoch_ms == 1'700'000'100'000);
  CHECK(page.recorded_onload_ms == -1);
  CHECK(page.skipped_entries == 0);
  REQUIRE(page.entries.size() == 1);
  const TraceEntry& e = page.entries[0];
  CHECK(e.url == "https://a.test/");
  CHECK(e.method == "GET");
  CHECK(e.status == 200);
  CHECK(e.status_text == "OK");
  CHECK(e.resource_type == "document");
  CHECK(e.http_version == "h2");
  CHECK(e.protocol == TraceProtocol::kHttp2);
  CHECK(e.connection_id == "12");
  CHECK_FALSE(e.recorded_warm_connection);
  CHECK_FALSE(e.recorded_from_cache);
  CHECK(e.recorded_error.empty());
  CHECK(e.response_headers ==
        HeaderList{{"content-type", "text/html"}, {"set-cookie", "a=1"}, {"set-cookie", "b=2"}});
  CHECK(e.response_body_bytes == 1200);  // loadingFinished's total less the header bytes
  CHECK(e.start_ms == 0);
  CHECK(e.recorded_total_ms == Approx(300));
  // HAR's phases: queued 1 ms before the timing's base, connect includes ssl, wait from the
  // request's end to the headers' end, receive to the finish.
  CHECK(e.timings.blocked == Approx(1));
  CHECK(e.timings.dns == Approx(10));
  CHECK(e.timings.connect == Approx(40));
  CHECK(e.timings.ssl == Approx(30));
  CHECK(e.timings.send == Approx(1));
  CHECK(e.timings.wait == Approx(99));
  CHECK(e.timings.receive == Approx(149));
  CHECK(e.RecordedFirstByteMs() == Approx(151));
  CHECK(e.parent == -1);
  CHECK(e.initiator == InitiatorKind::kNone);
}

TEST_CASE("DevTools log: ExtraInfo events give the headers as sent and received, in any order",
          "[trace][devtools]") {
  Json log = Json::array();
  // The request's ExtraInfo before its requestWillBeSent, the response's after its response.
  log.push_back(Message(
      "Network.requestWillBeSentExtraInfo",
      {{"requestId", "1"}, {"headers", {{":path", "/"}, {"accept", "*/*"}, {"cookie", "c=1"}}}}));
  log.push_back(WillBeSent("1", "https://a.test/", 1, "Document"));
  log.push_back(Received("1", "https://a.test/", 1.1));
  log.push_back(Message("Network.responseReceivedExtraInfo",
                        {{"requestId", "1"}, {"statusCode", 200}, {"headers", {{"x-raw", "1"}}}}));
  log.push_back(Finished("1", 1.2, 1100));
  HarFile har = ParseOk(log);
  const TraceEntry& e = har.pages[0].entries[0];
  CHECK(e.request_headers == HeaderList{{"accept", "*/*"}, {"cookie", "c=1"}});
  CHECK(e.response_headers == HeaderList{{"x-raw", "1"}});
  CHECK(e.response_body_bytes == 1000);
}

TEST_CASE("DevTools log: a redirect chain is one entry per hop, each the next one's parent",
          "[trace][devtools]") {
  Json log = Json::array({WillBeSent("r", "http://a.test/", 10.0, "Document")});
  auto hop = [&](const std::string& url, double at, const std::string& from, int status) {
    Json message = WillBeSent("r", url, at, "Document");
    message["params"]["redirectResponse"] = test::ResponseObject(
        from, status, {{"headers", {{"location", url}}}, {"encodedDataLength", 0}});
    log.push_back(message);
  };
  hop("https://a.test/", 10.1, "http://a.test/", 301);
  hop("https://www.a.test/", 10.3, "https://a.test/", 302);
  log.push_back(Received("r", "https://www.a.test/", 10.4));
  log.push_back(Finished("r", 10.5, 600));
  HarFile har = ParseOk(log);
  REQUIRE(har.pages.size() == 1);
  const auto& entries = har.pages[0].entries;
  REQUIRE(entries.size() == 3);
  CHECK(har.pages[0].title == "http://a.test/");
  CHECK(entries[0].url == "http://a.test/");
  CHECK(entries[0].status == 301);
  CHECK(entries[0].recorded_total_ms == Approx(100));  // it ends where the next hop starts
  CHECK(entries[0].response_body_bytes == 0);
  CHECK(entries[1].status == 302);
  CHECK(entries[1].start_ms == Approx(100));
  CHECK(entries[1].recorded_total_ms == Approx(200));
  CHECK(entries[2].status == 200);
  CHECK(entries[2].start_ms == Approx(300));
  CHECK(entries[2].response_body_bytes == 500);
  CHECK(entries[0].parent == -1);
  CHECK(entries[1].parent == 0);
  CHECK(entries[1].initiator == InitiatorKind::kRedirect);
  CHECK(entries[2].parent == 1);
  CHECK(entries[2].initiator == InitiatorKind::kRedirect);
  CHECK(entries[2].gap_ms == Approx(0).margin(1e-6));
}

TEST_CASE("DevTools log: initiators (parser, script stacks, preload) give the parents",
          "[trace][devtools]") {
  Json log = Json::array();
  AddLoad(&log, "d", "https://a.test/", 1.0, 1.1, "Document");
  AddLoad(&log, "c", "https://a.test/s.css", 1.05, 1.2, "Stylesheet",
          {{"type", "parser"}, {"url", "https://a.test/"}, {"lineNumber", 3}});
  // The top frames carry no URL: the first in the async parent stack names the document.
  AddLoad(&log, "j", "https://cdn.test/x.js", 1.06, 1.3, "Script",
          {{"type", "script"},
           {"stack",
            {{"callFrames", Json::array({{{"functionName", "f"}, {"url", ""}}})},
             {"parent", {{"callFrames", Json::array({{{"url", "https://a.test/"}}})}}}}}});
  AddLoad(&log, "p", "https://a.test/p.js", 1.07, 1.2, "Script",
          {{"type", "preload"}, {"url", "https://a.test/"}});
  AddLoad(&log, "f", "https://a.test/f.woff2", 1.25, 1.4, "Font",
          {{"type", "parser"}, {"url", "https://a.test/s.css"}});
  // An initiator that is no entry of the page: inferred from timing.
  AddLoad(&log, "i", "https://a.test/i.png", 1.35, 1.5, "Image",
          {{"type", "parser"}, {"url", "https://elsewhere.test/"}});
  HarFile har = ParseOk(log);
  const auto& e = har.pages[0].entries;
  REQUIRE(e.size() == 6);
  CHECK(e[1].url == "https://a.test/s.css");
  CHECK(e[1].parent == 0);
  CHECK(e[1].initiator == InitiatorKind::kRecorded);
  CHECK(e[1].initiator_url == "https://a.test/");
  // Started while the document was still arriving: counted from its first byte.
  CHECK(e[1].gap_from == TraceEntry::GapFrom::kParentFirstByte);
  CHECK(e[2].url == "https://cdn.test/x.js");
  CHECK(e[2].parent == 0);
  CHECK(e[2].initiator == InitiatorKind::kRecorded);
  CHECK(e[2].initiator_url == "https://a.test/");
  CHECK(e[3].parent == 0);
  CHECK(e[3].initiator == InitiatorKind::kRecorded);
  CHECK(e[4].url == "https://a.test/f.woff2");
  CHECK(e[4].parent == 1);
  CHECK(e[4].initiator == InitiatorKind::kRecorded);
  CHECK(e[4].gap_from == TraceEntry::GapFrom::kParentEnd);
  CHECK(e[4].gap_ms == Approx(50));
  CHECK(e[5].initiator == InitiatorKind::kInferred);
  CHECK(e[5].parent == 2);  // the script, the revealing entry that ended last before it
  for (size_t i = 0; i < e.size(); ++i) CHECK(e[i].parent < static_cast<int>(i));
}

TEST_CASE("DevTools log: a CORS preflight takes the initiator of the request it precedes",
          "[trace][devtools]") {
  Json log = Json::array();
  AddLoad(&log, "d", "https://a.test/", 1.0, 1.1, "Document");
  AddLoad(&log, "s", "https://a.test/app.js", 1.15, 1.2, "Script",
          {{"type", "parser"}, {"url", "https://a.test/"}});
  // The script's fetch, then its preflight, sent first by the browser but logged second, with
  // the fetch as its initiator.
  AddLoad(&log, "x", "https://api.test/v1", 1.30, 1.6, "Fetch",
          {{"type", "script"},
           {"stack", {{"callFrames", Json::array({{{"url", "https://a.test/app.js"}}})}}}});
  AddLoad(&log, "o", "https://api.test/v1", 1.301, 1.4, "Other",
          {{"type", "preflight"}, {"url", "https://api.test/v1"}, {"requestId", "x"}});
  HarFile har = ParseOk(log);
  const auto& e = har.pages[0].entries;
  REQUIRE(e.size() == 4);
  CHECK(e[2].parent == 1);
  // Revealed with the fetch by the script, not after the fetch ended.
  CHECK(e[3].parent == 1);
  CHECK(e[3].initiator_url == "https://a.test/app.js");
}

TEST_CASE("DevTools log: connectionReused on a connection's first entry makes it warm",
          "[trace][devtools]") {
  Json log = Json::array();
  auto conn = [](Json id, bool reused) {
    return Json{{"connectionId", std::move(id)}, {"connectionReused", reused}};
  };
  AddLoad(&log, "a", "https://a.test/", 1.0, 1.1, "Document", {{"type", "other"}}, conn(7, true));
  AddLoad(&log, "b", "https://a.test/b", 1.2, 1.3, "Script", {{"type", "other"}}, conn(7, true));
  AddLoad(&log, "c", "https://c.test/c", 1.2, 1.3, "Script", {{"type", "other"}}, conn(8, false));
  AddLoad(&log, "d", "https://c.test/d", 1.4, 1.5, "Script", {{"type", "other"}}, conn(8, true));
  AddLoad(&log, "e", "https://e.test/e", 1.4, 1.5, "Script", {{"type", "other"}}, conn(0, true));
  AddLoad(&log, "f", "https://f.test/f", 1.4, 1.5, "Script", {{"type", "other"}}, conn("9", true));
  HarFile har = ParseOk(log);
  const auto& e = har.pages[0].entries;
  REQUIRE(e.size() == 6);
  CHECK(e[0].connection_id == "7");
  CHECK(e[0].recorded_warm_connection);  // open before the page's first request
  CHECK(e[1].connection_id == "7");
  CHECK_FALSE(e[1].recorded_warm_connection);  // not the connection's first entry
  CHECK(e[2].connection_id == "8");
  CHECK_FALSE(e[2].recorded_warm_connection);
  CHECK_FALSE(e[3].recorded_warm_connection);  // reused, but the page opened it
  CHECK(e[4].connection_id.empty());           // 0: no connection
  CHECK_FALSE(e[4].recorded_warm_connection);
  CHECK(e[5].connection_id == "9");  // a string id, as some writers give it
  CHECK(e[5].recorded_warm_connection);
}

TEST_CASE("DevTools log: onLoad and onContentLoad count from the page's first request",
          "[trace][devtools]") {
  Json log = Json::array();
  AddLoad(&log, "early", "https://a.test/sw.js", 4.9, 5.0, "Other");
  AddLoad(&log, "d", "https://a.test/", 5.0, 5.2, "Document");
  log.push_back(Message("Page.domContentEventFired", {{"timestamp", 5.4}}));
  log.push_back(Message("Page.loadEventFired", {{"timestamp", 5.6}}));
  log.push_back(Message("Page.loadEventFired", {{"timestamp", 5.9}}));  // the first counts
  HarFile har = ParseOk(log);
  const TracePage& page = har.pages[0];
  CHECK(page.entries[0].url == "https://a.test/sw.js");
  CHECK(page.title == "https://a.test/");  // the navigation's URL
  CHECK(page.recorded_content_load_ms == Approx(500));
  CHECK(page.recorded_onload_ms == Approx(700));
}

TEST_CASE("DevTools log: loadingFailed is the recorded failure, at its time", "[trace][devtools]") {
  Json log = Json::array();
  AddLoad(&log, "d", "https://a.test/", 1.0, 1.1, "Document");
  auto fail = [&](const std::string& id, const std::string& text, bool canceled = false) {
    log.push_back(WillBeSent(id, "https://a.test/" + id, 1.1));
    log.push_back(Failed(id, 1.4, text, canceled));
  };
  fail("x", "net::ERR_ABORTED");
  fail("y", "net::ERR_NAME_NOT_RESOLVED");
  fail("z", "net::ERR_NOT_IN_OUR_LIST");
  fail("w", "", /*canceled=*/true);
  HarFile har = ParseOk(log);
  const auto& e = har.pages[0].entries;
  REQUIRE(e.size() == 5);
  CHECK(har.pages[0].skipped_entries == 0);
  CHECK(e[1].recorded_error == "net::ERR_ABORTED");
  CHECK(e[1].recorded_error_code == ERR_ABORTED);
  CHECK(e[1].status == 0);  // never answered
  CHECK(e[1].start_ms == Approx(100));
  CHECK(e[1].RecordedEndMs() == Approx(400));
  CHECK(e[2].recorded_error_code == ERR_NAME_NOT_RESOLVED);
  CHECK(e[3].recorded_error == "net::ERR_NOT_IN_OUR_LIST");
  CHECK(e[3].recorded_error_code == ERR_FAILED);
  CHECK(e[4].recorded_error == "net::ERR_ABORTED");
  CHECK(e[0].recorded_error.empty());
  CHECK(e[0].recorded_error_code == 0);
}

TEST_CASE("DevTools log: what the browser's caches served, with the resource's own size",
          "[trace][devtools]") {
  Json log = Json::array();
  AddLoad(&log, "d", "https://a.test/", 1.0, 1.1, "Document");
  log.push_back(WillBeSent("m", "https://a.test/m.js", 1.2));
  log.push_back(Message("Network.requestServedFromCache", {{"requestId", "m"}}));
  log.push_back(Received("m", "https://a.test/m.js", 1.2, 200,
                         {{"encodedDataLength", 0}, {"headers", {{"Content-Length", "5000"}}}}));
  log.push_back(Finished("m", 1.2, 0));
  log.push_back(WillBeSent("k", "https://a.test/k.js", 1.2));
  log.push_back(Received("k", "https://a.test/k.js", 1.21, 200,
                         {{"encodedDataLength", 0}, {"fromDiskCache", true}}));
  log.push_back(Data("k", 1.22, 700, 0));
  log.push_back(Finished("k", 1.22, 0));
  AddLoad(&log, "p", "https://a.test/p.js", 1.3, 1.4, "Script", {{"type", "other"}},
          {{"fromPrefetchCache", true}});
  HarFile har = ParseOk(log);
  const auto& e = har.pages[0].entries;
  REQUIRE(e.size() == 4);
  CHECK_FALSE(e[0].recorded_from_cache);
  CHECK(e[1].recorded_from_cache);
  CHECK(e[1].response_body_bytes == 5000);
  CHECK(e[2].recorded_from_cache);
  CHECK(e[2].response_body_bytes == 700);
  CHECK(e[3].recorded_from_cache);
}

TEST_CASE("DevTools log: skips are counted by reason, and an unfinished response ends at its data",
          "[trace][devtools]") {
  Json log = Json::array();
  AddLoad(&log, "d", "https://a.test/", 1.0, 1.1, "Document");
  AddLoad(&log, "data", "data:image/png;base64,AAAA", 1.2, 1.2, "Image");
  AddLoad(&log, "blob", "blob:https://a.test/0-1", 1.2, 1.2, "Image");
  AddLoad(&log, "bad", "https://a\x01z.test/", 1.2, 1.3, "Image");
  log.push_back(WillBeSent("never", "https://a.test/never", 1.3));
  log.push_back(WillBeSent("cut", "https://a.test/cut", 1.3));
  log.push_back(Received("cut", "https://a.test/cut", 1.4, 200, {{"encodedDataLength", 50}}));
  log.push_back(Data("cut", 1.5, 900, 300));
  log.push_back(Data("cut", 1.6, 900, 200));
  HarFile har = ParseOk(log);
  const TracePage& page = har.pages[0];
  CHECK(page.skipped_not_http == 2);
  CHECK(page.skipped_invalid_url == 1);
  CHECK(page.skipped_unfinished == 1);
  CHECK(page.skipped_no_response == 0);
  CHECK(page.skipped_entries == 4);
  CHECK(page.first_invalid_url.starts_with(
      "t.json: message 9 (Network.requestWillBeSent): params.request.url: "));
  REQUIRE(page.entries.size() == 2);
  const TraceEntry& cut = page.entries[1];
  CHECK(cut.url == "https://a.test/cut");
  CHECK(cut.RecordedEndMs() == Approx(600));  // its last dataReceived
  CHECK(cut.response_body_bytes == 500);      // the bytes it got
  CHECK(cut.recorded_error.empty());
}

TEST_CASE("DevTools log: each main-frame navigation starts a page, iframes' documents do not",
          "[trace][devtools]") {
  Json log = Json::array();
  AddLoad(&log, "early", "https://a.test/early", 0.5, 0.6, "Other");
  AddLoad(&log, "d1", "https://a.test/", 1.0, 1.1, "Document");
  log.push_back(
      Message("Page.frameNavigated", {{"frame", {{"id", "main"}, {"url", "https://a.test/"}}}}));
  log.push_back(Message("Page.frameAttached", {{"frameId", "child"}, {"parentFrameId", "main"}}));
  Json iframe = WillBeSent("if", "https://ads.test/frame", 1.2, "Document");
  iframe["params"]["frameId"] = "child";
  log.push_back(iframe);
  log.push_back(Received("if", "https://ads.test/frame", 1.25));
  log.push_back(Finished("if", 1.3, 1100));
  log.push_back(Message("Page.loadEventFired", {{"timestamp", 1.5}}));
  log.push_back(Message("Page.navigatedWithinDocument", {{"frameId", "main"}, {"url", "#x"}}));
  AddLoad(&log, "d2", "https://a.test/next", 5.0, 5.2, "Document");
  AddLoad(&log, "s2", "https://a.test/next.js", 5.3, 5.4, "Script",
          {{"type", "parser"}, {"url", "https://a.test/next"}});
  log.push_back(Message("Page.loadEventFired", {{"timestamp", 5.8}}));
  HarFile har = ParseOk(log);
  REQUIRE(har.pages.size() == 2);
  const TracePage& first = har.pages[0];
  const TracePage& second = har.pages[1];
  CHECK(first.entries.size() == 3);
  CHECK(first.title == "https://a.test/");
  CHECK(first.new_run);
  CHECK(first.recorded_onload_ms == Approx(1000));  // from the early request
  CHECK(second.id == "page_2");
  CHECK(second.title == "https://a.test/next");
  CHECK_FALSE(second.new_run);  // the same browser
  REQUIRE(second.entries.size() == 2);
  CHECK(second.entries[0].start_ms == 0);
  CHECK(second.entries[1].parent == 0);
  CHECK(second.recorded_onload_ms == Approx(800));
  CHECK(second.started_epoch_ms == 1'700'000'005'000);
}

TEST_CASE("DevTools log: Chrome's performance-log wrappings and command replies are read",
          "[trace][devtools]") {
  Json log = Json::array();
  Json a = WillBeSent("1", "https://a.test/", 1, "Document");
  log.push_back({{"message", a}, {"webview", "W"}});
  Json b = Received("1", "https://a.test/", 1.1);
  Json wrapped = {{"message", b}, {"webview", "W"}};
  log.push_back({{"level", "INFO"}, {"message", wrapped.dump()}, {"timestamp", 1}});
  log.push_back({{"id", 3}, {"result", Json::object()}});
  log.push_back(Finished("1", 1.2, 1100).dump());
  log.push_back(Message("Tracing.somethingNew", 17));  // unknown: ignored, params unread
  log.push_back(Received("unknown-id", "https://b.test/", 1.3));
  log.push_back(Data("unknown-id", 1.3, 5, 5));
  HarFile har = ParseOk(log);
  REQUIRE(har.pages.size() == 1);
  REQUIRE(har.pages[0].entries.size() == 1);
  CHECK(har.pages[0].entries[0].status == 200);
  CHECK(har.pages[0].entries[0].response_body_bytes == 1000);
  CHECK(har.pages[0].skipped_entries == 0);
}

TEST_CASE("DevTools log: told from HARs and sessions by its content", "[trace][devtools]") {
  CHECK(LooksLikeDevtoolsLog("[{\"method\": \"Network.requestWillBeSent\""));
  CHECK(LooksLikeDevtoolsLog("\xEF\xBB\xBF \n [\n"));
  CHECK_FALSE(LooksLikeDevtoolsLog("{\"log\": {}}"));
  CHECK_FALSE(LooksLikeDevtoolsLog("{\"type\": \"startup\", \"t\": 0}\n"));
  CHECK_FALSE(LooksLikeDevtoolsLog(""));
}

}  // namespace
}  // namespace netstack
