// The HAR reader reads in one pass (har_stream.h): entries are read as they complete and not
// kept as JSON, a bounded number is read, and a file reads as its text does. And the entries
// it skips are counted by reason, never silently dropped.
#include "tools/replay/trace/har_stream.h"

#include <catch2/catch.hpp>
#include <string>

#include "tests/trace/trace_test_util.h"
#include "tools/replay/trace/har_reader.h"

namespace netstack {
namespace {

using nlohmann::json;
using test::HarDocument;
using test::HarEntry;
using test::HarError;
using test::ParseOrFail;

json ThreeEntries() {
  json with_body = HarEntry("https://a.test/x.js", "2024-01-01T00:00:01Z");
  with_body["response"]["content"]["text"] = std::string(10000, 'x');
  with_body["request"]["cookies"] = json::array({{{"name", "a"}, {"value", "b"}}});
  return HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"), with_body,
                      HarEntry("https://a.test/y.css", "2024-01-01T00:00:02Z")});
}

TEST_CASE("HAR stream: entries are read as they complete, not kept in the document",
          "[trace][har][stream]") {
  HarStream stream;
  JsonSyntaxError syntax;
  REQUIRE(StreamHarText(ThreeEntries().dump(), 100, &stream, &syntax));
  CHECK(stream.entry_count == 3);
  REQUIRE(stream.entries.size() == 3);
  CHECK(stream.entries[1].entry.url == "https://a.test/x.js");
  CHECK(stream.entries[1].file_index == 1);
  // What remains of the document: everything but the entries.
  CHECK(stream.doc["log"]["entries"] == json::array());
  CHECK(stream.doc["log"]["pages"].size() == 1);
  CHECK(stream.doc["log"]["creator"]["name"] == "test");
}

TEST_CASE("HAR stream: at most max_entries are read, all are counted", "[trace][har][stream]") {
  HarStream stream;
  JsonSyntaxError syntax;
  REQUIRE(StreamHarText(ThreeEntries().dump(), 2, &stream, &syntax));
  CHECK(stream.entry_count == 3);
  CHECK(stream.entries.size() == 2);
}

TEST_CASE("HAR stream: reading stops at the first bad entry", "[trace][har][stream]") {
  json doc = ThreeEntries();
  doc["log"]["entries"][1].erase("startedDateTime");
  doc["log"]["entries"][2].erase("request");
  HarStream stream;
  JsonSyntaxError syntax;
  REQUIRE(StreamHarText(doc.dump(), 100, &stream, &syntax));
  CHECK(stream.entry_error == "log.entries[1].startedDateTime: missing");
  CHECK(stream.entries.size() == 1);
  CHECK(stream.entry_count == 3);
}

TEST_CASE("HAR stream: the last log.entries wins, as in a parsed document",
          "[trace][har][stream]") {
  std::string one = HarEntry("https://a.test/", "2024-01-01T00:00:00Z").dump();
  std::string two = HarEntry("https://a.test/2", "2024-01-01T00:00:01Z").dump();
  std::string text = "{\"log\": {\"entries\": [" + one + "], \"entries\": [" + one + ", " + two +
                     "]}, \"log\": {\"entries\": [" + two + "]}}";
  HarFile har = ParseOrFail(json::parse(text));  // nlohmann keeps the last duplicate too
  HarStream stream;
  JsonSyntaxError syntax;
  REQUIRE(StreamHarText(text, 100, &stream, &syntax));
  REQUIRE(stream.entries.size() == 1);
  CHECK(stream.entries[0].entry.url == "https://a.test/2");
  HarFile streamed;
  std::string error;
  REQUIRE(ParseHar(text, "t.har", &streamed, &error));
  REQUIRE(streamed.pages.size() == 1);
  CHECK(streamed.pages[0].entries.size() == har.pages[0].entries.size());
}

