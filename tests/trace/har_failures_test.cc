// How the HAR reader treats what real recorders write for requests that did not simply
// succeed: failures (negative statuses, "_error"), requests never answered or never finished,
// and the quirks of each writer. No entry is dropped without being counted, and no file is
// refused for them.
#include <catch2/catch.hpp>

#include "net/base/net_error.h"
#include "tests/trace/trace_test_util.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/recorded_error.h"

namespace netstack {
namespace {

using nlohmann::json;
using test::HarDocument;
using test::HarEntry;
using test::HarError;
using test::ParseOrFail;

json Document(const json& entry) {
  return HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"), entry});
}

TEST_CASE("NetErrorFromText: the net error a failure text names", "[trace][har]") {
  CHECK(NetErrorFromText("net::ERR_ABORTED") == ERR_ABORTED);
  CHECK(NetErrorFromText("ERR_NAME_NOT_RESOLVED") == ERR_NAME_NOT_RESOLVED);
  CHECK(NetErrorFromText("failed: net::ERR_CONNECTION_REFUSED (x)") == ERR_CONNECTION_REFUSED);
  CHECK(NetErrorFromText("-105") == ERR_NAME_NOT_RESOLVED);
  // Unknown names, other words, and what is not a failure all read as ERR_FAILED.
  CHECK(NetErrorFromText("net::ERR_BLOCKED_BY_CLIENT") == ERR_FAILED);
  CHECK(NetErrorFromText("XERR_ABORTED") == ERR_FAILED);
  CHECK(NetErrorFromText("ERR_IO_PENDING") == ERR_FAILED);
  CHECK(NetErrorFromText("-1") == ERR_FAILED);
  CHECK(NetErrorFromText("-99999") == ERR_FAILED);
  CHECK(NetErrorFromText("status -2") == ERR_FAILED);
  CHECK(NetErrorFromText("") == ERR_FAILED);
}

TEST_CASE("HAR failures: negative statuses are recorded failures, timed as recorded",
          "[trace][har]") {
  // WebPageTest writes requests that got no response with status -1 (others with -2...), and
  // times them.
  for (int status : {-1, -2, -3, -1000}) {
    INFO(status);
    json aborted = HarEntry("https://a.test/x.js", "2024-01-01T00:00:01Z", 250);
    aborted["response"]["status"] = status;
    HarFile har = ParseOrFail(Document(aborted));
    const TracePage& page = har.pages[0];
    CHECK(page.skipped_entries == 0);
    REQUIRE(page.entries.size() == 2);
    const TraceEntry& entry = page.entries[1];
    CHECK(entry.recorded_error == "status " + std::to_string(status));
    CHECK(entry.recorded_error_code == ERR_FAILED);
    CHECK(entry.status == 0);
    CHECK(entry.recorded_total_ms == 250);
    CHECK(entry.start_ms == 1000);
    CHECK_FALSE(entry.recorded_from_cache);
  }
  // Succeeded entries carry no failure.
  HarFile har = ParseOrFail(Document(HarEntry("https://a.test/y.js", "2024-01-01T00:00:01Z")));
  CHECK(har.pages[0].entries[1].recorded_error.empty());
  CHECK(har.pages[0].entries[1].recorded_error_code == 0);
}

TEST_CASE("HAR failures: _error in the response or the entry", "[trace][har]") {
  // Chrome's export: status 0, nothing transferred, the net error in response._error.
  json blocked = HarEntry("https://ads.test/x.js", "2024-01-01T00:00:01Z", 0);
  blocked["response"]["status"] = 0;
  blocked["response"]["bodySize"] = -1;
  blocked["response"]["_transferSize"] = 0;
  blocked["response"]["_error"] = "net::ERR_NAME_NOT_RESOLVED";
  HarFile har = ParseOrFail(Document(blocked));
  REQUIRE(har.pages[0].entries.size() == 2);
  const TraceEntry& entry = har.pages[0].entries[1];
  CHECK(entry.recorded_error == "net::ERR_NAME_NOT_RESOLVED");
  CHECK(entry.recorded_error_code == ERR_NAME_NOT_RESOLVED);
  CHECK(entry.status == 0);
  CHECK_FALSE(entry.recorded_from_cache);  // not a cache hit, though nothing was transferred

  // Aborted after the headers: the status stays; an entry-level _error counts too.
  json aborted = HarEntry("https://a.test/video.mp4", "2024-01-01T00:00:01Z", 900);
  aborted["_error"] = "net::ERR_ABORTED";
  har = ParseOrFail(Document(aborted));
  CHECK(har.pages[0].entries[1].recorded_error == "net::ERR_ABORTED");
  CHECK(har.pages[0].entries[1].recorded_error_code == ERR_ABORTED);
  CHECK(har.pages[0].entries[1].status == 200);
  CHECK(har.pages[0].entries[1].recorded_total_ms == 900);

  // A number names the code; true says "failed" without one.
  json coded = HarEntry("https://a.test/c", "2024-01-01T00:00:01Z");
  coded["response"]["status"] = 0;
  coded["response"]["_error"] = -105;
  har = ParseOrFail(Document(coded));
  CHECK(har.pages[0].entries[1].recorded_error == "error -105");
  CHECK(har.pages[0].entries[1].recorded_error_code == ERR_NAME_NOT_RESOLVED);
  coded["response"]["_error"] = true;
  har = ParseOrFail(Document(coded));
  CHECK(har.pages[0].entries[1].recorded_error == "error");
  CHECK(har.pages[0].entries[1].recorded_error_code == ERR_FAILED);

  // "", 0, false, null and other types say no failure: a status-200 entry is an ordinary one.
  for (const json& none : {json(""), json(0), json(false), json(nullptr), json::object()}) {
    json entry = HarEntry("https://a.test/d", "2024-01-01T00:00:01Z");
    entry["_error"] = none;
    entry["response"]["_error"] = none;
    har = ParseOrFail(Document(entry));
    CHECK(har.pages[0].entries[1].recorded_error.empty());
  }
  // A long text is kept bounded.
  coded["response"]["_error"] = std::string(10000, 'x');
  har = ParseOrFail(Document(coded));
  CHECK(har.pages[0].entries[1].recorded_error.size() == 256);
}

TEST_CASE("HAR failures: never answered and never finished are skipped and counted",
          "[trace][har]") {
  // Status 0 (or no status at all) with no body and no failure recorded: never answered.
  json unanswered = HarEntry("https://a.test/n", "2024-01-01T00:00:01Z", 0);
  unanswered["response"]["status"] = 0;
  unanswered["response"]["bodySize"] = -1;
  unanswered["response"]["content"] = {{"size", 0}};
  json no_status = unanswered;
  no_status["response"].erase("status");
  json null_status = unanswered;
  null_status["response"]["status"] = nullptr;
  // Answered, but no time and every phase absent or -1: the recording ended first.
  json unfinished = HarEntry("https://a.test/u", "2024-01-01T00:00:02Z");
  unfinished.erase("time");
  unfinished["timings"] = {{"blocked", -1}, {"dns", -1},  {"connect", -1},
                           {"send", -1},    {"wait", -1}, {"receive", -1}};
  json unfinished_minus = HarEntry("https://a.test/v", "2024-01-01T00:00:02Z");
  unfinished_minus["time"] = -1;
  unfinished_minus.erase("timings");
  // Neither a time nor timings says nothing (a hand-written HAR); an empty "timings" neither.
  json silent = HarEntry("https://a.test/s", "2024-01-01T00:00:02Z");
  silent.erase("time");
  silent.erase("timings");
  json empty_timings = silent;
  empty_timings["timings"] = {{"comment", ""}, {"_queued", 5}};
  // The same without timings but served by the browser's cache, or pushed: kept.
  json cached = unfinished;
  cached["_fromCache"] = "memory";
  json pushed = unfinished;
  pushed["_was_pushed"] = 1;
  HarFile har = ParseOrFail(HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"),
                                         unanswered, no_status, null_status, unfinished,
                                         unfinished_minus, silent, empty_timings, cached, pushed}));
  const TracePage& page = har.pages[0];
  CHECK(page.skipped_no_response == 3);
  CHECK(page.skipped_unfinished == 2);
  CHECK(page.skipped_entries == 5);
  REQUIRE(page.entries.size() == 5);
  CHECK(page.entries[1].url == "https://a.test/s");
  CHECK(page.entries[1].recorded_total_ms == 0);
  CHECK(page.entries[2].url == "https://a.test/s");
  CHECK(page.entries[3].recorded_from_cache);
  CHECK(page.entries[4].pushed);

