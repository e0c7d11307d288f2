// The HTTP cache's semantics through `netstack fetch` (issue 22), against CacheOrigin (headers
// chosen by the test, every request counted) and nginx: hop-by-hop fields and Age on a hit, a
// 304 updating Content-Type, a HEAD freshening the stored GET, an Expires that is not an
// HTTP-date, stale-if-error, only-if-cached's 504, `--cache-mode`, and unsafe methods (any
// `-X` token) invalidating their URL and same-origin Location/Content-Location, and nginx
// varying by Accept-Language (several variants kept, compared after normalization).
#include "tests/integration/cache_test_util.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

TEST_CASE("semantics: a hit has no hop-by-hop fields and carries its current Age",
          "[cache][semantics]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=3600",
               "Keep-Alive: timeout=5",
               "Connection: X-Hop",
               "X-Hop: secret",
               "Upgrade: h2c",
               "Age: 100",
               "X-End: kept"};
  r.body = "hop body\n";
  origin.Set("/hop", r);
  START_ORIGIN(origin);
  TempDir dir("sem-hop");
  const std::string profile = dir.Join("profile");

  NetstackRun first = FetchWithProfile(profile, {origin.Url("/hop")});
  CHECK_FETCH_OK(first, 1u);
  CHECK(Disposition(first.records[0]) == "miss");
  CHECK(JsonString(first.records[0], "headers/x-hop") == "secret");  // the network's, as is

  NetstackRun second = FetchWithProfile(profile, {origin.Url("/hop")});
  CHECK_FETCH_OK(second, 1u);
  const nlohmann::json& rec = second.records[0];
  CHECK(Disposition(rec) == "hit");
  CHECK(origin.Count("/hop") == 1);
  CHECK(JsonString(rec, "headers/x-end") == "kept");
  for (const char* name : {"x-hop", "keep-alive", "connection", "upgrade"}) {
    INFO(name);
    CHECK_FALSE(rec["headers"].contains(name));
  }
  // One Age, computed: at least the received 100 (never less), as a number.
  REQUIRE(rec["headers"]["age"].is_string());
  const std::string age = rec["headers"]["age"];
  CHECK(std::stoll(age) >= 100);

  // `netstack cache show` shows what is stored: no hop-by-hop fields there either.
  NetstackRun show = RunCache({"show", origin.Url("/hop")}, profile);
  INFO(show.Describe());
  CHECK(show.exit_code() == 0);
  CHECK(show.process.out.find("X-Hop") == std::string::npos);
  CHECK(show.process.out.find("Keep-Alive") == std::string::npos);
  CHECK(show.process.out.find("X-End: kept") != std::string::npos);
}

TEST_CASE("semantics: a 304 updates the stored Content-Type", "[cache][semantics]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: no-cache", "Content-Type: text/plain"};
  r.body = "typed\n";
  r.etag = "\"t1\"";
  origin.Set("/type", r);
  START_ORIGIN(origin);
  TempDir dir("sem-type");
  const std::string profile = dir.Join("profile");
  CHECK_FETCH_OK(FetchWithProfile(profile, {origin.Url("/type")}), 1u);
  r.headers = {"Cache-Control: no-cache", "Content-Type: text/markdown; charset=utf-8"};
  origin.Set("/type", r);
  NetstackRun second = FetchWithProfile(profile, {"-o", dir.Join("out"), origin.Url("/type")});
  CHECK_FETCH_OK(second, 1u);
  CHECK(Disposition(second.records[0]) == "revalidated");
  CHECK(JsonString(second.records[0], "headers/content-type") == "text/markdown; charset=utf-8");
  CHECK(ReadFile(dir.Join("out")) == r.body);
  CHECK(origin.Count("/type") == 2);
}

TEST_CASE("semantics: a HEAD with the same validator freshens the stored GET",
          "[cache][semantics]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=0", "X-Version: 1"};
  r.body = "head body\n";
  r.etag = "\"h1\"";
  origin.Set("/head", r);
  START_ORIGIN(origin);
  TempDir dir("sem-head");
  const std::string profile = dir.Join("profile");
  CHECK_FETCH_OK(FetchWithProfile(profile, {origin.Url("/head")}), 1u);

  r.headers = {"Cache-Control: max-age=3600", "X-Version: 2"};
  origin.Set("/head", r);
  NetstackRun head = FetchWithProfile(profile, {"-I", origin.Url("/head")});
  CHECK_FETCH_OK(head, 1u);
  CHECK(Disposition(head.records[0]) == "bypass");
  CHECK(origin.Count("/head") == 2);

  NetstackRun get = FetchWithProfile(profile, {"-o", dir.Join("out"), origin.Url("/head")});
  CHECK_FETCH_OK(get, 1u);
  CHECK(Disposition(get.records[0]) == "hit");  // fresh again, from the HEAD's max-age
  CHECK(JsonString(get.records[0], "headers/x-version") == "2");
  CHECK(ReadFile(dir.Join("out")) == r.body);
  CHECK(origin.Count("/head") == 2);

  // Another ETag on a HEAD removes the stored GET.
  r.etag = "\"h2\"";
  origin.Set("/head", r);
  CHECK_FETCH_OK(FetchWithProfile(profile, {"-I", origin.Url("/head")}), 1u);
  NetstackRun after = FetchWithProfile(profile, {origin.Url("/head")});
  CHECK_FETCH_OK(after, 1u);
  CHECK(Disposition(after.records[0]) == "miss");
}

