// Connection ids, new runs and warm connections as the HAR reader fills them
// (har_browser_state.h; docs/trace-format.md, "Runs and warm connections").
#include <catch2/catch.hpp>

#include "tests/trace/trace_test_util.h"
#include "tools/replay/trace/har_reader.h"

namespace netstack {
namespace {

using nlohmann::json;
using test::HarEntry;
using test::ParseOrFail;

// A page with id `id` starting at `started`, and optional members (like "_run").
json Page(const std::string& id, const std::string& started, json extra = json::object()) {
  json page = {{"id", id}, {"startedDateTime", started}, {"title", id}};
  page.update(extra);
  return page;
}

json Document(std::vector<json> pages, std::vector<json> entries) {
  return {{"log",
           {{"version", "1.2"},
            {"creator", {{"name", "test"}}},
            {"pages", pages},
            {"entries", entries}}}};
}

// An entry of page `pageref` with the given setup phases (-1: none recorded) and connection.
json Entry(const std::string& url, const std::string& pageref, const std::string& started,
           double dns, double connect, json connection = nullptr) {
  json entry = HarEntry(url, started);
  entry["pageref"] = pageref;
  entry["timings"]["dns"] = dns;
  entry["timings"]["connect"] = connect;
  if (!connection.is_null()) entry["connection"] = connection;
  return entry;
}

std::vector<bool> NewRuns(const HarFile& har) {
  std::vector<bool> runs;
  for (const TracePage& page : har.pages) runs.push_back(page.new_run);
  return runs;
}

TEST_CASE("HAR connection ids: connection, or WebPageTest's _socket", "[trace][har]") {
  json by_string = Entry("https://a.test/", "p", "2024-01-01T00:00:00Z", 5, 20, "26487");
  json by_number = Entry("https://a.test/x", "p", "2024-01-01T00:00:01Z", -1, -1, 26487);
  json socket = Entry("https://a.test/y", "p", "2024-01-01T00:00:02Z", -1, -1);
  socket["_socket"] = 9;
  json unknown = Entry("https://a.test/z", "p", "2024-01-01T00:00:03Z", -1, -1);
  unknown["_socket"] = -1;
  HarFile har = ParseOrFail(
      Document({Page("p", "2024-01-01T00:00:00Z")}, {by_string, by_number, socket, unknown}));
  const auto& entries = har.pages[0].entries;
  REQUIRE(entries.size() == 4);
  CHECK(entries[0].connection_id == "26487");
  CHECK(entries[1].connection_id == "26487");
  CHECK(entries[2].connection_id == "9");
  CHECK(entries[3].connection_id.empty());
}

TEST_CASE("HAR connection ids: a file whose every id is its entry's port has none",
          "[trace][har]") {
  // Firefox writes the server's port as "connection".
  std::vector<json> entries = {
      Entry("https://a.test/", "p", "2024-01-01T00:00:00Z", 0, 0, "443"),
      Entry("https://b.test/", "p", "2024-01-01T00:00:01Z", 0, 0, "443"),
      Entry("http://c.test:8080/", "p", "2024-01-01T00:00:02Z", 0, 0, "8080")};
  HarFile har = ParseOrFail(Document({Page("p", "2024-01-01T00:00:00Z")}, entries));
  for (const TraceEntry& entry : har.pages[0].entries) CHECK(entry.connection_id.empty());
  // One id that is not a port: they are ids (a socket may be numbered 443 by chance).
  entries.push_back(Entry("https://a.test/x", "p", "2024-01-01T00:00:03Z", -1, -1, "17"));
  har = ParseOrFail(Document({Page("p", "2024-01-01T00:00:00Z")}, entries));
  CHECK(har.pages[0].entries[0].connection_id == "443");
  CHECK(har.pages[0].entries[3].connection_id == "17");
}

TEST_CASE("HAR new runs: WebPageTest's _run, same-URL pages, browsing", "[trace][har]") {
  // WebPageTest: run 1's first and repeat views, then run 2's (same URL throughout).
  std::vector<json> pages, entries;
  const char* ids[] = {"page_1_0_1", "page_1_1_1", "page_2_0_1", "page_2_1_1"};
  for (int i = 0; i < 4; ++i) {
    std::string started = "2024-01-01T00:0" + std::to_string(i) + ":00Z";
    pages.push_back(Page(ids[i], started, {{"_run", i / 2 + 1}, {"_cached", i % 2}}));
    entries.push_back(Entry("https://a.test/", ids[i], started, 5, 20));
  }
  HarFile wpt = ParseOrFail(Document(pages, entries));
  CHECK(NewRuns(wpt) == std::vector<bool>{true, false, true, false});

  // Browsertime: one page per iteration, the same URL (a fragment does not matter).
  pages.clear();
  entries.clear();
  for (int i = 0; i < 3; ++i) {
    std::string id = "page_" + std::to_string(i + 1);
    std::string started = "2024-01-01T00:0" + std::to_string(i) + ":00Z";
    pages.push_back(Page(id, started));
    entries.push_back(
        Entry(i == 2 ? "https://a.test/#top" : "https://a.test/", id, started, 5, 20));
    entries.push_back(Entry("https://a.test/app.js", id, started, -1, -1));
  }
  CHECK(NewRuns(ParseOrFail(Document(pages, entries))) == std::vector<bool>{true, true, true});

  // Browsing: pages of different URLs, one browser; a page reloaded is a new run.
  pages.clear();
  entries.clear();
  const char* urls[] = {"https://a.test/", "https://b.test/", "https://a.test/x",
                        "https://a.test/x"};
  for (int i = 0; i < 4; ++i) {
    std::string id = "page_" + std::to_string(i + 1);
    std::string started = "2024-01-01T00:0" + std::to_string(i) + ":00Z";
    pages.push_back(Page(id, started));
    entries.push_back(Entry(urls[i], id, started, 5, 20));
  }
  CHECK(NewRuns(ParseOrFail(Document(pages, entries))) ==
        std::vector<bool>{true, false, false, true});
}

TEST_CASE("HAR warm connections: ids an earlier page of the run used", "[trace][har]") {
  std::vector<json> pages = {Page("p1", "2024-01-01T00:00:00Z"), Page("p2", "2024-01-01T00:01:00Z"),
                             Page("p3", "2024-01-01T00:02:00Z")};
  // No entry records a connect: only the ids say which connections were open.
  std::vector<json> entries = {
      Entry("https://a.test/", "p1", "2024-01-01T00:00:00Z", 0, 0, "7"),
      Entry("https://a.test/x", "p1", "2024-01-01T00:00:01Z", -1, -1, "7"),
      // Page 2 (another URL: same run): connection 7 was open; 9 is new.
      Entry("https://a.test/two", "p2", "2024-01-01T00:01:00Z", -1, -1, "7"),
      Entry("https://a.test/two.js", "p2", "2024-01-01T00:01:01Z", -1, -1, "7"),
      Entry("https://b.test/", "p2", "2024-01-01T00:01:02Z", 0, 0, "9"),
      // c.test's first entry rode b.test's connection, opened in this page (HTTP/2
      // coalescing): not warm.
      Entry("https://c.test/", "p2", "2024-01-01T00:01:03Z", -1, -1, "9"),
      // Page 3 reloads page 2: a new run (a fresh browser), where connection 7 is not open.
      Entry("https://a.test/two", "p3", "2024-01-01T00:02:00Z", 0, 0, "7")};
  HarFile har = ParseOrFail(Document(pages, entries));
  REQUIRE(har.pages.size() == 3);
  CHECK(NewRuns(har) == std::vector<bool>{true, false, true});
  auto warm = [](const TracePage& page) {
    std::vector<bool> out;
    for (const TraceEntry& entry : page.entries) out.push_back(entry.recorded_warm_connection);
    return out;
  };
  CHECK(warm(har.pages[0]) == std::vector<bool>{false, false});
  CHECK(warm(har.pages[1]) == std::vector<bool>{true, false, false, false});
  CHECK(warm(har.pages[2]) == std::vector<bool>{false});
}

TEST_CASE("HAR warm connections: a host's first entry without DNS and connect", "[trace][har]") {
  std::vector<json> entries = {
      Entry("https://a.test/", "p", "2024-01-01T00:00:00Z", 5, 20),
      Entry("https://a.test/x", "p", "2024-01-01T00:00:01Z", -1, -1),  // a's second: reused
      Entry("https://b.test/", "p", "2024-01-01T00:00:02Z", -1, -1),   // open before the page
      Entry("https://c.test/", "p", "2024-01-01T00:00:03Z", 0, 0),     // zeros alike
      Entry("https://d.test/", "p", "2024-01-01T00:00:04Z", 0, 30),    // paid its connect
      Entry("https://e.test/", "p", "2024-01-01T00:00:05Z", 12, -1),   // looked up: not open
      Entry("http://b.test/", "p", "2024-01-01T00:00:06Z", -1, -1)};   // another origin
  json cached = Entry("https://f.test/", "p", "2024-01-01T00:00:07Z", -1, -1);
  cached["_fromCache"] = "disk";
  json failed = Entry("https://g.test/", "p", "2024-01-01T00:00:08Z", -1, -1);
  failed["response"]["status"] = -1;
  json untimed = Entry("https://h.test/", "p", "2024-01-01T00:00:09Z", -1, -1);
  untimed["timings"]["wait"] = -1;
  untimed["timings"]["receive"] = -1;
  entries.insert(entries.end(), {cached, failed, untimed});
  HarFile har = ParseOrFail(Document({Page("p", "2024-01-01T00:00:00Z")}, entries));
  std::vector<bool> warm;
  for (const TraceEntry& entry : har.pages[0].entries)
    warm.push_back(entry.recorded_warm_connection);
  CHECK(warm ==
        std::vector<bool>{false, false, true, true, false, false, true, false, false, false});

  // A recording that never times setup (Firefox's zeros, capture-har) says nothing by it.
  for (json& entry : entries) {
    if (entry["timings"]["connect"].get<double>() > 0) entry["timings"]["connect"] = 0;
  }
  har = ParseOrFail(Document({Page("p", "2024-01-01T00:00:00Z")}, entries));
  for (const TraceEntry& entry : har.pages[0].entries) CHECK_FALSE(entry.recorded_warm_connection);
}

TEST_CASE("HAR warm connections: _connectionReused decides on a connection's first entry",
          "[trace][har]") {
  json fresh = Entry("https://a.test/", "p", "2024-01-01T00:00:00Z", -1, -1, "13");
  fresh["_connectionReused"] = false;  // set up while blocked (a preconnect), not before
  json reused = Entry("https://b.test/", "p", "2024-01-01T00:00:01Z", -1, -1, "14");
  reused["_connectionReused"] = true;
  json contradicted = Entry("https://c.test/", "p", "2024-01-01T00:00:02Z", -1, 25, "15");
  contradicted["_connectionReused"] = true;  // but it paid a connect: never warm
  // A file without any recorded connect: the member still decides.
  HarFile har =
      ParseOrFail(Document({Page("p", "2024-01-01T00:00:00Z")}, {fresh, reused, contradicted}));
  const auto& entries = har.pages[0].entries;
  CHECK_FALSE(entries[0].recorded_warm_connection);
  CHECK(entries[1].recorded_warm_connection);
  CHECK_FALSE(entries[2].recorded_warm_connection);
}

}  // namespace
}  // namespace netstack
