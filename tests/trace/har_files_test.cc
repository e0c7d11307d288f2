// The real HAR files in ../shared/traces/har (third-party recordings, never copied into the
// repository): every one reads, with sane pages and entries. Skipped with a message when the
// folder is absent (NETSTACK_HAR_DIR overrides where it is looked for).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "net/base/net_error.h"
#include "tests/trace/trace_test_util.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

std::string SharedHarDir() {
  const char* env = std::getenv("NETSTACK_HAR_DIR");
  return env && *env ? env : SHARED_HAR_DIR;
}

std::vector<std::string> SharedHarFiles() {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& item : std::filesystem::directory_iterator(SharedHarDir(), error)) {
    if (item.path().extension() == ".har") files.push_back(item.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

#define SKIP_WITHOUT_SHARED_HARS(files)                                               \
  if ((files).empty()) {                                                              \
    WARN("SKIPPED: no HAR files in " << SharedHarDir() << " (set NETSTACK_HAR_DIR)"); \
    return;                                                                           \
  }

HarFile ReadOrFail(const std::string& path) {
  HarFile har;
  std::string error;
  bool ok = ReadHarFile(path, &har, &error);
  INFO(error);
  REQUIRE(ok);
  return har;
}

TEST_CASE("Shared HARs: every file reads with sane pages and entries", "[trace][har][shared]") {
  std::vector<std::string> files = SharedHarFiles();
  SKIP_WITHOUT_SHARED_HARS(files);
  for (const std::string& path : files) {
    INFO(path);
    HarFile har = ReadOrFail(path);
    CHECK_FALSE(har.creator.empty());
    REQUIRE_FALSE(har.pages.empty());
    for (size_t p = 0; p < har.pages.size(); ++p) {
      const TracePage& page = har.pages[p];
      INFO(page.id);
      REQUIRE_FALSE(page.entries.empty());
      CHECK(page.entries.size() <= 200);
      CHECK(page.started_epoch_ms > 1'400'000'000'000);  // recorded after 2014
      if (p > 0) CHECK(page.started_epoch_ms >= har.pages[p - 1].started_epoch_ms);
      CHECK(page.entries[0].parent == -1);
      CHECK(page.entries[0].start_ms == 0);
      CHECK(page.RecordedLastEndMs() > 0);
      CHECK(page.RecordedLastEndMs() < 60'000);
      for (size_t i = 0; i < page.entries.size(); ++i) {
        const TraceEntry& entry = page.entries[i];
        INFO(entry.url);
        CHECK((entry.url.rfind("http://", 0) == 0 || entry.url.rfind("https://", 0) == 0));
        // A recorded failure (blocked by the client) keeps no status.
        if (entry.recorded_error.empty()) CHECK(entry.status >= 100);
        CHECK(entry.status < 600);
        CHECK(entry.response_body_bytes >= 0);
        CHECK(entry.recorded_total_ms >= 0);
        if (i > 0) {
          CHECK(entry.start_ms >= page.entries[i - 1].start_ms);
          CHECK(entry.parent >= 0);
          CHECK(entry.parent < static_cast<int>(i));
          CHECK(entry.gap_ms >= 0);
          CHECK(entry.initiator != InitiatorKind::kNone);
        }
        for (const auto& [name, value] : entry.response_headers) CHECK(name.rfind(':', 0) != 0);
      }
    }
  }
}

TEST_CASE("Shared HARs: pages and entries as NOTICE.md counts them", "[trace][har][shared]") {
  std::vector<std::string> files = SharedHarFiles();
  SKIP_WITHOUT_SHARED_HARS(files);
  // file -> {pages, entries in the file}; a file without pages reads as one page.
  std::map<std::string, std::pair<size_t, int>> expected = {
      {"chrome_enorm-magazin.de.har", {1, 65}},  {"www.bbc.com.har", {1, 120}},
      {"chrome_github.com_home.har", {1, 20}},   {"chrome_h2_www.nghttp2.org.har", {1, 11}},
      {"browsertime_sitespeed.io.har", {3, 27}}, {"browsertime_h2_filamentgroup.com.har", {3, 44}},
      {"firefox_www.nghttp2.org.har", {1, 10}},  {"capture-har_redirect-loop.har", {1, 11}},
  };
  for (const std::string& path : files) {
    std::string name = std::filesystem::path(path).filename().string();
    auto it = expected.find(name);
    if (it == expected.end()) continue;  // a file added later: the generic test covers it
    INFO(name);
    HarFile har = ReadOrFail(path);
    CHECK(har.pages.size() == it->second.first);
    int entries = 0;
    for (const TracePage& page : har.pages) {
      entries += static_cast<int>(page.entries.size()) + page.skipped_entries;
    }
    CHECK(entries == it->second.second);
  }
}

TEST_CASE("Shared HARs: what each writer records", "[trace][har][shared]") {
  std::vector<std::string> files = SharedHarFiles();
  SKIP_WITHOUT_SHARED_HARS(files);
  std::string dir = SharedHarDir() + "/";
  auto read = [&](const char* name) { return ReadOrFail(dir + name); };
  if (std::filesystem::exists(dir + "capture-har_redirect-loop.har")) {
    // A chain of ten redirects: each hop's parent is the one before.
    HarFile har = read("capture-har_redirect-loop.har");
    const TracePage& page = har.pages[0];
    REQUIRE(page.entries.size() == 11);
    for (size_t i = 1; i < page.entries.size(); ++i) {
      CHECK(page.entries[i].initiator == InitiatorKind::kRedirect);
      CHECK(page.entries[i].parent == static_cast<int>(i) - 1);
    }
  }
  if (std::filesystem::exists(dir + "chrome_enorm-magazin.de.har")) {
    HarFile har = read("chrome_enorm-magazin.de.har");
    const TracePage& page = har.pages[0];
    CHECK(page.entries[1].url == "https://enorm-magazin.de/");
    CHECK(page.entries[1].initiator == InitiatorKind::kRedirect);
    CHECK(page.skipped_entries == 0);
    // Recorded with raw '|', which a browser sends as %7C.
    bool found = false;
    for (const TraceEntry& entry : page.entries) {
      found |= entry.url.rfind(
                   "https://fonts.googleapis.com/css?family=PT+Serif:400,700,"
                   "400italic%7CPT+Sans",
                   0) == 0;
    }
    CHECK(found);
  }
  if (std::filesystem::exists(dir + "www.bbc.com.har")) {
    // Recorded on a warm cache: most entries came from it (_transferSize 0).
    HarFile har = read("www.bbc.com.har");
    const TracePage& page = har.pages[0];
    int cached = 0;
    for (const TraceEntry& entry : page.entries) cached += entry.recorded_from_cache;
    CHECK(cached > 60);
    CHECK(cached < 120);
  }
  if (std::filesystem::exists(dir + "browsertime_sitespeed.io.har")) {
    HarFile har = read("browsertime_sitespeed.io.har");
    REQUIRE(har.pages.size() == 3);
    CHECK(har.pages[0].id == "page_1");
    CHECK(har.pages[0].recorded_onload_ms == Approx(1825));
    CHECK(har.pages[0].entries[1].initiator == InitiatorKind::kRecorded);
    CHECK(har.pages[0].entries[1].parent == 0);
  }
  if (std::filesystem::exists(dir + "firefox_www.nghttp2.org.har")) {
    // "2017-06-26T21:45:04.598+09:00"; onLoad -1; a pushed stream with status 0.
    HarFile har = read("firefox_www.nghttp2.org.har");
    const TracePage& page = har.pages[0];
    CHECK(page.started_epoch_ms == 1498481104598);
    CHECK(page.recorded_onload_ms == -1);
    CHECK(page.entries.size() == 10);
  }
  if (std::filesystem::exists(dir + "chrome_h2_www.nghttp2.org.har")) {
    HarFile har = read("chrome_h2_www.nghttp2.org.har");
    const TracePage& page = har.pages[0];
    // Blocked by the client: a recorded failure ("_error" in the response), not a skip.
    CHECK(page.skipped_entries == 0);
    REQUIRE(page.entries.size() == 11);
    int failed = 0;
    for (const TraceEntry& entry : page.entries) {
      if (entry.recorded_error.empty()) continue;
      ++failed;
      CHECK(entry.recorded_error == "net::ERR_BLOCKED_BY_CLIENT");
      CHECK(entry.recorded_error_code == ERR_FAILED);
      CHECK(entry.status == 0);
      CHECK_FALSE(entry.recorded_from_cache);
    }
    CHECK(failed == 1);
  }
}

TEST_CASE("Shared HARs: each host's protocol and the pushed entries", "[trace][har][shared]") {
  std::vector<std::string> files = SharedHarFiles();
  SKIP_WITHOUT_SHARED_HARS(files);
  std::string dir = SharedHarDir() + "/";
  auto pushed = [](const HarFile& har) {
    int n = 0;
    for (const TracePage& page : har.pages) {
      for (const TraceEntry& entry : page.entries) n += entry.pushed;
    }
    return n;
  };
  if (std::filesystem::exists(dir + "browsertime_h2_filamentgroup.com.har")) {
    // Browsertime (Chrome) marks server-pushed entries with "_was_pushed": 1.
    HarFile har = ReadOrFail(dir + "browsertime_h2_filamentgroup.com.har");
    HostProtocols hosts = RecordedHostProtocols(har.pages);
    CHECK(hosts["www.filamentgroup.com"] == TraceProtocol::kHttp2);
    CHECK(pushed(har) == 32);
  }
  if (std::filesystem::exists(dir + "chrome_h2_www.nghttp2.org.har")) {
    // httpVersion "unknown", but HTTP/2 pseudo-headers.
    HarFile har = ReadOrFail(dir + "chrome_h2_www.nghttp2.org.har");
    CHECK(RecordedHostProtocols(har.pages)["www.nghttp2.org"] == TraceProtocol::kHttp2);
  }
  if (std::filesystem::exists(dir + "firefox_www.nghttp2.org.har")) {
    // "HTTP/2.0"; the pushed stream recorded with status 0.
    HarFile har = ReadOrFail(dir + "firefox_www.nghttp2.org.har");
    CHECK(RecordedHostProtocols(har.pages)["www.nghttp2.org"] == TraceProtocol::kHttp2);
    CHECK(pushed(har) == 1);
  }
  if (std::filesystem::exists(dir + "capture-har_redirect-loop.har")) {
    HarFile har = ReadOrFail(dir + "capture-har_redirect-loop.har");
    HostProtocols hosts = RecordedHostProtocols(har.pages);
    REQUIRE_FALSE(hosts.empty());
    for (const auto& [host, protocol] : hosts) CHECK(protocol == TraceProtocol::kHttp11);
  }
}

TEST_CASE("Shared HARs: new runs and warm connections are plausible", "[trace][har][shared]") {
  std::vector<std::string> files = SharedHarFiles();
  SKIP_WITHOUT_SHARED_HARS(files);
  for (const std::string& path : files) {
    INFO(path);
    HarFile har = ReadOrFail(path);
    std::string name = std::filesystem::path(path).filename().string();
    for (size_t p = 0; p < har.pages.size(); ++p) {
      const TracePage& page = har.pages[p];
      INFO(page.id);
      // The first page, and each page navigating to the previous page's URL, begins a run.
      bool same_url = p > 0 && page.entries[0].url == har.pages[p - 1].entries[0].url;
      CHECK(page.new_run == (p == 0 || same_url));
      for (const TraceEntry& entry : page.entries) {
        if (!entry.recorded_warm_connection) continue;
        INFO(entry.url);
        CHECK(entry.timings.dns <= 0);
        CHECK(entry.timings.connect <= 0);
        CHECK_FALSE(entry.recorded_from_cache);
        CHECK(entry.recorded_error.empty());
      }
    }
    // Browsertime's files hold three iterations of one page.
    if (name.rfind("browsertime_", 0) == 0) {
      REQUIRE(har.pages.size() == 3);
      for (const TracePage& page : har.pages) CHECK(page.new_run);
    }
    // Firefox writes ports as "connection", capture-har nothing: no ids; and neither times
    // connection setup, so no connection is known open.
    if (name.rfind("firefox_", 0) == 0 || name.rfind("capture-har_", 0) == 0) {
      for (const TraceEntry& entry : har.pages[0].entries) {
        CHECK(entry.connection_id.empty());
        CHECK_FALSE(entry.recorded_warm_connection);
      }
    }
  }
}

TEST_CASE("Shared HARs: opened as traces, one navigate and one wait per page",
          "[trace][har][shared]") {
  std::vector<std::string> files = SharedHarFiles();
  SKIP_WITHOUT_SHARED_HARS(files);
  for (const std::string& path : files) {
    INFO(path);
    std::string error;
    std::unique_ptr<TraceSource> source = OpenTrace(path, &error);
    INFO(error);
    REQUIRE(source);
    size_t pages = ReadOrFail(path).pages.size();
    std::vector<SessionEvent> events = test::Drain(source.get(), &error);
    CHECK(error.empty());
    REQUIRE(events.size() == 2 * pages);
    for (size_t i = 0; i < events.size(); i += 2) {
      CHECK(events[i].type == SessionEvent::Type::kNavigate);
      REQUIRE(events[i].page);
      CHECK(events[i].url == events[i].page->entries[0].url);
      CHECK(events[i + 1].type == SessionEvent::Type::kWait);
    }
  }
}

}  // namespace
}  // namespace netstack
