// Each host's protocol as a trace records it (tools/replay/trace/host_protocol.h): HAR versions
// normalized, per-host majority, pushed entries, a session's host lines, and how the result
// reaches NetworkParams' per-host http2 under the user's settings.
#include "tools/replay/trace/host_protocol.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "tests/trace/trace_test_util.h"

namespace netstack {
namespace {

using nlohmann::json;
using test::HarDocument;
using test::HarEntry;
using test::ParseOrFail;

std::unique_ptr<TraceSource> FromText(const std::string& text) {
  return OpenSessionStream(std::make_unique<std::istringstream>(text), "s.jsonl", ".");
}

json Entry(const std::string& url, const std::string& version, int second = 0) {
  json e = HarEntry(url, "2024-01-01T00:00:0" + std::to_string(second) + ".000Z");
  e["response"]["httpVersion"] = version;
  return e;
}

TEST_CASE("Protocols: what recorders write, normalized", "[trace][protocol]") {
  using P = TraceProtocol;
  for (const char* v : {"http/1.1", "HTTP/1.1", "HTTP/1.0", "http/0.9", " http/1.1 "})
    CHECK(NormalizeRecordedProtocol(v) == P::kHttp11);
  for (const char* v : {"h2", "H2", "h2c", "HTTP/2", "http/2.0", "HTTP/2.0", "spdy/3.1"})
    CHECK(NormalizeRecordedProtocol(v) == P::kHttp2);
  for (const char* v : {"h3", "h3-29", "HTTP/3", "QUIC", "http/2+quic/46"})
    CHECK(NormalizeRecordedProtocol(v) == P::kHttp3);
  for (const char* v : {"", "unknown", "ftp", "1.1"})
    CHECK(NormalizeRecordedProtocol(v) == P::kUnknown);
  CHECK(std::string(TraceProtocolName(P::kHttp11)) == "http/1.1");
  CHECK(std::string(TraceProtocolName(P::kHttp2)) == "h2");
  CHECK(std::string(TraceProtocolName(P::kHttp3)) == "h3");
}

TEST_CASE("Protocols: a HAR entry's, from _protocol, httpVersion or pseudo-headers",
          "[trace][protocol][har]") {
  json chrome = Entry("https://a.test/", "h2", 0);
  json firefox = Entry("https://a.test/1", "HTTP/2", 1);
  json wpt = Entry("https://a.test/2", "HTTP/1.1", 2);
  wpt["_protocol"] = "QUIC";  // WebPageTest's own field wins: it tells QUIC apart
  json wpt_other = Entry("https://a.test/3", "", 3);
  wpt_other["_protocol"] = 5;  // not a string: not said
  wpt_other["request"]["httpVersion"] = "http/1.1";
  json pseudo = Entry("https://a.test/4", "unknown", 4);
  pseudo["request"]["httpVersion"] = "unknown";
  pseudo["request"]["headers"].push_back({{"name", ":method"}, {"value", "GET"}});
  json none = Entry("https://a.test/5", "", 5);
  none["request"]["httpVersion"] = "";
  HarFile har = ParseOrFail(HarDocument({chrome, firefox, wpt, wpt_other, pseudo, none}));
  const std::vector<TraceEntry>& e = har.pages[0].entries;
  REQUIRE(e.size() == 6);
  CHECK(e[0].protocol == TraceProtocol::kHttp2);
  CHECK(e[0].http_version == "h2");
  CHECK(e[1].protocol == TraceProtocol::kHttp2);
  CHECK(e[2].protocol == TraceProtocol::kHttp3);
  CHECK(e[3].protocol == TraceProtocol::kHttp11);
  CHECK(e[4].protocol == TraceProtocol::kHttp2);
  CHECK(e[5].protocol == TraceProtocol::kUnknown);
}

TEST_CASE("Protocols: pushed entries, Chrome's _was_pushed and Firefox's status 0",
          "[trace][protocol][har]") {
  json doc = Entry("https://a.test/", "h2", 0);
  json one = Entry("https://a.test/a.css", "h2", 1);
  one["_was_pushed"] = 1;
  json yes = Entry("https://a.test/b.js", "h2", 2);
  yes["_was_pushed"] = true;
  json zero = Entry("https://a.test/c.js", "h2", 3);
  zero["_was_pushed"] = 0;
  json text = Entry("https://a.test/d.js", "h2", 4);
  text["_was_pushed"] = "1";  // not a number or a boolean: not said
  json firefox = Entry("https://a.test/e.css", "HTTP/2.0", 5);
  firefox["response"]["status"] = 0;  // a pushed stream: no status, but a body
  HarFile har = ParseOrFail(HarDocument({doc, one, yes, zero, text, firefox}));
  const std::vector<TraceEntry>& e = har.pages[0].entries;
  REQUIRE(e.size() == 6);
  CHECK_FALSE(e[0].pushed);
  CHECK(e[1].pushed);
  CHECK(e[2].pushed);
  CHECK_FALSE(e[3].pushed);
  CHECK_FALSE(e[4].pushed);
  CHECK(e[5].pushed);
  CHECK(e[5].status == 200);
}

TEST_CASE("Protocols: per host by majority, ties to h2, cache hits and unknowns not counted",
          "[trace][protocol]") {
  std::vector<json> entries = {
      Entry("https://h2.test/", "h2", 0),        Entry("https://h2.test/a", "h2", 0),
      Entry("https://h2.test/b", "http/1.1", 0),  // a minority
      Entry("https://old.test/", "http/1.1", 1), Entry("https://old.test/a", "http/1.1", 1),
      Entry("https://old.test/b", "h2", 1),      Entry("https://tie.test/", "http/1.1", 2),
      Entry("https://tie.test/a", "h2", 2),      Entry("https://q.test/", "h3", 3),
      Entry("https://q.test/a", "h3", 3),        Entry("https://q.test/b", "h2", 3),
      Entry("https://mute.test/", "unknown", 4), Entry("https://Cached.test/", "h2", 5),
  };
  entries.back()["_fromCache"] = "memory";     // the browser's cache: no protocol used
  entries[11]["request"]["httpVersion"] = "";  // mute.test: no version at all
  HarFile har = ParseOrFail(HarDocument(entries));
  HostProtocols hosts = RecordedHostProtocols(har.pages);
  CHECK(hosts == HostProtocols{{"h2.test", TraceProtocol::kHttp2},
                               {"old.test", TraceProtocol::kHttp11},
                               {"tie.test", TraceProtocol::kHttp2},
                               {"q.test", TraceProtocol::kHttp3}});
}

TEST_CASE("Protocols: h2 and h3 hosts get http2 on unless the user set it",
          "[trace][protocol][params]") {
  HostProtocols hosts = {{"a.test", TraceProtocol::kHttp2},
                         {"b.test", TraceProtocol::kHttp3},
                         {"c.test", TraceProtocol::kHttp11},
                         {"mine.test", TraceProtocol::kHttp2}};
  NetworkParams params;
  std::string error;
  REQUIRE(params.Set("mine.test:http2", "off", &error));
  REQUIRE(params.Set("other.test:rtt_ms", "10", &error));
  CHECK(ApplyHostProtocols(hosts, &params) == 2);
  CHECK(params.ForHost("a.test").http2);
  CHECK(params.ForHost("b.test").http2);  // no QUIC model: h3 replays as h2
  CHECK_FALSE(params.ForHost("c.test").http2);
  CHECK(params.trace_hosts.count("c.test") == 0);  // http/1.1 is the default: nothing written
  CHECK(params.trace_hosts.at("a.test").http2);    // the trace's value, not the user's
  CHECK_FALSE(params.hosts.count("a.test"));
  CHECK_FALSE(params.ForHost("mine.test").http2);
  CHECK_FALSE(params.ForHost("other.test").http2);
  // http2=off and on without a host force every host, whatever the trace says.
  REQUIRE(params.Set("http2", "off", &error));
  CHECK_FALSE(params.ForHost("a.test").http2);
  REQUIRE(params.Set("http2", "on", &error));
  CHECK(params.ForHost("c.test").http2);
  CHECK(params.ForHost("mine.test").http2);
}

TEST_CASE("Protocols: a HAR trace reports its hosts' protocols", "[trace][protocol][har]") {
  HarFile har = ParseOrFail(
      HarDocument({Entry("https://a.test/", "h2", 0), Entry("https://b.test/x", "HTTP/1.1", 1)}));
  std::unique_ptr<TraceSource> source = MakeHarSource(std::move(har), "t.har");
  HostProtocols hosts;
  std::string error;
  REQUIRE(source->ReadHostProtocols(&hosts, &error));
  CHECK(hosts ==
        HostProtocols{{"a.test", TraceProtocol::kHttp2}, {"b.test", TraceProtocol::kHttp11}});
  std::vector<SessionEvent> events = test::Drain(source.get(), &error);
  CHECK(events.size() == 2);
}

TEST_CASE("Protocols: a session's host lines come first and are read before its events",
          "[trace][protocol][session]") {
  std::unique_ptr<TraceSource> source = FromText(
      "# hosts first\n"
      "{\"type\": \"host\", \"host\": \"WWW.A.test\", \"protocol\": \"h2\"}\n"
      "\n"
      "{\"type\": \"host\", \"host\": \"b.test\", \"protocol\": \"http/1.1\", \"_note\": 1}\n"
      "{\"type\": \"host\", \"host\": \"c.test\", \"protocol\": \"h3\"}\n"
      "{\"type\": \"host\", \"host\": \"d.test\"}\n"
      "{\"t\": 0, \"type\": \"startup\"}\n"
      "{\"t\": 5, \"type\": \"navigate\", \"url\": \"https://www.a.test/\"}\n");
  HostProtocols hosts;
  std::string error;
  REQUIRE(source->ReadHostProtocols(&hosts, &error));
  CHECK(hosts == HostProtocols{{"www.a.test", TraceProtocol::kHttp2},
                               {"b.test", TraceProtocol::kHttp11},
                               {"c.test", TraceProtocol::kHttp3},
                               {"d.test", TraceProtocol::kHttp11}});
  // The line read past is the first event, with its own line number.
  std::vector<SessionEvent> events = test::Drain(source.get(), &error);
  CHECK(error.empty());
  REQUIRE(events.size() == 2);
  CHECK(events[0].type == SessionEvent::Type::kStartup);
  CHECK(events[0].where == "s.jsonl:7");
  CHECK(events[1].where == "s.jsonl:8");
}

TEST_CASE("Protocols: sessions without host lines, or read without asking",
          "[trace][protocol][session]") {
  // Older sessions: no host line, every host http/1.1; the first line stays an event.
  std::unique_ptr<TraceSource> old = FromText("{\"t\": 0, \"type\": \"startup\"}\n");
  HostProtocols hosts = {{"stale.test", TraceProtocol::kHttp2}};
  std::string error;
  REQUIRE(old->ReadHostProtocols(&hosts, &error));
  CHECK(hosts.empty());
  CHECK(test::Drain(old.get(), &error).size() == 1);
  // An empty session.
  REQUIRE(FromText("# nothing\n")->ReadHostProtocols(&hosts, &error));
  CHECK(hosts.empty());
  // Next alone skips the host lines (and still checks them).
  std::unique_ptr<TraceSource> direct = FromText(
      "{\"type\": \"host\", \"host\": \"a.test\", \"protocol\": \"h2\"}\n"
      "{\"t\": 0, \"type\": \"startup\"}\n");
  CHECK(test::Drain(direct.get(), &error).size() == 1);
  CHECK(error.empty());
}

// The error reading `text`'s host lines gives: ReadHostProtocols' (one line), else Next's.
std::string HostError(const std::string& text) {
  std::unique_ptr<TraceSource> source = FromText(text);
  HostProtocols hosts;
  std::string error;
  if (source->ReadHostProtocols(&hosts, &error)) test::Drain(source.get(), &error);
  CHECK(error.find('\n') == std::string::npos);
  return error;
}

TEST_CASE("Protocols: a malformed host line is one line naming the file and line",
          "[trace][protocol][session][errors]") {
  const std::string first = "{\"type\": \"host\", \"host\": \"a.test\", \"protocol\": \"h2\"}\n";
  CHECK(HostError(first + "{\"type\": \"host\", \"host\": \"b.test\", \"protocol\": 2}\n") ==
        "s.jsonl:2: protocol: expected a string, got a number");
  CHECK(HostError(first + "{\"type\": \"host\", \"host\": \"b.test\", \"protocol\": \"h4\"}\n") ==
        "s.jsonl:2: protocol: 'h4' is not http/1.1, h2 or h3");
  CHECK(HostError(first + "{\"type\": \"host\", \"protocol\": \"h2\"}\n") ==
        "s.jsonl:2: host: missing");
  CHECK(HostError(first + "{\"type\": \"host\", \"host\": \"b.test:8443\"}\n") ==
        "s.jsonl:2: host: 'b.test:8443' is not a host name");
  CHECK(HostError(first + "{\"type\": \"host\", \"host\": \"https://b.test/\"}\n") ==
        "s.jsonl:2: host: 'https://b.test/' is not a host name");
  CHECK(HostError(first + "{\"type\": \"host\", \"host\": \"A.TEST\"}\n") ==
        "s.jsonl:2: host 'a.test' is declared twice");
  CHECK(HostError(first + "{\"type\": \"host\", \"host\": \"b.test\", \"proto\": \"h2\"}\n") ==
        "s.jsonl:2: unknown field 'proto' in a host line (fields starting with '_' are ignored)");
  // After the first event or page line: an error (the network is built before the replay).
  CHECK(HostError("{\"t\": 0, \"type\": \"startup\"}\n" + first) ==
        "s.jsonl:2: a host line must come before the session's first event or page line");
  // The first other line keeps its own errors and line number.
  CHECK(HostError(first + "{\"t\": 0, \"type\": \"hoover\"}\n") ==
        "s.jsonl:2: unknown event type 'hoover' (expected startup, navigate, hover, omnibox, "
        "hint, wait, page or host)");
  CHECK(HostError(first + "{\"t\": 0,\n").rfind("s.jsonl:2: JSON syntax error", 0) == 0);
}

}  // namespace
}  // namespace netstack