TEST_CASE("semantics: an Expires with UTC is not a date: already expired", "[cache][semantics]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  std::string expires = HttpDate(std::time(nullptr) + 86400);
  expires.replace(expires.size() - 3, 3, "UTC");
  r.headers = {"Expires: " + expires};
  r.body = "utc\n";
  origin.Set("/utc", r);
  CacheOrigin::Resource gmt = r;
  gmt.headers = {"Expires: " + HttpDate(std::time(nullptr) + 86400)};
  origin.Set("/gmt", gmt);
  START_ORIGIN(origin);
  TempDir dir("sem-utc");
  const std::string profile = dir.Join("profile");
  CHECK_FETCH_OK(FetchWithProfile(profile, {origin.Url("/utc"), origin.Url("/gmt")}), 2u);
  NetstackRun second = FetchWithProfile(profile, {origin.Url("/utc"), origin.Url("/gmt")});
  CHECK_FETCH_OK(second, 2u);
  CHECK(Disposition(second.records[0]) == "miss");
  CHECK(Disposition(second.records[1]) == "hit");
  CHECK(origin.Count("/utc") == 2);
  CHECK(origin.Count("/gmt") == 1);
}

TEST_CASE("semantics: stale-if-error serves the stored response on a 503", "[cache][semantics]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=0, stale-if-error=86400"};
  r.body = "good copy\n";
  origin.Set("/sie", r);
  CacheOrigin::Resource plain = r;
  plain.headers = {"Cache-Control: max-age=0"};
  origin.Set("/plain", plain);
  START_ORIGIN(origin);
  TempDir dir("sem-sie");
  const std::string profile = dir.Join("profile");
  CHECK_FETCH_OK(FetchWithProfile(profile, {origin.Url("/sie"), origin.Url("/plain")}), 2u);

  CacheOrigin::Resource down;
  down.status = "503 Service Unavailable";
  down.body = "down\n";
  origin.Set("/sie", down);
  origin.Set("/plain", down);
  NetstackRun second = FetchWithProfile(profile, {"-o", dir.Join("sie"), "-o", dir.Join("plain"),
                                                  origin.Url("/sie"), origin.Url("/plain")});
  CHECK_FETCH_OK(second, 2u);
  CHECK(Disposition(second.records[0]) == "stale");
  CHECK(JsonInt(second.records[0], "status") == 200);
  CHECK(ReadFile(dir.Join("sie")) == r.body);
  // Without the directive the error is the answer.
  CHECK(Disposition(second.records[1]) == "miss");
  CHECK(JsonInt(second.records[1], "status") == 503);
  CHECK(ReadFile(dir.Join("plain")) == down.body);
  CHECK(origin.Count("/sie") == 2);
}

TEST_CASE("semantics: only-if-cached with nothing stored is a 504 without a request",
          "[cache][semantics]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=3600"};
  r.body = "x\n";
  origin.Set("/oic", r);
  START_ORIGIN(origin);
  TempDir dir("sem-oic");
  NetstackRun run = FetchWithProfile(dir.Join("profile"),
                                     {"-H", "Cache-Control: only-if-cached", origin.Url("/oic")});
  CHECK_FETCH_OK(run, 1u);
  CHECK(JsonInt(run.records[0], "status") == 504);
  CHECK(origin.Count("/oic") == 0);
}

