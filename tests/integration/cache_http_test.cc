// HTTP caching across processes (issue 3's "Done when"): a fresh response served from disk by a
// new process with no request reaching the origin, a stale one revalidated with a 304, Vary,
// no-store, and a POST invalidating the cached GET. The origin is CacheOrigin (headers chosen
// by the test, every request counted) and nginx (its own ETag / Last-Modified / expires).
#include "tests/integration/cache_test_util.h"
#include "tests/integration/netlog_file.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

TEST_CASE("a fresh response is served from disk by a new process without a request", "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=3600", "Content-Type: text/plain"};
  r.body = Filled(50000, 'f', "\nend\n");  // larger than the inline limit: a body file
  r.etag = "\"f1\"";
  origin.Set("/fresh", r);
  START_ORIGIN(origin);
  TempDir dir("cache-fresh");
  const std::string profile = dir.Join("profile");

  NetstackRun first =
      FetchWithProfile(profile, {"-o", dir.Join("first.out"), origin.Url("/fresh")});
  CHECK_FETCH_OK(first, 1u);
  CHECK(Disposition(first.records[0]) == "miss");
  CHECK(origin.Count("/fresh") == 1);

  // A new process: the entry comes from the profile's database and files.
  NetstackRun second =
      FetchWithProfile(profile, {"-o", dir.Join("second.out"), origin.Url("/fresh")});
  CHECK_FETCH_OK(second, 1u);
  const nlohmann::json& rec = second.records[0];
  CHECK(Disposition(rec) == "hit");
  CHECK(second.process.err.empty());  // no warning, and the loop closed cleanly
  CHECK(JsonInt(rec, "status") == 200);
  CHECK(JsonInt(rec, "bytes") == static_cast<int64_t>(r.body.size()));
  CHECK(JsonString(rec, "headers/etag") == "\"f1\"");
  CHECK(origin.Count("/fresh") == 1);  // nothing reached the origin
  CHECK(ReadFile(dir.Join("second.out")) == r.body);

  // The human line says where the response came from.
  NetstackRun human = RunNetstack({"fetch", "--profile", profile, origin.Url("/fresh")});
  INFO(human.Describe());
  CHECK(human.exit_code() == 0);
  CHECK(human.process.out.find("cache hit") != std::string::npos);
  CHECK(origin.Count("/fresh") == 1);
}

TEST_CASE("a stale response is revalidated with a 304 and served", "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=0", "Content-Type: text/plain", "X-Version: 1"};
  r.body = "revalidated body\n";
  r.etag = "\"v1\"";
  r.last_modified = HttpDate(1'600'000'000);
  origin.Set("/stale", r);
  START_ORIGIN(origin);
  TempDir dir("cache-stale");
  const std::string profile = dir.Join("profile");

  NetstackRun first = FetchWithProfile(profile, {origin.Url("/stale")});
  CHECK_FETCH_OK(first, 1u);
  CHECK(Disposition(first.records[0]) == "miss");

  // The 304 updates a header (RFC 9111 3.2): the merged headers are what the client sees.
  r.headers = {"Cache-Control: max-age=0", "Content-Type: text/plain", "X-Version: 2"};
  origin.Set("/stale", r);
  NetstackRun second = FetchWithProfile(profile, {"-o", dir.Join("out"), origin.Url("/stale")});
  CHECK_FETCH_OK(second, 1u);
  const nlohmann::json& rec = second.records[0];
  CHECK(Disposition(rec) == "revalidated");
  CHECK(second.process.err.empty());
  CHECK(JsonInt(rec, "status") == 200);
  CHECK(JsonString(rec, "headers/x-version") == "2");
  CHECK(ReadFile(dir.Join("out")) == r.body);

  std::vector<FaultHttpServer::Request> requests = origin.Requests("/stale");
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].Header("if-none-match").empty());
  CHECK(requests[1].Header("if-none-match") == "\"v1\"");
  CHECK(requests[1].Header("if-modified-since") == r.last_modified);
}