  // When nothing else remains, the error says how many never finished.
  CHECK(HarError(HarDocument({unfinished, unanswered}).dump()) ==
        "t.har: no entry can be replayed: 2 skipped (0 not http(s), 0 invalid URL, 1 never "
        "answered, 1 never finished)");
}

TEST_CASE("HAR: brackets outside an IPv6 host are percent-encoded, never dropped", "[trace][har]") {
  json path = HarEntry("https://a.test/p[1]/x?y[]=1&z=[2]#f[3]", "2024-01-01T00:00:01Z");
  json no_path = HarEntry("https://a.test?x[1]=2", "2024-01-01T00:00:02Z");
  json ipv6 = HarEntry("http://[2001:db8::1]:8080/a[b]", "2024-01-01T00:00:03Z");
  json bad_host = HarEntry("https://a[1].test/", "2024-01-01T00:00:04Z");
  HarFile har = ParseOrFail(HarDocument(
      {HarEntry("https://a.test/", "2024-01-01T00:00:00Z"), path, no_path, ipv6, bad_host}));
  const TracePage& page = har.pages[0];
  REQUIRE(page.entries.size() == 4);
  CHECK(page.entries[1].url == "https://a.test/p%5B1%5D/x?y%5B%5D=1&z=%5B2%5D#f%5B3%5D");
  CHECK(page.entries[2].url == "https://a.test?x%5B1%5D=2");
  CHECK(page.entries[3].url == "http://[2001:db8::1]:8080/a%5Bb%5D");
  // A bracket in a host name is no URL: skipped, counted, and the first such named.
  CHECK(page.skipped_entries == 1);
  CHECK(page.skipped_invalid_url == 1);
  CHECK(page.first_invalid_url.rfind("t.har: log.entries[4].request.url: ", 0) == 0);
}

}  // namespace
}  // namespace netstack