TEST_CASE("HAR stream: a file reads as its text, with a byte order mark", "[trace][har][stream]") {
  test::TempDir dir;
  std::string text = ThreeEntries().dump(2);
  std::string path = dir.Write("a.har", "\xEF\xBB\xBF" + text);
  HarFile from_file, from_text;
  std::string error;
  REQUIRE(ReadHarFile(path, &from_file, &error));
  REQUIRE(ParseHar(text, path, &from_text, &error));
  REQUIRE(from_file.pages.size() == 1);
  CHECK(from_file.creator == "test");
  REQUIRE(from_file.pages[0].entries.size() == from_text.pages[0].entries.size());
  for (size_t i = 0; i < from_file.pages[0].entries.size(); ++i) {
    CHECK(from_file.pages[0].entries[i].url == from_text.pages[0].entries[i].url);
    CHECK(from_file.pages[0].entries[i].start_ms == from_text.pages[0].entries[i].start_ms);
  }
  // Errors name the line and column in the file, and past the entries as well.
  std::string broken_text = "{\"log\": {\"entries\": [\n\n  nope]}}";
  std::string broken = dir.Write("broken.har", "\xEF\xBB\xBF" + broken_text);
  CHECK_FALSE(ReadHarFile(broken, &from_file, &error));
  CHECK(error.rfind(broken + ":3:4: JSON syntax error: ", 0) == 0);  // at "nope"'s 'o'
  std::string text_error;
  CHECK_FALSE(ParseHar(broken_text, broken, &from_text, &text_error));
  CHECK(error == text_error);
  CHECK(from_file.pages.empty());
  std::string huge = dir.Write("huge.har", "{\"log\": {\"entries\": [{\"time\": 1e400}]}}");
  CHECK_FALSE(ReadHarFile(huge, &from_file, &error));
  CHECK(error == huge + ": JSON syntax error: number overflow parsing '1e400'");
  std::string deep = dir.Write("deep.har", std::string(300, '['));
  CHECK_FALSE(ReadHarFile(deep, &from_file, &error));
  CHECK(error == deep + ":1:1: JSON syntax error: nested deeper than 256 levels");
  std::string bad_entry = dir.Write("entry.har", "{\"log\": {\"entries\": [{}]}}");
  CHECK_FALSE(ReadHarFile(bad_entry, &from_file, &error));
  CHECK(error == bad_entry + ": log.entries[0].startedDateTime: missing");
}

TEST_CASE("HAR: skipped entries are counted by reason, with the first invalid URL",
          "[trace][har][skipped]") {
  json data = HarEntry("data:text/plain,x", "2024-01-01T00:00:01Z");
  json blocked = HarEntry("https://ads.test/x.js", "2024-01-01T00:00:01Z");
  blocked["response"]["status"] = 0;
  blocked["response"]["bodySize"] = -1;
  blocked["response"]["content"] = {{"size", 0}};
  // 3 MB: over Chrome's 2 MiB limit on URLs.
  json long_url = HarEntry("https://a.test/" + std::string(3'000'000, 'a'), "2024-01-01T00:00:02Z");
  json control_in_host = HarEntry(
      "https://a\x01"
      "b.test/",
      "2024-01-01T00:00:03Z");
  HarFile har = ParseOrFail(HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"), data,
                                         blocked, long_url, control_in_host}));
  REQUIRE(har.pages.size() == 1);
  const TracePage& page = har.pages[0];
  CHECK(page.entries.size() == 1);
  CHECK(page.skipped_entries == 4);
  CHECK(page.skipped_not_http == 1);
  CHECK(page.skipped_no_response == 1);
  CHECK(page.skipped_invalid_url == 2);
  CHECK(page.first_invalid_url == "t.har: log.entries[3].request.url: URL longer than 2 MiB");
}

TEST_CASE("HAR: URLs are trimmed, and tabs and newlines dropped, as a browser does",
          "[trace][har][skipped]") {
  json padded = HarEntry(" \t\x01https://a.test/a\nb\r\tc \x02", "2024-01-01T00:00:01Z");
  json control_in_path = HarEntry("https://a.test/x\x01y", "2024-01-01T00:00:02Z");
  HarFile har = ParseOrFail(
      HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z"), padded, control_in_path}));
  const TracePage& page = har.pages[0];
  CHECK(page.skipped_entries == 0);
  REQUIRE(page.entries.size() == 3);
  CHECK(page.entries[1].url == "https://a.test/abc");
  CHECK(page.entries[2].url == "https://a.test/x%01y");
}

TEST_CASE("HAR: a page of skipped entries passes its counts on, nothing to replay is an error",
          "[trace][har][skipped]") {
  json doc = HarDocument({HarEntry("https://a.test/", "2024-01-01T00:00:00Z")});
  doc["log"]["pages"].push_back({{"id", "page_2"}, {"startedDateTime", "2024-01-01T00:01:00Z"}});
  json socket = HarEntry("wss://a.test/socket", "2024-01-01T00:01:01Z");
  socket["pageref"] = "page_2";
  doc["log"]["entries"].push_back(socket);
  HarFile har = ParseOrFail(doc);
  REQUIRE(har.pages.size() == 1);
  CHECK(har.pages[0].skipped_entries == 1);
  CHECK(har.pages[0].skipped_not_http == 1);

  json bad = HarEntry("http://a\x01.test/", "2024-01-01T00:00:00Z");
  CHECK(HarError(HarDocument({bad, socket}).dump()) ==
        "t.har: no entry can be replayed: 2 skipped (1 not http(s), 1 invalid URL, 0 never "
        "answered); the first invalid URL: log.entries[0].request.url: invalid URL "
        "\"http://a?.test/\": contains a space or control character");
  // A HAR without entries is not an error: there is nothing to skip either.
  CHECK(HarError(HarDocument({}).dump()).empty());
}

}  // namespace
}  // namespace netstack