TEST_CASE("nginx: expires serves from disk, a validator revalidates with a 304", "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.AddFile("/cached/a.txt", Filled(30000, 'a', "\n"));
  nginx.AddFile("/validate/b.txt", Filled(30000, 'b', "\n"));
  nginx.AddServerConfig("    location /cached/ { expires 1h; gzip off; }");
  // no-cache: stored, but always validated (nginx answers If-None-Match with a 304).
  nginx.AddServerConfig("    location /validate/ { add_header Cache-Control no-cache; gzip off; }");
  START_OR_SKIP(nginx);
  TempDir dir("cache-nginx");
  const std::string profile = dir.Join("profile");
  const std::string cached = nginx.HttpUrl("/cached/a.txt");
  const std::string validate = nginx.HttpUrl("/validate/b.txt");

  NetstackRun first = FetchWithProfile(profile, {cached, validate});
  CHECK_FETCH_OK(first, 2u);
  CHECK(Disposition(first.records[0]) == "miss");
  CHECK(Disposition(first.records[1]) == "miss");
  REQUIRE(nginx.ReadAccessLog(2).size() == 2);

  NetstackRun second = FetchWithProfile(
      profile, {"-o", dir.Join("a.out"), "-o", dir.Join("b.out"), cached, validate});
  CHECK_FETCH_OK(second, 2u);
  CHECK(Disposition(second.records[0]) == "hit");
  CHECK(Disposition(second.records[1]) == "revalidated");
  CHECK(ReadFile(dir.Join("a.out")) == ReadFile(nginx.DocPath("/cached/a.txt")));
  CHECK(ReadFile(dir.Join("b.out")) == ReadFile(nginx.DocPath("/validate/b.txt")));

  // nginx saw one more request, the conditional one, and answered it 304.
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(3);
  REQUIRE(log.size() == 3);
  CHECK(log[2].request_uri == "/validate/b.txt");
  CHECK(log[2].status == 304);
}

TEST_CASE("Vary: another Accept-Language is another request", "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=3600", "Content-Type: text/plain"};
  r.body = "greeting";
  r.vary_language = true;
  origin.Set("/vary", r);
  START_ORIGIN(origin);
  TempDir dir("cache-vary");
  const std::string profile = dir.Join("profile");
  const std::string url = origin.Url("/vary");

  NetstackRun en = FetchWithProfile(profile, {"-H", "Accept-Language: en", url});
  CHECK_FETCH_OK(en, 1u);
  CHECK(Disposition(en.records[0]) == "miss");
  NetstackRun en_again =
      FetchWithProfile(profile, {"-H", "Accept-Language: en", "-o", dir.Join("en.out"), url});
  CHECK_FETCH_OK(en_again, 1u);
  CHECK(Disposition(en_again.records[0]) == "hit");
  CHECK(ReadFile(dir.Join("en.out")) == "greeting\nlang=en");
  CHECK(origin.Count("/vary") == 1);

  NetstackRun fr =
      FetchWithProfile(profile, {"-H", "Accept-Language: fr", "-o", dir.Join("fr.out"), url});
  CHECK_FETCH_OK(fr, 1u);
  CHECK(Disposition(fr.records[0]) != "hit");
  CHECK(origin.Count("/vary") == 2);
  CHECK(ReadFile(dir.Join("fr.out")) == "greeting\nlang=fr");
  std::vector<FaultHttpServer::Request> requests = origin.Requests("/vary");
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].Header("accept-language") == "fr");
}

TEST_CASE("no-store is not written, and the next fetch reaches the origin", "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: no-store, max-age=3600", "Content-Type: text/plain"};
  r.body = "secret\n";
  r.etag = "\"s\"";
  origin.Set("/nostore", r);
  START_ORIGIN(origin);
  TempDir dir("cache-nostore");
  const std::string profile = dir.Join("profile");

  NetstackRun first = FetchWithProfile(profile, {origin.Url("/nostore")});
  CHECK_FETCH_OK(first, 1u);
  CHECK(Disposition(first.records[0]) == "miss");

  NetstackRun ls = RunCache({"ls", "--json"}, profile);
  INFO(ls.Describe());
  CHECK(ls.exit_code() == 0);
  CHECK(ls.records.empty());
  CHECK(ls.other_lines.empty());

  NetstackRun second = FetchWithProfile(profile, {origin.Url("/nostore")});
  CHECK_FETCH_OK(second, 1u);
  CHECK(Disposition(second.records[0]) == "miss");
  CHECK(origin.Count("/nostore") == 2);
  // The second request was not conditional: nothing was stored to validate.
  CHECK(origin.Requests("/nostore")[1].Header("if-none-match").empty());
}

