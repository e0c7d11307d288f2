// Which entry revealed which: redirects, recorded initiators (Chrome, Browsertime, WebPageTest)
// and inference from timing, with the gap kept for dependency-driven placement.
#include "tools/replay/trace/dependency_inference.h"

#include <catch2/catch.hpp>

#include "tests/trace/trace_test_util.h"

namespace netstack {
namespace {

using nlohmann::json;
using test::HarDocument;
using test::HarEntry;
using test::ParseOrFail;

// An entry starting `start` ms after 00:00:00 lasting `time` ms (half wait, half receive).
json At(const std::string& url, int start, double time, const std::string& mime = "text/html") {
  char stamp[64];
  std::snprintf(stamp, sizeof(stamp), "2024-01-01T00:00:%02d.%03dZ", start / 1000, start % 1000);
  return HarEntry(url, stamp, time, mime);
}

TEST_CASE("Dependencies: a redirect's target has it as parent", "[trace][dependencies]") {
  json moved = At("http://a.test/", 0, 100);
  moved["response"]["status"] = 301;
  moved["response"]["redirectURL"] = "https://a.test/home";
  json by_location = At("https://a.test/home", 110, 100);
  by_location["response"]["status"] = 302;
  by_location["response"]["headers"] =
      json::array({{{"name", "Location"}, {"value", "/final?x=1"}}});
  json final_page = At("https://a.test/final?x=1", 215, 100);
  HarFile har = ParseOrFail(HarDocument({moved, by_location, final_page}));
  const auto& entries = har.pages[0].entries;
  CHECK(entries[0].parent == -1);
  CHECK(entries[1].parent == 0);
  CHECK(entries[1].initiator == InitiatorKind::kRedirect);
  CHECK(entries[1].gap_ms == Approx(10));
  CHECK(entries[1].gap_from == TraceEntry::GapFrom::kParentEnd);
  CHECK(entries[2].parent == 1);  // the relative Location resolved against its URL
  CHECK(entries[2].initiator == InitiatorKind::kRedirect);
  CHECK(entries[2].gap_ms == Approx(5));
}

TEST_CASE("Dependencies: recorded initiators of every writer", "[trace][dependencies]") {
  json document = At("https://a.test/", 0, 200);
  json script = At("https://a.test/app.js", 250, 100, "text/javascript");
  json image = At("https://a.test/image.png", 400, 100, "image/png");
  // Chrome, found by the parser: {"type": "parser", "url": ...}.
  json parser = At("https://a.test/p.png", 410, 50, "image/png");
  parser["_initiator"] = {{"type", "parser"}, {"url", "https://a.test/"}, {"lineNumber", 12}};
  // Chrome, requested by a script: the first stack frame with a URL, through async parents.
  json by_script = At("https://a.test/s.json", 420, 50, "application/json");
  by_script["_initiator"] = {
      {"type", "script"},
      {"stack",
       {{"callFrames", json::array()},
        {"parent",
         {{"callFrames",
           json::array({{{"functionName", "f"}, {"url", ""}},
                        {{"functionName", "g"}, {"url", "https://a.test/app.js"}}})}}}}}};
  // Browsertime and WebPageTest: a URL string.
  json browsertime = At("https://a.test/b.css", 430, 50, "text/css");
  browsertime["_initiator"] = "https://a.test/app.js";
  // WebPageTest's detail: JSON text of a Chrome-style initiator.
  json wpt = At("https://a.test/w.png", 440, 50, "image/png");
  wpt["_initiator_detail"] = R"({"type":"script","url":"https://a.test/app.js"})";
  // Names something that is not in the page: inferred instead, the URL kept for diagnostics.
  json unknown = At("https://a.test/u.png", 450, 50, "image/png");
  unknown["_initiator"] = {{"type", "parser"}, {"url", "https://elsewhere.test/"}};
  HarFile har = ParseOrFail(
      HarDocument({document, script, image, parser, by_script, browsertime, wpt, unknown}));
  const auto& entries = har.pages[0].entries;
  REQUIRE(entries.size() == 8);
  CHECK(entries[3].parent == 0);
  CHECK(entries[3].initiator == InitiatorKind::kRecorded);
  CHECK(entries[3].initiator_url == "https://a.test/");
  CHECK(entries[3].gap_ms == Approx(210));
  for (int i : {4, 5, 6}) {
    INFO(entries[i].url);
    CHECK(entries[i].parent == 1);
    CHECK(entries[i].initiator == InitiatorKind::kRecorded);
    CHECK(entries[i].initiator_url == "https://a.test/app.js");
  }
  CHECK(entries[7].initiator == InitiatorKind::kInferred);
  CHECK(entries[7].initiator_url == "https://elsewhere.test/");
  CHECK(entries[7].parent == 1);  // the script, which ended at 350
}

TEST_CASE("Dependencies: a recorded parent still loading counts from its first byte",
          "[trace][dependencies]") {
  // The document streams from 0 to 1000; its first byte came at blocked + dns + connect +
  // send + wait = 5 + 20 + 30 + 1 + 44 = 100. The preload scanner found the CSS at 300.
  json document = At("https://a.test/", 0, 1000);
  document["timings"] = {{"blocked", 5}, {"dns", 20},  {"connect", 30}, {"ssl", 15},
                         {"send", 1},    {"wait", 44}, {"receive", 900}};
  json css = At("https://a.test/s.css", 300, 100, "text/css");
  css["_initiator"] = {{"type", "parser"}, {"url", "https://a.test/"}};
  // Started even before the first byte (a recording quirk): gap 0.
  json early = At("https://a.test/early.css", 50, 100, "text/css");
  early["_initiator"] = {{"type", "parser"}, {"url", "https://a.test/"}};
  HarFile har = ParseOrFail(HarDocument({document, css, early}));
  const auto& entries = har.pages[0].entries;
  REQUIRE(entries[2].url == "https://a.test/s.css");
  CHECK(entries[2].parent == 0);
  CHECK(entries[2].gap_from == TraceEntry::GapFrom::kParentFirstByte);
  CHECK(entries[2].gap_ms == Approx(200));
  CHECK(entries[1].parent == 0);
  CHECK(entries[1].gap_from == TraceEntry::GapFrom::kParentFirstByte);
  CHECK(entries[1].gap_ms == 0);
}

TEST_CASE("Dependencies: the latest earlier entry with the initiator's URL",
          "[trace][dependencies]") {
  json document = At("https://a.test/", 0, 100);
  json first = At("https://a.test/x.js", 100, 100, "text/javascript");
  json second = At("https://a.test/x.js", 300, 100, "text/javascript");
  json child = At("https://a.test/c.png", 450, 10, "image/png");
  child["_initiator"] = "https://a.test/x.js";
  HarFile har = ParseOrFail(HarDocument({document, first, second, child}));
  CHECK(har.pages[0].entries[3].parent == 2);
  CHECK(har.pages[0].entries[3].gap_ms == Approx(50));
}

TEST_CASE("Dependencies: inference prefers documents, scripts and stylesheets",
          "[trace][dependencies]") {
  json document = At("https://a.test/", 0, 100);                        // ends 100
  json script = At("https://a.test/a.js", 110, 90, "text/javascript");  // ends 200
  json image = At("https://a.test/i.png", 120, 130, "image/png");       // ends 250
  json later = At("https://a.test/l.png", 260, 10, "image/png");        // after both ended
  json during = At("https://a.test/d.png", 105, 10, "image/png");       // only the document ended
  HarFile har = ParseOrFail(HarDocument({document, script, image, later, during}));
  const auto& entries = har.pages[0].entries;
  REQUIRE(entries[4].url == "https://a.test/l.png");
  CHECK(entries[4].initiator == InitiatorKind::kInferred);
  CHECK(entries[4].parent == 2);  // the script, though the image ended later
  CHECK(entries[4].gap_ms == Approx(60));
  REQUIRE(entries[1].url == "https://a.test/d.png");
  CHECK(entries[1].parent == 0);
  CHECK(entries[1].gap_ms == Approx(5));
}

TEST_CASE("Dependencies: inference without a revealing entry, and before anything ended",
          "[trace][dependencies]") {
  std::vector<TraceEntry> entries(4);
  entries[0].start_ms = 0;
  entries[0].recorded_total_ms = 500;
  entries[0].timings.wait = 100;
  entries[0].resource_type = "document";
  entries[1].start_ms = 150;  // the document is still arriving
  entries[1].recorded_total_ms = 50;
  entries[1].resource_type = "image";
  entries[2].start_ms = 600;
  entries[2].recorded_total_ms = 10;
  entries[2].resource_type = "image";
  entries[3].start_ms = 700;
  entries[3].recorded_total_ms = 10;
  entries[3].resource_type = "image";
  std::vector<DependencyHints> hints(4);
  // Nothing revealing ended after the document: the latest to end is the fallback.
  entries[0].resource_type = "image";
  InferDependencies(&entries, hints);
  CHECK(entries[0].parent == -1);
  CHECK(entries[1].parent == 0);
  CHECK(entries[1].gap_from == TraceEntry::GapFrom::kParentFirstByte);
  CHECK(entries[1].gap_ms == Approx(50));
  CHECK(entries[2].parent == 0);
  CHECK(entries[2].gap_ms == Approx(100));
  CHECK(entries[3].parent == 2);
  CHECK(entries[3].gap_ms == Approx(90));
  for (const TraceEntry& entry : entries) CHECK(entry.gap_ms >= 0);
}

TEST_CASE("Dependencies: zero-length entries at the same start never parent themselves",
          "[trace][dependencies]") {
  std::vector<TraceEntry> entries(3);
  for (TraceEntry& entry : entries) {
    entry.start_ms = 10;
    entry.resource_type = "script";
  }
  entries[0].start_ms = 0;
  std::vector<DependencyHints> hints(3);
  InferDependencies(&entries, hints);
  CHECK(entries[1].parent == 0);
  // Entry 1 started at the same instant as entry 2: the same parse revealed both; it cannot
  // have revealed entry 2, however short its recording (a pushed stream, an untimed read).
  CHECK(entries[2].parent == 0);
}

TEST_CASE("Dependencies: a same-start entry becomes eligible for later children",
          "[trace][dependencies]") {
  std::vector<TraceEntry> entries(4);
  for (TraceEntry& entry : entries) entry.resource_type = "script";
  entries[0].start_ms = 0;
  entries[0].recorded_total_ms = 5;
  entries[1].start_ms = 10;  // zero-length, ends at 10
  entries[2].start_ms = 10;
  entries[2].recorded_total_ms = 50;
  entries[3].start_ms = 30;  // after entry 1 ended, entry 2 still running
  std::vector<DependencyHints> hints(4);
  InferDependencies(&entries, hints);
  CHECK(entries[2].parent == 0);
  CHECK(entries[3].parent == 1);
  CHECK(entries[3].gap_ms == Approx(20));
}

TEST_CASE("Dependencies: 20,000 entries sharing one start are placed without quadratic work",
          "[trace][dependencies]") {
  // A document (0..10 ms), then 20,000 zero-length scripts all at 20 ms (none can be the
  // parent of another: they started together), then one image at 30 ms.
  constexpr int kSame = 20'000;
  std::vector<TraceEntry> entries(kSame + 2);
  entries[0].start_ms = 0;
  entries[0].recorded_total_ms = 10;
  entries[0].resource_type = "document";
  for (int i = 1; i <= kSame; ++i) {
    entries[i].start_ms = 20;
    entries[i].recorded_total_ms = 0;
    entries[i].resource_type = "script";
  }
  entries[kSame + 1].start_ms = 30;
  entries[kSame + 1].recorded_total_ms = 5;
  entries[kSame + 1].resource_type = "image";
  std::vector<DependencyHints> hints(entries.size());
  InferDependencies(&entries, hints);
  int wrong = 0;
  for (int i = 1; i <= kSame; ++i) wrong += entries[i].parent != 0;
  CHECK(wrong == 0);
  CHECK(entries[1].gap_ms == Approx(10));
  // Once the start moves on they have ended: the latest of them (ties go to the later entry).
  CHECK(entries[kSame + 1].parent == kSame);
  CHECK(entries[kSame + 1].initiator == InitiatorKind::kInferred);
  CHECK(entries[kSame + 1].gap_ms == Approx(10));
}

}  // namespace
}  // namespace netstack
