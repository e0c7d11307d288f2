// Every way a session can be malformed gives one line naming the file, the line and the
// problem, and ends the session.
#include <catch2/catch.hpp>
#include <sstream>

#include "tests/trace/trace_test_util.h"
#include "tools/replay/trace/session_reader.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {
namespace {

using test::TempDir;

// The error reading `text` (as "s.jsonl" in `base_dir`) gives, checking that it is one line,
// that the source stays ended after it, and that the events before it were delivered.
std::string SessionError(const std::string& text, const std::string& base_dir = ".") {
  std::unique_ptr<TraceSource> source =
      OpenSessionStream(std::make_unique<std::istringstream>(text), "s.jsonl", base_dir);
  std::string error;
  std::vector<SessionEvent> events = test::Drain(source.get(), &error);
  CHECK(error.find('\n') == std::string::npos);
  SessionEvent event;
  std::string again;
  CHECK_FALSE(source->Next(&event, &again));
  return error;
}

// A valid first line, so errors are on line 2.
std::string OnLine2(const std::string& line) {
  return SessionError("{\"t\": 0, \"type\": \"startup\"}\n" + line + "\n");
}

TEST_CASE("Session errors: JSON and the event's shape", "[trace][session][errors]") {
  CHECK(OnLine2("{\"t\": 1, \"type\": \"wait\",}")
            .rfind("s.jsonl:2: JSON syntax error at column 25: ", 0) == 0);
  CHECK(OnLine2("[1]") == "s.jsonl:2: expected a JSON object, got an array");
  CHECK(OnLine2("{\"t\": 1}") == "s.jsonl:2: type: missing");
  CHECK(OnLine2("{\"t\": 1, \"type\": 5}") == "s.jsonl:2: type: expected a string, got a number");
  CHECK(OnLine2("{\"t\": 1, \"type\": \"hoover\", \"url\": \"https://a.test/\"}") ==
        "s.jsonl:2: unknown event type 'hoover' (expected startup, navigate, hover, omnibox, "
        "hint, wait, page or host)");
  // Text from the input is echoed without its control characters (found by the fuzzer).
  CHECK(OnLine2("{\"t\": 1, \"type\": \"ho\\nver\"}") ==
        "s.jsonl:2: unknown event type 'ho?ver' (expected startup, navigate, hover, omnibox, "
        "hint, wait, page or host)");
  CHECK(OnLine2("{\"t\": 1, \"type\": \"wait\", \"until\": 5}") ==
        "s.jsonl:2: unknown field 'until' in a wait event (fields starting with '_' are ignored)");
}

TEST_CASE("Session errors: text after a NUL byte is not ignored", "[trace][session][errors]") {
  // nlohmann's lexer stops at a NUL: the line once parsed as a valid wait event.
  std::string line = std::string("{\"t\": 1, \"type\": \"wait\"}") + '\0' + "garbage";
  CHECK(OnLine2(line) ==
        "s.jsonl:2: JSON syntax error at column 25: a NUL byte (0x00) in the text");
  // Inside a string too: JSON escapes it as \u0000.
  CHECK(OnLine2(std::string("{\"t\": 1, \"type\": \"wa") + '\0' + "it\"}")
            .rfind("s.jsonl:2: JSON syntax error at column 21: a NUL byte", 0) == 0);
}

TEST_CASE("Session errors: a number too large for a double is an error, not a crash",
          "[trace][session][errors]") {
  CHECK(OnLine2("{\"t\": 1e400, \"type\": \"wait\"}") ==
        "s.jsonl:2: JSON syntax error at column 7: number overflow parsing '1e400'");
}

TEST_CASE("Session errors: bytes that are not UTF-8 are echoed as '?'",
          "[trace][session][errors]") {
  // 0x9b alone is the 8-bit CSI, a terminal control; U+009B encoded (C2 9B) is one too.
  // nlohmann refuses the raw byte in a string and quotes what it read: the byte is a '?'.
  std::string raw = OnLine2("{\"t\": 1, \"type\": \"a\x9b[2Jb\"}");
  CHECK(raw ==
        "s.jsonl:2: JSON syntax error at column 20: syntax error while parsing value - "
        "invalid string: ill-formed UTF-8 byte; last read: '\"a?'");
  std::string c1 = OnLine2("{\"t\": 1, \"type\": \"a\xc2\x9b[2Jb\"}");
  CHECK(c1.find("unknown event type 'a?[2Jb'") != std::string::npos);
  // A syntax error quotes the token it stopped at: the raw byte is replaced there too.
  std::string syntax = OnLine2("{\"t\": 1, \"type\": x\x9b\x9b}");
  CHECK(syntax.rfind("s.jsonl:2: JSON syntax error at column ", 0) == 0);
  CHECK(syntax.find('\x9b') == std::string::npos);
  // Valid UTF-8 beyond ASCII stays.
  CHECK(OnLine2("{\"t\": 1, \"type\": \"h\xc3\xa9\"}").find("'h\xc3\xa9'") != std::string::npos);
}

TEST_CASE("Session errors: a message echoes a bounded part of a long line",
          "[trace][session][errors]") {
  // A 200 KB unterminated string: the syntax error quotes the token it read.
  std::string error = OnLine2("{\"t\": 1, \"type\": \"" + std::string(200'000, 'a'));
  CHECK(error.rfind("s.jsonl:2: JSON syntax error at column ", 0) == 0);
  CHECK(error.size() < kMaxSyntaxMessageBytes + 100);
  // A 200 KB event type: the message keeps its start and its end.
  std::string type = OnLine2("{\"t\": 1, \"type\": \"" + std::string(200'000, 'b') + "\"}");
  CHECK(type.size() <= kMaxMessageBytes);
  CHECK(type.rfind("s.jsonl:2: unknown event type 'bbb", 0) == 0);
  CHECK(type.find("hint, wait, page or host)") != std::string::npos);
}

TEST_CASE("Session errors: t", "[trace][session][errors]") {
  CHECK(OnLine2("{\"type\": \"wait\"}") == "s.jsonl:2: t: missing");
  CHECK(OnLine2("{\"t\": \"soon\", \"type\": \"wait\"}") ==
        "s.jsonl:2: t: expected a number, got a string");
  CHECK(OnLine2("{\"t\": -1, \"type\": \"wait\"}") ==
        "s.jsonl:2: t: -1 is out of range (0 to 1000000000000)");
  CHECK(SessionError("{\"t\": 1500, \"type\": \"wait\"}\n{\"t\": 1200, \"type\": \"wait\"}\n") ==
        "s.jsonl:2: 't' goes backwards (1200 after 1500)");
}

TEST_CASE("Session errors: event fields", "[trace][session][errors]") {
  CHECK(OnLine2("{\"t\": 1, \"type\": \"hover\"}") == "s.jsonl:2: url: missing");
  CHECK(OnLine2("{\"t\": 1, \"type\": \"hint\", \"url\": \"https://a.test/\", \"hint\": 1}") ==
        "s.jsonl:2: hint: expected a string, got a number");
  CHECK(OnLine2("{\"t\": 1, \"type\": \"omnibox\", \"url\": \"ftp://a.test/\"}")
            .rfind("s.jsonl:2: url: ", 0) == 0);
  CHECK(OnLine2("{\"t\": 1, \"type\": \"navigate\"}") ==
        "s.jsonl:2: a navigate event needs \"url\" or \"page\"");
  CHECK(OnLine2("{\"t\": 1, \"type\": \"navigate\", \"page\": 3}") ==
        "s.jsonl:2: page: expected a page id or an object, got a number");
  CHECK(OnLine2("{\"t\": 1, \"type\": \"navigate\", \"page\": \"home\"}") ==
        "s.jsonl:2: page 'home' is not defined (define it with a \"page\" line before this one)");
  CHECK(OnLine2("{\"t\": 1, \"type\": \"navigate\", \"page\": {}}") ==
        "s.jsonl:2: page: needs \"entries\" (an inline page) or \"har\" (a HAR file)");
  CHECK(
      OnLine2("{\"t\": 1, \"type\": \"navigate\", \"page\": {\"entries\": [], \"har\": \"a\"}}") ==
      "s.jsonl:2: page: has both \"entries\" and \"har\"");
  CHECK(OnLine2("{\"t\": 1, \"type\": \"navigate\", \"page\": {\"entires\": []}}") ==
        "s.jsonl:2: unknown field 'entires' in the page (fields starting with '_' are ignored)");
}

TEST_CASE("Session errors: page definitions", "[trace][session][errors]") {
  const std::string entries = "\"entries\": [{\"url\": \"https://a.test/\"}]";
  CHECK(OnLine2("{\"type\": \"page\", " + entries + "}") == "s.jsonl:2: id: missing");
  CHECK(OnLine2("{\"type\": \"page\", \"id\": \"\", " + entries + "}") ==
        "s.jsonl:2: id: must be 1 to 256 characters");
  CHECK(SessionError("{\"type\": \"page\", \"id\": \"p\", " + entries + "}\n" +
                     "{\"type\": \"page\", \"id\": \"p\", " + entries + "}\n") ==
        "s.jsonl:2: page 'p' is already defined");
  std::string many;
  for (int i = 0; i <= 10'000; ++i) {
    many += "{\"type\": \"page\", \"id\": \"p" + std::to_string(i) + "\", " + entries + "}\n";
  }
  CHECK(SessionError(many) == "s.jsonl:10001: more than 10000 pages defined");
}

TEST_CASE("Session errors: inline entries", "[trace][session][errors]") {
  auto entry_error = [](const std::string& entries) {
    return OnLine2("{\"t\": 1, \"type\": \"navigate\", \"page\": {\"entries\": " + entries + "}}");
  };
  CHECK(entry_error("{}") == "s.jsonl:2: page.entries: expected an array, got an object");
  CHECK(entry_error("[]") == "s.jsonl:2: page.entries: empty (a page needs at least its document)");
  CHECK(entry_error("[5]") == "s.jsonl:2: page.entries[0]: expected an object, got a number");
  CHECK(entry_error("[{\"bytes\": 5}]") == "s.jsonl:2: page.entries[0].url: missing");
  CHECK(entry_error("[{\"url\": \"a.test\"}]")
            .rfind("s.jsonl:2: page.entries[0].url: invalid URL", 0) == 0);
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"status\": 42}]") ==
        "s.jsonl:2: page.entries[0].status: 42 is out of range (100 to 599)");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"bytes\": -1}]") ==
        "s.jsonl:2: page.entries[0].bytes: -1 is out of range (0 to 1073741824)");
  // Bodies are bounded at 1 GiB, as in HAR files (trace.h).
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"bytes\": 1099511627776}]") ==
        "s.jsonl:2: page.entries[0].bytes: 1099511627776 is out of range (0 to 1073741824)");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"request_bytes\": 1073741825}]") ==
        "s.jsonl:2: page.entries[0].request_bytes: 1073741825 is out of range (0 to 1073741824)");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"bytes\": 1.5}]") ==
        "s.jsonl:2: page.entries[0].bytes: 1.5 is not an integer");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"bytes\": \"1k\"}]") ==
        "s.jsonl:2: page.entries[0].bytes: expected an integer, got a string");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"method\": \"GE T\"}]") ==
        "s.jsonl:2: page.entries[0].method: 'GE T' is not a method");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"server_ms\": -3}]") ==
        "s.jsonl:2: page.entries[0].server_ms: -3 is out of range (0 to 3600000)");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"after\": 0}]") ==
        "s.jsonl:2: page.entries[0].after: the first entry (the navigation) has no parent");
  CHECK(entry_error(
            "[{\"url\": \"https://a.test/\"}, {\"url\": \"https://a.test/x\", \"after\": 1}]") ==
        "s.jsonl:2: page.entries[1].after: 1 is not an earlier entry (0 to 0, or -1 for none)");
  CHECK(
      entry_error("[{\"url\": \"https://a.test/\"}, {\"url\": \"https://a.test/x\", \"after\": -1, "
                  "\"gap_ms\": 5}]") == "s.jsonl:2: page.entries[1].gap_ms: needs \"after\"");
  CHECK(entry_error(
            "[{\"url\": \"https://a.test/\", \"start_ms\": 100}, {\"url\": \"https://a.test/x\", "
            "\"start_ms\": 50, \"after\": -1}]") ==
        "s.jsonl:2: page.entries[1].start_ms: 50 is before the first entry (the navigation) "
        "starts");
  CHECK(entry_error(
            "[{\"url\": \"https://a.test/\"}, {\"url\": \"https://a.test/x\", \"start_ms\": 100},"
            " {\"url\": \"https://a.test/y\", \"after\": 1, \"start_ms\": 60}]") ==
        "s.jsonl:2: page.entries[2].start_ms: 60 is before its parent entries[1] starts (100)");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"headers\": \"x\"}]") ==
        "s.jsonl:2: page.entries[0].headers: expected an object or a list of [name, value], got "
        "a string");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"headers\": [[\"a\"]]}]") ==
        "s.jsonl:2: page.entries[0].headers[0]: expected [\"name\", \"value\"]");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"headers\": {\"a\": 1}}]") ==
        "s.jsonl:2: page.entries[0].headers.a: expected a string, got a number");
  CHECK(entry_error("[{\"url\": \"https://a.test/\", \"colour\": 1}]") ==
        "s.jsonl:2: unknown field 'colour' in page.entries[0] (fields starting with '_' are "
        "ignored)");
}