TEST_CASE("a POST invalidates the cached GET of its URL", "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=3600", "Content-Type: text/plain"};
  r.body = "resource\n";
  origin.Set("/res", r);
  origin.Set("/other", r);
  START_ORIGIN(origin);
  TempDir dir("cache-post");
  const std::string profile = dir.Join("profile");

  CHECK_FETCH_OK(FetchWithProfile(profile, {origin.Url("/res"), origin.Url("/other")}), 2u);
  NetstackRun hit = FetchWithProfile(profile, {origin.Url("/res")});
  CHECK_FETCH_OK(hit, 1u);
  CHECK(Disposition(hit.records[0]) == "hit");
  CHECK(origin.Count("/res") == 1);

  NetstackRun post = FetchWithProfile(profile, {"-d", "x=1", origin.Url("/res")});
  CHECK_FETCH_OK(post, 1u);
  CHECK(JsonString(post.records[0], "method") == "POST");
  CHECK(Disposition(post.records[0]) != "hit");
  CHECK(origin.Count("/res") == 2);

  NetstackRun after = FetchWithProfile(profile, {origin.Url("/res"), origin.Url("/other")});
  CHECK_FETCH_OK(after, 2u);
  CHECK(Disposition(after.records[0]) == "miss");
  CHECK(Disposition(after.records[1]) == "hit");  // only the POST's URL was invalidated
  CHECK(origin.Count("/res") == 3);
  CHECK(origin.Count("/other") == 1);
}

TEST_CASE("with --no-cache nothing is read or written: every record says bypass", "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=3600"};
  r.body = "x";
  origin.Set("/x", r);
  START_ORIGIN(origin);
  TempDir dir("cache-nocache");
  const std::string profile = dir.Join("profile");
  CHECK_FETCH_OK(FetchWithProfile(profile, {origin.Url("/x")}), 1u);
  NetstackRun run = FetchWithProfile(profile, {"--no-cache", origin.Url("/x"), origin.Url("/x")});
  CHECK_FETCH_OK(run, 2u);
  CHECK(Disposition(run.records[0]) == "bypass");
  CHECK(Disposition(run.records[1]) == "bypass");
  CHECK(origin.Count("/x") == 3);
}

TEST_CASE("stale-while-revalidate: served stale, refreshed in the background before exit",
          "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=0, stale-while-revalidate=3600", "X-Version: 1"};
  r.body = "swr body\n";
  r.etag = "\"w1\"";
  origin.Set("/swr", r);
  START_ORIGIN(origin);
  TempDir dir("cache-swr");
  const std::string profile = dir.Join("profile");
  CHECK_FETCH_OK(FetchWithProfile(profile, {origin.Url("/swr")}), 1u);

  r.headers = {"Cache-Control: max-age=0, stale-while-revalidate=3600", "X-Version: 2"};
  origin.Set("/swr", r);
  NetstackRun stale = FetchWithProfile(profile, {"-o", dir.Join("out"), origin.Url("/swr")});
  CHECK_FETCH_OK(stale, 1u);
  CHECK(Disposition(stale.records[0]) == "stale");
  CHECK(stale.process.err.empty());
  CHECK(JsonString(stale.records[0], "headers/x-version") == "1");  // what was stored
  CHECK(ReadFile(dir.Join("out")) == r.body);
  // The background revalidation ran before the process exited: a conditional request...
  std::vector<FaultHttpServer::Request> requests = origin.Requests("/swr");
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].Header("if-none-match") == "\"w1\"");
  // ... whose 304 updated the stored headers for the next run.
  NetstackRun show = RunCache({"show", origin.Url("/swr")}, profile);
  INFO(show.Describe());
  CHECK(show.process.out.find("X-Version: 2") != std::string::npos);
}

TEST_CASE("the NetLog of a run served from the cache is complete", "[cache][netlog]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource fresh;
  fresh.headers = {"Cache-Control: max-age=3600"};
  fresh.body = "fresh\n";
  origin.Set("/fresh", fresh);
  CacheOrigin::Resource stale = fresh;
  stale.headers = {"Cache-Control: max-age=0"};
  stale.etag = "\"e\"";
  origin.Set("/stale", stale);
  START_ORIGIN(origin);
  TempDir dir("cache-netlog");
  const std::string profile = dir.Join("profile");
  const std::vector<std::string> urls = {origin.Url("/fresh"), origin.Url("/stale")};
  CHECK_FETCH_OK(FetchWithProfile(profile, urls), 2u);
  NetstackRun run = FetchWithProfile(profile, Concat({"--netlog", dir.Join("netlog.json")}, urls));
  CHECK_FETCH_OK(run, 2u);
  CHECK(Disposition(run.records[0]) == "hit");
  CHECK(Disposition(run.records[1]) == "revalidated");
  NetLogFile log = ReadNetLog(dir.Join("netlog.json"));
  CHECK(log.events().size() > 0);
  // One connection (a BEGIN and an END): only the revalidation went to the network.
  CHECK(log.Count("TCP_CONNECT") == 2);
  CHECK(log.UnpairedEvents() == "");
}

}  // namespace
}  // namespace netstack::test