TEST_CASE("semantics: --cache-mode", "[cache][semantics][cache_mode]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=0"};
  r.body = "moded\n";
  r.etag = "\"m1\"";
  origin.Set("/m", r);
  START_ORIGIN(origin);
  TempDir dir("sem-mode");
  const std::string profile = dir.Join("profile");
  const std::string url = origin.Url("/m");

  // only-if-cached with nothing stored: a failure, no request.
  NetstackRun none = FetchWithProfile(profile, {"--cache-mode", "only-if-cached", url});
  CHECK_FETCH_FAILED(none, 0, "ERR_CACHE_MISS");
  CHECK(origin.Count("/m") == 0);

  CHECK_FETCH_OK(FetchWithProfile(profile, {url}), 1u);  // stored, stale at once
  CHECK(origin.Count("/m") == 1);

  struct Case {
    const char* mode;
    const char* disposition;
    int requests;  // how many reach the origin
  };
  const Case cases[] = {
      {"force-cache", "stale", 0},   {"only-if-cached", "stale", 0}, {"no-cache", "revalidated", 1},
      {"default", "revalidated", 1}, {"reload", "miss", 1},          {"no-store", "bypass", 1},
  };
  for (const Case& c : cases) {
    INFO(c.mode);
    const int before = origin.Count("/m");
    NetstackRun run = FetchWithProfile(profile, {"--cache-mode", c.mode, url});
    CHECK_FETCH_OK(run, 1u);
    CHECK(Disposition(run.records[0]) == c.disposition);
    CHECK(origin.Count("/m") - before == c.requests);
  }
  std::vector<FaultHttpServer::Request> requests = origin.Requests("/m");
  REQUIRE(requests.size() == 5);
  CHECK(requests[1].Header("cache-control") == "max-age=0");  // no-cache
  CHECK(requests[1].Header("if-none-match") == "\"m1\"");
  CHECK(requests[3].Header("cache-control") == "no-cache");  // reload
  CHECK(requests[3].Header("if-none-match").empty());
  CHECK(requests[4].Header("pragma") == "no-cache");  // no-store

  // Bad input: a one-line error, exit 2.
  NetstackRun bad = RunNetstack({"fetch", "--private", "--cache-mode", "sometimes", url});
  INFO(bad.Describe());
  CHECK(bad.exit_code() == 2);
  CHECK(bad.process.err.find("bad --cache-mode \"sometimes\"") != std::string::npos);
  NetstackRun conflict = RunNetstack({"fetch", "--no-cache", "--cache-mode", "reload", url});
  CHECK(conflict.exit_code() == 2);
  CHECK(conflict.process.err.find("conflicts with --no-cache") != std::string::npos);
}

TEST_CASE("semantics: an unsafe method invalidates same-origin Location and Content-Location",
          "[cache][semantics]") {
  REQUIRE_NETSTACK_BINARY();
  FaultHttpServer server;
  server.set_handler([](const FaultHttpServer::Request& req) -> std::optional<std::string> {
    if (req.method == "POST") {
      return FaultHttpServer::Response(
          "201 Created", {"Location: /items/1", "Content-Location: /items/list"}, "made\n");
    }
    return FaultHttpServer::Response("200 OK", {"Cache-Control: max-age=3600"}, req.path + "\n");
  });
  std::string error;
  REQUIRE(server.Start(0, &error));
  TempDir dir("sem-unsafe");
  const std::string profile = dir.Join("profile");
  const std::vector<std::string> urls = {server.Url("/items"), server.Url("/items/1"),
                                         server.Url("/items/list"), server.Url("/other")};
  CHECK_FETCH_OK(FetchWithProfile(profile, urls), 4u);
  NetstackRun post = FetchWithProfile(profile, {"-d", "name=x", server.Url("/items")});
  CHECK_FETCH_OK(post, 1u);
  NetstackRun after = FetchWithProfile(profile, urls);
  CHECK_FETCH_OK(after, 4u);
  CHECK(Disposition(after.records[0]) == "miss");
  CHECK(Disposition(after.records[1]) == "miss");
  CHECK(Disposition(after.records[2]) == "miss");
  CHECK(Disposition(after.records[3]) == "hit");
}