TEST_CASE("Session errors: HAR files", "[trace][session][errors]") {
  TempDir dir;
  dir.Write("broken.har", "{\n  \"log\": {\"entries\": [}\n}");
  dir.Write("ok.har",
            test::HarDocument({test::HarEntry("https://a.test/", "2024-01-01T00:00:00Z")}).dump());
  dir.Write("empty.har", "{\"log\": {\"entries\": []}}");
  auto har_error = [&](const std::string& page) {
    return SessionError(
        "{\"t\": 0, \"type\": \"startup\"}\n{\"t\": 1, \"type\": \"navigate\", "
        "\"page\": " +
            page + "}\n",
        dir.path());
  };
  // Both the session's line and the HAR's own error.
  CHECK(har_error("{\"har\": \"pages/missing.har\"}") ==
        "s.jsonl:2: " + dir.path() + "/pages/missing.har: cannot open: No such file or directory");
  CHECK(har_error("{\"har\": \"broken.har\"}")
            .rfind("s.jsonl:2: " + dir.path() + "/broken.har:2:23: JSON syntax error: ", 0) == 0);
  CHECK(har_error("{\"har\": \"ok.har\", \"page\": \"page_9\"}") ==
        "s.jsonl:2: page.page: 'page_9' is not a page of " + dir.path() +
            "/ok.har (it has 'page_1')");
  CHECK(har_error("{\"har\": \"ok.har\", \"page\": 1}") ==
        "s.jsonl:2: page.page: 1 is out of range (0 to 0) (" + dir.path() + "/ok.har has 1 page)");
  CHECK(har_error("{\"har\": \"ok.har\", \"page\": true}") ==
        "s.jsonl:2: page.page: expected a page id or an index, got a boolean");
  CHECK(har_error("{\"har\": \"empty.har\"}") ==
        "s.jsonl:2: " + dir.path() + "/empty.har: has no pages to replay");
  CHECK(har_error("{\"har\": \"\"}") == "s.jsonl:2: page.har: empty path");
  CHECK(har_error("{\"har\": 7}") == "s.jsonl:2: page.har: expected a string, got a number");
  CHECK(har_error("{\"har\": \".\"}") == "s.jsonl:2: " + dir.path() + "/.: is a directory");
}

TEST_CASE("Session errors: limits and files", "[trace][session][errors]") {
  std::string long_line =
      "{\"t\": 0, \"type\": \"wait\", \"_pad\": \"" + std::string(17 << 20, 'x') + "\"}\n";
  CHECK(SessionError("{\"t\": 0, \"type\": \"startup\"}\n" + long_line) ==
        "s.jsonl:2: line longer than the limit of 16 MiB");
  std::string error;
  CHECK_FALSE(OpenTrace("/nonexistent/s.jsonl", &error));
  CHECK(error == "/nonexistent/s.jsonl: cannot open: No such file or directory");
}

}  // namespace
}  // namespace netstack
