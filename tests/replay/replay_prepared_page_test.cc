#include "tools/replay/replay_prepared_page.h"

#include <catch2/catch.hpp>

#include "tests/replay/replay_test_util.h"

namespace netstack {
namespace {

TEST_CASE("Priorities follow Chrome's resource types", "[replay][prepare]") {
  CHECK(PriorityForResourceType("document") == HIGHEST);
  CHECK(PriorityForResourceType("stylesheet") == HIGHEST);
  CHECK(PriorityForResourceType("script") == MEDIUM);
  CHECK(PriorityForResourceType("font") == MEDIUM);
  CHECK(PriorityForResourceType("xhr") == MEDIUM);
  CHECK(PriorityForResourceType("image") == LOWEST);
  CHECK(PriorityForResourceType("ping") == IDLE);
  CHECK(PriorityForResourceType("other") == LOW);
  CHECK(PriorityForResourceType("") == LOW);
}

TEST_CASE("The response head drops transfer headers and frames the body", "[replay][prepare]") {
  TraceEntry e = test::MakeEntry("https://a.example/", 5000, 0, "document",
                                 {{"Content-Type", "text/html"},
                                  {"content-encoding", "br"},
                                  {"Transfer-Encoding", "chunked"},
                                  {"Content-Length", "999"},
                                  {"Connection", "close"},
                                  {"Keep-Alive", "timeout=5"},
                                  {":status", "200"},
                                  {"Bad Name", "x"},
                                  {"X-Split", "a\r\nInjected: yes"},
                                  {"Cache-Control", "max-age=60"}});
  e.status_text = "";
  std::string head = BuildResponseHead(e, false, 5000);
  CHECK(head ==
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nCache-Control: max-age=60\r\n"
        "Content-Length: 5000\r\n\r\n");
  e.status = 304;
  e.status_text = "Not Modified";
  CHECK(BuildResponseHead(e, true, 0) ==
        "HTTP/1.1 304 Not Modified\r\nContent-Type: text/html\r\nCache-Control: "
        "max-age=60\r\n\r\n");
}

TEST_CASE("PreparePage sorts entries into kinds and builds requests", "[replay][prepare]") {
  TraceEntry doc = test::MakeEntry("https://a.example/", 1000, 0, "document");
  doc.request_headers = {{"User-Agent", "UA"},       {"Cookie", "s=1"},
                         {"If-None-Match", "\"x\""}, {"Cache-Control", "no-cache"},
                         {"Accept", "text/html"},    {"Host", "a"},
                         {"Pragma", "no-cache"}};
  TraceEntry cached = test::MakeEntry("https://a.example/c.css", 2000, 10, "stylesheet");
  cached.recorded_from_cache = true;
  cached.parent = 0;
  TraceEntry blocked = test::MakeEntry("https://a.example/b.js", 0, 20);
  blocked.status = 0;
  blocked.parent = 0;
  TraceEntry head = test::MakeEntry("https://a.example/h", 700, 30, "xhr");
  head.method = "HEAD";
  head.parent = 2;
  head.gap_ms = 5;
  TraceEntry forward = test::MakeEntry("https://a.example/f", 1, 40);
  forward.parent = 7;  // not an earlier entry: placed at its offset
  auto page = test::MakePage("p", {doc, cached, blocked, head, forward});
  ReplayConfig config;
  auto prepared = PreparePage(page, config);
  REQUIRE(prepared->entries.size() == 5);
  const PreparedEntry& d = prepared->entries[0];
  CHECK(d.kind == PreparedEntry::Kind::kNetwork);
  CHECK(d.priority() == HIGHEST);
  CHECK(d.request().extra_headers.GetHeader("User-Agent") == "UA");
  CHECK(d.request().extra_headers.GetHeader("Accept") == "text/html");
  CHECK_FALSE(d.request().extra_headers.HasHeader("Cookie"));
  CHECK_FALSE(d.request().extra_headers.HasHeader("If-None-Match"));
  CHECK_FALSE(d.request().extra_headers.HasHeader("Cache-Control"));
  CHECK_FALSE(d.request().extra_headers.HasHeader("Pragma"));
  CHECK_FALSE(d.request().extra_headers.HasHeader("Host"));
  CHECK(d.match_hash == MatchHash("GET", "https", "a.example", "/"));
  CHECK(prepared->entries[1].kind == PreparedEntry::Kind::kRecordedHit);
  CHECK(prepared->entries[2].kind == PreparedEntry::Kind::kSkipped);
  const PreparedEntry& h = prepared->entries[3];
  CHECK(h.bodiless);
  CHECK(h.body_bytes == 0);
  CHECK(h.parent == 2);
  CHECK(h.gap == Milliseconds(5));
  CHECK(h.offset == Milliseconds(30));
  CHECK(prepared->entries[4].parent == -1);
  // Children: 0 -> {1, 2}, 2 -> {3}.
  CHECK(prepared->child_begin == std::vector<int>{0, 2, 2, 3, 3, 3});
  CHECK(prepared->children == std::vector<int>{1, 2, 3});

  config.placement = Placement::kOffset;
  auto offsets = PreparePage(page, config);
  for (const PreparedEntry& e : offsets->entries) CHECK(e.parent == -1);
}

TEST_CASE("PreparePage places a pushed entry at its recorded start", "[replay][prepare]") {
  TraceEntry doc = test::MakeEntry("https://a.example/", 1000, 0, "document");
  TraceEntry pushed = test::MakeEntry("https://a.example/a.css", 1000, 12, "stylesheet");
  pushed.parent = 0;
  pushed.pushed = true;
  auto prepared = PreparePage(test::MakePage("p", {doc, pushed}), ReplayConfig());
  CHECK(prepared->entries[1].parent == -1);
  CHECK(prepared->entries[1].offset == Milliseconds(12));
  CHECK(prepared->entries[1].kind == PreparedEntry::Kind::kNetwork);
}

TEST_CASE("PreparePage uses recorded server times only when asked", "[replay][prepare]") {
  TraceEntry e = test::MakeEntry("http://a.example:8080/x?y=1", 10);
  e.server_ms = 12.5;
  auto page = test::MakePage("p", {e});
  ReplayConfig config;
  auto prepared = PreparePage(page, config);
  CHECK(prepared->entries[0].server_time == TimeDelta(12'500));
  CHECK(prepared->entries[0].host_header == "a.example:8080");
  CHECK(prepared->entries[0].match_hash == MatchHash("GET", "http", "a.example:8080", "/x?y=1"));
  config.server_ms_from_trace = false;
  CHECK_FALSE(PreparePage(page, config)->entries[0].server_time.has_value());
}

TEST_CASE("PreparePage bounds the request bodies a page holds", "[replay][prepare]") {
  // Six POSTs of 1 GiB each: each is modelled at 16 MiB, and the page holds at most 64 MiB of
  // them, so the fifth and sixth fail with an error naming them rather than taking memory.
  std::vector<TraceEntry> entries = {test::MakeEntry("https://a.example/", 10, 0, "document")};
  for (int i = 1; i <= 6; ++i) {
    TraceEntry post = test::MakeEntry("https://a.example/p" + std::to_string(i), 10, i);
    post.method = "POST";
    post.request_body_bytes = int64_t{1} << 30;
    entries.push_back(post);
  }
  auto prepared = PreparePage(test::MakePage("p", entries), ReplayConfig());
  for (int i = 1; i <= 4; ++i) {
    CHECK(prepared->entries[i].kind == PreparedEntry::Kind::kNetwork);
    CHECK(prepared->entries[i].request().body.size() == 16u << 20);
  }
  for (int i = 5; i <= 6; ++i) {
    const PreparedEntry& p = prepared->entries[i];
    CHECK(p.kind == PreparedEntry::Kind::kInvalid);
    CHECK(p.request().body.empty());
    CHECK(p.invalid_error == ERR_FILE_TOO_BIG);
    CHECK(p.invalid_detail == "entry " + std::to_string(i) +
                                  "'s request body of 16777216 bytes passes the limit of 64 MiB "
                                  "of request bodies per page");
  }
}

TEST_CASE("PreparePage clamps times that would overflow the clock", "[replay][prepare]") {
  TraceEntry e = test::MakeEntry("https://a.example/", 10);
  e.server_ms = 1e300;
  e.start_ms = 1e300;
  auto prepared = PreparePage(test::MakePage("p", {e}), ReplayConfig());
  CHECK(prepared->entries[0].server_time == Milliseconds(10'000'000'000));
  CHECK(prepared->entries[0].offset == Milliseconds(10'000'000'000));
}

TEST_CASE("ReplayPageCache prepares a page once and stays bounded", "[replay][prepare]") {
  ReplayConfig config;
  ReplayPageCache cache(config, 2);
  auto a = test::MakePage("a", {test::MakeEntry("https://a/")});
  auto b = test::MakePage("b", {test::MakeEntry("https://b/")});
  auto c = test::MakePage("c", {test::MakeEntry("https://c/")});
  auto first = cache.Get(a);
  CHECK(cache.Get(a) == first);
  cache.Get(b);
  cache.Get(c);  // evicts a (least recently used)
  CHECK(cache.Get(a) != first);
}

}  // namespace
}  // namespace netstack
