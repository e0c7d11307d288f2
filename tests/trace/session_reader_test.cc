// Session traces (docs/trace-format.md): every event type, pages defined once or inline or
// taken from HAR files, read line by line.
#include "tools/replay/trace/session_reader.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "tests/trace/trace_test_util.h"

namespace netstack {
namespace {

using test::Drain;
using test::TempDir;
using Type = SessionEvent::Type;

const std::string kData = TRACE_TEST_DATA_DIR;

std::unique_ptr<TraceSource> FromText(const std::string& text, const std::string& base_dir = ".") {
  return OpenSessionStream(std::make_unique<std::istringstream>(text), "s.jsonl", base_dir);
}

TEST_CASE("Session: every event type, from the example session", "[trace][session]") {
  std::string error;
  std::unique_ptr<TraceSource> source = OpenTrace(kData + "/session.jsonl", &error);
  REQUIRE(source);
  CHECK(source->name() == kData + "/session.jsonl");
  std::vector<SessionEvent> events = Drain(source.get(), &error);
  INFO(error);
  REQUIRE(error.empty());
  REQUIRE(events.size() == 11);

  CHECK(events[0].type == Type::kStartup);
  CHECK(events[0].t_ms == 0);
  CHECK(events[0].where == kData + "/session.jsonl:3");

  // A defined page: two inline entries, the image after the document.
  const SessionEvent& search = events[1];
  CHECK(search.type == Type::kNavigate);
  CHECK(search.t_ms == 100);
  CHECK(search.url == "https://search.example.test/");
  REQUIRE(search.page);
  CHECK(search.page->id == "search");
  CHECK(search.page->source == kData + "/session.jsonl:4");
  REQUIRE(search.page->entries.size() == 2);
  CHECK(search.page->entries[0].response_body_bytes == 12000);
  CHECK(search.page->entries[0].server_ms == 40);
  CHECK(search.page->entries[0].resource_type == "document");
  CHECK(search.page->entries[1].parent == 0);
  CHECK(search.page->entries[1].initiator == InitiatorKind::kExplicit);
  CHECK(search.page->entries[1].gap_ms == 15);
  CHECK(search.page->entries[1].start_ms == 15);
  CHECK(search.page->entries[1].resource_type == "image");

  CHECK(events[2].type == Type::kOmnibox);
  CHECK(events[2].text == "exa");
  CHECK(events[2].url == "https://www.example.test/");
  CHECK(events[3].type == Type::kHover);
  CHECK(events[4].type == Type::kHint);
  CHECK(events[4].hint == "preconnect");

  // HAR pages by id and by index, from one file read once.
  REQUIRE(events[5].page);
  CHECK(events[5].page->id == "home");
  CHECK(events[5].page->entries.size() == 2);
  CHECK(events[5].url == "https://www.example.test/");
  CHECK(events[6].type == Type::kWait);
  CHECK(events[6].t_ms == 1200);
  REQUIRE(events[7].page);
  CHECK(events[7].page->id == "article");
  CHECK(events[7].url == "https://www.example.test/article");

  // Inline page; a bare URL (a page of one document).
  REQUIRE(events[8].page);
  CHECK(events[8].page->entries[0].response_body_bytes == 30000);
  CHECK(events[8].page->source == kData + "/session.jsonl:12");
  REQUIRE(events[9].page);
  CHECK(events[9].page->entries.size() == 1);
  CHECK(events[9].page->entries[0].url == "https://plain.example.test/");

  // The defined page is shared, not copied.
  CHECK(events[10].page == events[1].page);
}

TEST_CASE("Session: a HAR page navigated to again is the same page, read once",
          "[trace][session]") {
  TempDir dir;
  std::string har =
      test::HarDocument({test::HarEntry("https://a.test/", "2024-01-01T00:00:00Z")}).dump();
  dir.Write("pages/a.har", har);
  std::string text;
  for (int i = 0; i < 5; ++i) {
    text += "{\"t\": " + std::to_string(i) +
            ", \"type\": \"navigate\", \"page\": {\"har\": \"pages/a.har\"}}\n";
  }
  std::unique_ptr<TraceSource> source = FromText(text, dir.path());
  std::string error;
  std::vector<SessionEvent> events = Drain(source.get(), &error);
  INFO(error);
  REQUIRE(events.size() == 5);
  for (const SessionEvent& event : events) CHECK(event.page == events[0].page);
}

TEST_CASE("Session: inline entries, their defaults and their order", "[trace][session]") {
  std::string line =
      R"({"t": 0, "type": "navigate", "page": {"title": "T", "entries": [)"
      R"({"url": "https://a.test/"},)"
      R"({"url": "https://a.test/late.js", "type": "script", "after": 0, "gap_ms": 300,)"
      R"( "method": "POST", "request_bytes": 10, "status": 201,)"
      R"( "headers": {"Cache-Control": "max-age=60"}, "request_headers": [["X-A", "1"]]},)"
      R"({"url": "https://a.test/early.png", "start_ms": 50, "after": 0},)"
      R"({"url": "https://b.test/free.js", "start_ms": 20, "after": -1},)"
      R"({"url": "https://a.test/child.png", "after": 1, "gap_ms": 5})"
      R"(]}})";
  std::unique_ptr<TraceSource> source = FromText(line + "\n");
  SessionEvent event;
  std::string error;
  REQUIRE(source->Next(&event, &error));
  const TracePage& page = *event.page;
  CHECK(page.title == "T");
  REQUIRE(page.entries.size() == 5);
  // Sorted by start: 0 a.test/, 20 free.js, 50 early.png, 300 late.js, 305 child.png.
  CHECK(page.entries[0].url == "https://a.test/");
  CHECK(page.entries[0].method == "GET");
  CHECK(page.entries[0].status == 200);
  CHECK(page.entries[0].response_body_bytes == 0);
  CHECK(page.entries[0].server_ms == -1);
  CHECK(page.entries[1].url == "https://b.test/free.js");
  CHECK(page.entries[1].parent == -1);
  CHECK(page.entries[1].start_ms == 20);
  CHECK(page.entries[2].url == "https://a.test/early.png");
  CHECK(page.entries[2].parent == 0);
  CHECK(page.entries[3].url == "https://a.test/late.js");
  CHECK(page.entries[3].start_ms == 300);
  CHECK(page.entries[3].method == "POST");
  CHECK(page.entries[3].status == 201);
  CHECK(page.entries[3].request_body_bytes == 10);
  CHECK(page.entries[3].response_headers == HeaderList{{"Cache-Control", "max-age=60"}});
  CHECK(page.entries[3].request_headers == HeaderList{{"X-A", "1"}});
  CHECK(page.entries[4].url == "https://a.test/child.png");
  CHECK(page.entries[4].parent == 3);  // remapped with the sort
  CHECK(page.entries[4].start_ms == 305);
  CHECK_FALSE(source->Next(&event, &error));
  CHECK(error.empty());
}

TEST_CASE("Session: CRLF line ends, a last line without newline, comments and blanks",
          "[trace][session]") {
  std::unique_ptr<TraceSource> source = FromText(
      "# comment\r\n\r\n   \t\n  # indented comment\n{\"t\": 0, \"type\": \"startup\"}\r\n"
      "{\"t\": 2.5, \"type\": \"wait\"}");
  std::string error;
  std::vector<SessionEvent> events = Drain(source.get(), &error);
  CHECK(error.empty());
  REQUIRE(events.size() == 2);
  CHECK(events[0].where == "s.jsonl:5");
  CHECK(events[1].where == "s.jsonl:6");
  CHECK(events[1].t_ms == 2.5);
}

TEST_CASE("Session: inline pages are released once the event is gone, defined ones are kept",
          "[trace][session]") {
  std::unique_ptr<TraceSource> source = FromText(
      "{\"type\": \"page\", \"id\": \"p\", \"entries\": [{\"url\": \"https://a.test/\"}]}\n"
      "{\"t\": 0, \"type\": \"navigate\", \"page\": \"p\"}\n"
      "{\"t\": 0, \"type\": \"navigate\", \"page\": {\"entries\": [{\"url\": "
      "\"https://b.test/\"}]}}\n");
  std::string error;
  std::weak_ptr<const TracePage> defined, inline_page;
  {
    SessionEvent event;
    REQUIRE(source->Next(&event, &error));
    defined = event.page;
    REQUIRE(source->Next(&event, &error));
    inline_page = event.page;
  }
  CHECK_FALSE(defined.expired());
  CHECK(inline_page.expired());
}

TEST_CASE("Session: a long session streams", "[trace][session]") {
  // 20,000 navigations, each with its own inline page, read one at a time.
  std::string text =
      "{\"type\": \"page\", \"id\": \"d\", \"entries\": [{\"url\": \"https://d.test/\"}]}\n";
  for (int i = 0; i < 20'000; ++i) {
    text += "{\"t\": " + std::to_string(i) +
            ", \"type\": \"navigate\", \"page\": {\"entries\": [{\"url\": \"https://h" +
            std::to_string(i % 100) + ".test/\"}, {\"url\": \"https://h" + std::to_string(i % 100) +
            ".test/a.js\", \"after\": 0}]}}\n";
  }
  std::unique_ptr<TraceSource> source = FromText(text);
  SessionEvent event;
  std::string error;
  int count = 0;
  std::weak_ptr<const TracePage> first;
  while (source->Next(&event, &error)) {
    if (count == 0) first = event.page;
    ++count;
  }
  CHECK(error.empty());
  CHECK(count == 20'000);
  CHECK(first.expired());
}

TEST_CASE("OpenTrace tells HAR from session by content, not by name", "[trace][session]") {
  TempDir dir;
  std::string har_as_txt = dir.Write(
      "recording.txt",
      test::HarDocument({test::HarEntry("https://a.test/", "2024-01-01T00:00:00Z")}).dump(2));
  std::string session_as_har = dir.Write("session.har", "{\"t\": 0, \"type\": \"startup\"}\n");
  std::string error;
  std::unique_ptr<TraceSource> har = OpenTrace(har_as_txt, &error);
  REQUIRE(har);
  std::vector<SessionEvent> events = Drain(har.get(), &error);
  REQUIRE(events.size() == 2);
  CHECK(events[0].type == Type::kNavigate);
  CHECK(events[0].where == har_as_txt + "#page_1");
  CHECK(events[1].type == Type::kWait);
  std::unique_ptr<TraceSource> session = OpenTrace(session_as_har, &error);
  REQUIRE(session);
  events = Drain(session.get(), &error);
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == Type::kStartup);
}

TEST_CASE("MakeHarSource: one navigate per page, each followed by a wait", "[trace][session]") {
  HarFile har;
  std::string error;
  REQUIRE(ReadHarFile(kData + "/two-pages.har", &har, &error));
  std::unique_ptr<TraceSource> source = MakeHarSource(std::move(har), "two-pages.har");
  CHECK(source->name() == "two-pages.har");
  std::vector<SessionEvent> events = Drain(source.get(), &error);
  CHECK(error.empty());
  REQUIRE(events.size() == 4);
  CHECK(events[0].type == Type::kNavigate);
  CHECK(events[0].page->id == "home");
  CHECK(events[0].url == "https://www.example.test/");
  CHECK(events[1].type == Type::kWait);
  CHECK(events[2].page->id == "article");
  CHECK(events[3].type == Type::kWait);
  for (const SessionEvent& event : events) CHECK(event.t_ms == 0);
}

}  // namespace
}  // namespace netstack