TEST_CASE("semantics: -X with any unsafe method, whatever its name, invalidates its URL",
          "[cache][semantics]") {
  REQUIRE_NETSTACK_BINARY();
  FaultHttpServer server;
  server.set_handler([](const FaultHttpServer::Request& req) -> std::optional<std::string> {
    if (req.method != "GET") return FaultHttpServer::Response("204 No Content", {}, "");
    return FaultHttpServer::Response("200 OK", {"Cache-Control: max-age=3600"}, req.path + "\n");
  });
  std::string error;
  REQUIRE(server.Start(0, &error));
  TempDir dir("sem-methods");
  const std::string profile = dir.Join("profile");
  for (const char* method : {"PUT", "DELETE", "PATCH", "PURGE"}) {
    INFO(method);
    const std::string url = server.Url(std::string("/thing-") + method);
    CHECK_FETCH_OK(FetchWithProfile(profile, {url}), 1u);
    NetstackRun stored = FetchWithProfile(profile, {url});
    CHECK_FETCH_OK(stored, 1u);
    CHECK(Disposition(stored.records[0]) == "hit");
    CHECK_FETCH_OK(FetchWithProfile(profile, {"-X", method, url}), 1u);
    NetstackRun after = FetchWithProfile(profile, {url});
    CHECK_FETCH_OK(after, 1u);
    CHECK(Disposition(after.records[0]) == "miss");
  }
  // A safe method leaves the entry alone.
  const std::string url = server.Url("/thing-options");
  CHECK_FETCH_OK(FetchWithProfile(profile, {url}), 1u);
  CHECK_FETCH_OK(FetchWithProfile(profile, {"-X", "OPTIONS", url}), 1u);
  NetstackRun after = FetchWithProfile(profile, {url});
  CHECK_FETCH_OK(after, 1u);
  CHECK(Disposition(after.records[0]) == "hit");
}

TEST_CASE("semantics: nginx varying by Accept-Language keeps a variant per language",
          "[cache][semantics][vary]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.AddFile("/vary/en.txt", "hello\n");
  nginx.AddFile("/vary/fr.txt", "bonjour\n");
  nginx.AddFile("/vary/default.txt", "hi\n");
  // The body chosen by the request's Accept-Language, exactly as sent ("EN" gets the default).
  nginx.AddServerConfig(
      "    location = /greeting { gzip off; add_header Vary Accept-Language;"
      " add_header Cache-Control max-age=3600;"
      " try_files /vary/$http_accept_language.txt /vary/default.txt; }");
  START_OR_SKIP(nginx);
  TempDir dir("sem-vary");
  const std::string profile = dir.Join("profile");
  const std::string url = nginx.HttpUrl("/greeting");
  auto fetch = [&](const std::string& language, const std::string& out) {
    return FetchWithProfile(profile,
                            {"-H", "Accept-Language: " + language, "-o", dir.Join(out), url});
  };

  NetstackRun en = fetch("en", "en1");
  CHECK_FETCH_OK(en, 1u);
  CHECK(Disposition(en.records[0]) == "miss");
  NetstackRun fr = fetch("fr", "fr1");
  CHECK_FETCH_OK(fr, 1u);
  CHECK(Disposition(fr.records[0]) == "miss");
  REQUIRE(nginx.ReadAccessLog(2).size() == 2);
  CHECK(ReadFile(dir.Join("fr1")) == "bonjour\n");

  // Both variants are served from the profile by new processes, and "EN" is "en" (a
  // case-insensitive field): nginx would have answered it with the default body.
  for (const auto& [language, body] : std::vector<std::pair<std::string, std::string>>{
           {"en", "hello\n"}, {"fr", "bonjour\n"}, {"EN", "hello\n"}}) {
    INFO(language);
    NetstackRun again = fetch(language, "again");
    CHECK_FETCH_OK(again, 1u);
    CHECK(Disposition(again.records[0]) == "hit");
    CHECK(ReadFile(dir.Join("again")) == body);
  }
  CHECK(nginx.ReadAccessLog().size() == 2);

  {
    NetstackRun show = RunCache({"show", url}, profile);
    INFO(show.Describe());
    CHECK(show.exit_code() == 0);
    CHECK(show.process.out.find("Vary index: 2 of at most 4 variants") != std::string::npos);
    CHECK(show.process.out.find("accept-language: fr") != std::string::npos);
    // A variant's key, as `show` printed it, shows that variant.
    NetstackRun variant = RunCache({"show", url + " vary-variant=1"}, profile);
    INFO(variant.Describe());
    CHECK(variant.exit_code() == 0);
    CHECK(variant.process.out.find("bonjour") != std::string::npos);
    NetstackRun ls = RunCache({"ls"}, profile);
    CHECK(ls.process.out.find("Vary index of 2 variants") != std::string::npos);
  }

  // Removing the URL removes every variant: nothing of it is left, and fr is fetched again.
  NetstackRun rm = RunCache({"rm", url}, profile);
  INFO(rm.Describe());
  CHECK(rm.exit_code() == 0);
  NetstackRun ls = RunCache({"ls"}, profile);
  CHECK(ls.exit_code() == 0);
  CHECK(ls.process.out.find("/greeting") == std::string::npos);
  NetstackRun fr_again = fetch("fr", "fr2");
  CHECK_FETCH_OK(fr_again, 1u);
  CHECK(Disposition(fr_again.records[0]) == "miss");
  CHECK(nginx.ReadAccessLog(3).size() == 3);
}

}  // namespace
}  // namespace netstack::test
