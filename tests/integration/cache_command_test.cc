// `netstack cache ls|show|rm|clear|stats` (docs/cache.md) on a profile filled by real fetches,
// and the profile's edge cases: --private, a profile locked by another process, a path that
// cannot be a profile, a missing profile.
#include <sys/stat.h>

#include <filesystem>

#include "tests/integration/cache_test_util.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// An origin with a fresh text resource, a stale binary one, a no-cache one and a gzipped one.
void DefineResources(CacheOrigin* origin) {
  CacheOrigin::Resource text;
  text.headers = {"Cache-Control: max-age=3600", "Content-Type: text/plain", "X-Test: one"};
  text.body = "hello from the cache\n";
  text.etag = "\"t\"";
  origin->Set("/text", text);
  CacheOrigin::Resource bin;
  bin.headers = {"Cache-Control: max-age=0", "Content-Type: application/octet-stream"};
  bin.body = std::string("\x00\x01\x02\xff binary", 11);
  bin.etag = "\"b\"";
  origin->Set("/bin", bin);
  CacheOrigin::Resource nc;
  nc.headers = {"Cache-Control: no-cache"};
  nc.body = "always validated\n";
  nc.etag = "\"n\"";
  origin->Set("/nocache", nc);
}

TEST_CASE("cache ls, show, rm, clear and stats", "[cache][cache-command]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  DefineResources(&origin);
  START_ORIGIN(origin);
  TempDir dir("cache-cmd");
  const std::string profile = dir.Join("profile");
  const std::string text = origin.Url("/text");
  const std::string bin = origin.Url("/bin");
  const std::string nocache = origin.Url("/nocache");
  CHECK_FETCH_OK(FetchWithProfile(profile, {text, bin, nocache}), 3u);

  // ls: one line per entry with key, size, use and freshness.
  NetstackRun ls = RunCache({"ls"}, profile);
  INFO(ls.Describe());
  REQUIRE(ls.exit_code() == 0);
  CHECK(ls.process.err.empty());
  REQUIRE(ls.other_lines.size() == 3);
  std::map<std::string, std::string> lines;
  for (const std::string& line : ls.other_lines) lines[line.substr(0, line.find("  "))] = line;
  REQUIRE(lines.count(text));
  CHECK(Contains(lines[text], "  fresh "));
  CHECK(Contains(lines[text], " B  "));
  REQUIRE(lines.count(bin));
  CHECK(Contains(lines[bin], "  stale "));
  REQUIRE(lines.count(nocache));
  CHECK(Contains(lines[nocache], "  no-cache"));

  // ls --json: one object per entry.
  NetstackRun ls_json = RunCache({"ls", "--json"}, profile);
  INFO(ls_json.Describe());
  REQUIRE(ls_json.exit_code() == 0);
  REQUIRE(ls_json.records.size() == 3);
  auto find = [](const NetstackRun& run, const std::string& key) {
    for (const nlohmann::json& e : run.records)
      if (JsonString(e, "key") == key) return e;
    return nlohmann::json();
  };
  for (const nlohmann::json& e : ls_json.records) {
    CHECK(JsonInt(e, "status") == 200);
    CHECK(JsonInt(e, "size") > 0);
    CHECK(JsonInt(e, "use_count") == 0);  // stored by one fetch, not used since
    CHECK(JsonString(e, "last_used") != "-");
  }
  const nlohmann::json text_before = find(ls_json, text);
  CHECK(JsonBool(text_before, "fresh"));
  CHECK(JsonInt(text_before, "body_bytes") == 21);

  // Inspection peeks: `show` and `ls`, twice, leave use count and last use as they were.
  for (int i = 0; i < 2; ++i) {
    CHECK(RunCache({"show", text}, profile).exit_code() == 0);
    CHECK(RunCache({"ls"}, profile).exit_code() == 0);
  }
  const nlohmann::json text_after = find(RunCache({"ls", "--json"}, profile), text);
  CHECK(JsonInt(text_after, "use_count") == JsonInt(text_before, "use_count"));
  CHECK(JsonString(text_after, "last_used") == JsonString(text_before, "last_used"));
  // A fetch served from the cache is a use.
  NetstackRun hit = FetchWithProfile(profile, {text});
  CHECK_FETCH_OK(hit, 1u);
  CHECK(Disposition(hit.records[0]) == "hit");
  const nlohmann::json text_used = find(RunCache({"ls", "--json"}, profile), text);
  CHECK(JsonInt(text_used, "use_count") == JsonInt(text_before, "use_count") + 1);
  CHECK(origin.Count("/text") == 1);

  // show: status line, headers, times, freshness, then the body as text...
  NetstackRun show = RunCache({"show", text}, profile);
  INFO(show.Describe());
  REQUIRE(show.exit_code() == 0);
  const std::string& out = show.process.out;
  CHECK(out.rfind("HTTP/1.1 200 OK\n", 0) == 0);
  CHECK(Contains(out, "X-Test: one\n"));
  CHECK(Contains(out, "ETag: \"t\"\n"));
  CHECK(Contains(out, "request time:"));
  CHECK(Contains(out, "response time:"));
  CHECK(Contains(out, "freshness:      fresh "));
  CHECK(Contains(out, "\n\nhello from the cache\n"));
  // ... or as hex when it is not text, or when asked.
  NetstackRun show_bin = RunCache({"show", bin}, profile);
  INFO(show_bin.Describe());
  REQUIRE(show_bin.exit_code() == 0);
  CHECK(Contains(show_bin.process.out, "00000000: 00 01 02 ff 20 62 69 6e  61 72 79"));
  NetstackRun show_hex = RunCache({"show", "--hex", text}, profile);
  CHECK(Contains(show_hex.process.out, "00000000: 68 65 6c 6c 6f 20"));

  // show of something absent.
  NetstackRun show_none = RunCache({"show", origin.Url("/absent")}, profile);
  CHECK(show_none.exit_code() == 1);
  CHECK(Contains(show_none.process.err, "is not in the cache"));

  // rm: gone from ls; a second rm says it is absent (exit 1).
  NetstackRun rm = RunCache({"rm", text}, profile);
  INFO(rm.Describe());
  CHECK(rm.exit_code() == 0);
  NetstackRun rm_again = RunCache({"rm", text}, profile);
  CHECK(rm_again.exit_code() == 1);
  REQUIRE(rm_again.StderrLines().size() == 1);
  CHECK(Contains(rm_again.StderrLines()[0], text + " is not in the cache"));
  CHECK(RunCache({"ls", "--json"}, profile).records.size() == 2);
  // ... and the next fetch of it goes to the origin.
  NetstackRun refetch = FetchWithProfile(profile, {text});
  CHECK_FETCH_OK(refetch, 1u);
  CHECK(Disposition(refetch.records[0]) == "miss");
  CHECK(origin.Count("/text") == 2);

  // stats --json: the entries and their size.
  NetstackRun stats = RunCache({"stats", "--json"}, profile);
  INFO(stats.Describe());
  REQUIRE(stats.exit_code() == 0);
  REQUIRE(stats.records.size() == 1);
  CHECK(JsonString(stats.records[0], "type") == "disk");
  CHECK(JsonInt(stats.records[0], "entry_count") == 3);
  CHECK(JsonInt(stats.records[0], "total_bytes") > 0);
  CHECK(stats.records[0]["max_bytes"].is_null());  // the limit is the fetches', not stored
  NetstackRun stats_text = RunCache({"stats"}, profile);
  CHECK(stats_text.exit_code() == 0);
  CHECK(Contains(stats_text.process.out, "entries"));

  // clear: nothing left.
  NetstackRun clear = RunCache({"clear"}, profile);
  INFO(clear.Describe());
  CHECK(clear.exit_code() == 0);
  CHECK(Contains(clear.process.out, "removed 3 entries"));
  CHECK(RunCache({"ls", "--json"}, profile).records.empty());
  CHECK(JsonInt(RunCache({"stats", "--json"}, profile).records.at(0), "entry_count") == 0);
}

TEST_CASE("cache show decodes a stored Content-Encoding unless --raw", "[cache][cache-command]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.AddFile("/gz/page.txt", Filled(5000, 'z', "\n"));
  nginx.AddServerConfig("    location /gz/ { expires 1h; }");  // gzip stays on
  START_OR_SKIP(nginx);
  TempDir dir("cache-gz");
  const std::string profile = dir.Join("profile");
  const std::string url = nginx.HttpUrl("/gz/page.txt");
  NetstackRun fetch = FetchWithProfile(profile, {url});
  CHECK_FETCH_OK(fetch, 1u);
  CHECK(JsonString(fetch.records[0], "headers/content-encoding") == "gzip");

  NetstackRun show = RunCache({"show", url}, profile);
  INFO(show.Describe());
  REQUIRE(show.exit_code() == 0);
  CHECK(Contains(show.process.out, "Content-Encoding: gzip\n"));
  CHECK(Contains(show.process.out, "decoded from gzip"));
  CHECK(Contains(show.process.out, "\n\n" + Filled(5000, 'z', "\n")));
  NetstackRun raw = RunCache({"show", "--raw", url}, profile);
  INFO(raw.Describe());
  REQUIRE(raw.exit_code() == 0);
  CHECK(Contains(raw.process.out, "00000000: 1f 8b"));  // the gzip magic, as a hex dump
}

// What a server sent, printed by `cache show`, `cache ls` and `fetch`'s human line, never
// reaches the terminal as a control sequence.
TEST_CASE("server-supplied text is escaped in human outputs", "[cache][cache-command]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource evil;
  evil.status = "200 OK\x1b]0;owned\x07\x1b[2J";
  evil.headers = {"Cache-Control: max-age=3600",
                  "X-Evil: a\xc2\x9b"
                  "31mred",
                  "Content-Type: text/plain"};
  evil.body = "body\n";
  origin.Set("/evil", evil);
  START_ORIGIN(origin);
  TempDir dir("cache-escape");
  const std::string profile = dir.Join("profile");
  const std::string url = origin.Url("/evil");
  auto clean = [](const std::string& out) {
    return out.find('\x1b') == std::string::npos && out.find('\x07') == std::string::npos &&
           out.find("\xc2\x9b") == std::string::npos;
  };

  NetstackRun fetch = RunNetstack({"fetch", "--profile", profile, url});
  INFO(fetch.Describe());
  REQUIRE(fetch.exit_code() == 0);
  CHECK(clean(fetch.process.out));
  CHECK(clean(fetch.process.err));
  CHECK(Contains(fetch.process.out, "200 OK\\x1b]0;owned\\x07\\x1b[2J  " + url));

  NetstackRun show = RunCache({"show", url}, profile);
  INFO(show.Describe());
  REQUIRE(show.exit_code() == 0);
  CHECK(clean(show.process.out));
  CHECK(Contains(show.process.out, "HTTP/1.1 200 OK\\x1b]0;owned\\x07\\x1b[2J\n"));
  CHECK(Contains(show.process.out, "X-Evil: a\\u009b31mred\n"));

  NetstackRun ls = RunCache({"ls"}, profile);
  INFO(ls.Describe());
  REQUIRE(ls.exit_code() == 0);
  CHECK(clean(ls.process.out));
  // JSON keeps what was sent (escaped by the JSON writer).
  NetstackRun json = FetchWithProfile(profile, {url});
  REQUIRE(json.records.size() == 1);
  CHECK(JsonString(json.records[0], "status_text") == "OK\x1b]0;owned\x07\x1b[2J");
}

TEST_CASE("cache show streams a large body, cut at --max-bytes", "[cache][cache-command]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource big;
  big.headers = {"Cache-Control: max-age=3600", "Content-Type: text/plain"};
  const size_t kSize = 2 * 1024 * 1024;
  for (size_t i = 0; big.body.size() < kSize; ++i) big.body += "line " + std::to_string(i) + "\n";
  big.body.resize(kSize - 1);
  big.body += "\n";
  origin.Set("/big", big);
  START_ORIGIN(origin);
  TempDir dir("cache-show-big");
  const std::string profile = dir.Join("profile");
  const std::string url = origin.Url("/big");
  CHECK_FETCH_OK(FetchWithProfile(profile, {url}), 1u);
  REQUIRE(JsonInt(RunCache({"ls", "--json"}, profile).records.at(0), "body_bytes") ==
          static_cast<int64_t>(kSize));

  NetstackRun cut = RunCache({"show", url}, profile);
  INFO(cut.Describe());
  REQUIRE(cut.exit_code() == 0);
  const std::string& out = cut.process.out;
  CHECK(Contains(out, "body:           2.0 MiB text\n\n" + big.body.substr(0, 1024 * 1024)));
  CHECK_FALSE(Contains(out, big.body.substr(1024 * 1024, 64)));
  CHECK(Contains(out, "\n(truncated: 1048576 of 2097152 bytes shown)\n"));

  NetstackRun all = RunCache({"show", "--max-bytes", "0", url}, profile);
  INFO(all.Describe());
  REQUIRE(all.exit_code() == 0);
  CHECK(Contains(all.process.out, "\n\n" + big.body));
  CHECK(all.process.out.size() - all.process.out.find("\n\n" + big.body) == kSize + 2);
  CHECK_FALSE(Contains(all.process.out, "truncated"));

  NetstackRun small = RunCache({"show", "--max-bytes", "1K", "--hex", url}, profile);
  REQUIRE(small.exit_code() == 0);
  CHECK(Contains(small.process.out, "000003f0: "));
  CHECK_FALSE(Contains(small.process.out, "00000400: "));
  CHECK(Contains(small.process.out, "(truncated: 1024 of 2097152 bytes shown)"));

  NetstackRun bad = RunCache({"show", "--max-bytes", "lots", url}, profile);
  CHECK(bad.exit_code() == 2);
  CHECK(Contains(bad.process.err, "bad --max-bytes \"lots\""));
}

TEST_CASE("cache command: a missing profile and a locked one are clear errors",
          "[cache][cache-command]") {
  REQUIRE_NETSTACK_BINARY();
  TempDir dir("cache-cmd-errors");
  NetstackRun missing = RunCache({"ls"}, dir.Join("nowhere"));
  INFO(missing.Describe());
  CHECK(missing.exit_code() == 1);
  CHECK(missing.process.term_signal == 0);
  REQUIRE(missing.StderrLines().size() == 1);
  CHECK(Contains(missing.StderrLines()[0], "no netstack profile at " + dir.Join("nowhere")));
  struct stat st;
  CHECK(::stat(dir.Join("nowhere").c_str(), &st) != 0);  // not created by looking

  // An existing directory that is not a profile is not made one by looking either.
  const std::string empty = dir.Join("empty");
  REQUIRE(::mkdir(empty.c_str(), 0700) == 0);
  for (const char* action : {"ls", "stats", "clear"}) {
    NetstackRun not_profile = RunCache({action}, empty);
    INFO(not_profile.Describe());
    CHECK(not_profile.exit_code() == 1);
    REQUIRE(not_profile.StderrLines().size() == 1);
    CHECK(not_profile.StderrLines()[0] ==
          "netstack: no netstack profile at " + empty + " (nothing has been cached there)");
  }
  CHECK(std::filesystem::is_empty(empty));

  // A profile a fetch made (it has the cache's database), held by another process.
  const std::string profile = dir.Join("locked");
  std::filesystem::create_directories(profile + "/cache");
  REQUIRE(WriteStringToFile(profile + "/cache/index.db", ""));
  ProfileLockHolder holder(profile);
  REQUIRE(holder.locked());
  NetstackRun locked = RunCache({"stats"}, profile);
  INFO(locked.Describe());
  CHECK(locked.exit_code() == 1);
  REQUIRE(locked.StderrLines().size() == 1);
  CHECK(Contains(locked.StderrLines()[0], "in use by another netstack"));

  NetstackRun usage = RunNetstack({"cache", "frobnicate"});
  CHECK(usage.exit_code() == 2);
}

TEST_CASE("private mode caches in memory and writes nothing into the profile", "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  DefineResources(&origin);
  START_ORIGIN(origin);
  TempDir dir("cache-private");
  const std::string profile = dir.Join("profile");
  NetstackRun run =
      FetchWithProfile(profile, {"--private", origin.Url("/text"), origin.Url("/text")});
  CHECK_FETCH_OK(run, 2u);
  CHECK(Disposition(run.records[0]) == "miss");
  CHECK(Disposition(run.records[1]) == "hit");
  CHECK(origin.Count("/text") == 1);
  struct stat st;
  CHECK(::stat(profile.c_str(), &st) != 0);  // the profile was not even created

  // The default profile ($XDG_CACHE_HOME/netstack) is left alone too.
  TempDir xdg("cache-private-xdg");
  NetstackRun with_default =
      RunFetchJson({"--private", origin.Url("/text")}, std::chrono::seconds(60),
                   {"XDG_CACHE_HOME=" + xdg.path()});
  CHECK_FETCH_OK(with_default, 1u);
  CHECK(ListFiles(xdg.path()).empty());
}

TEST_CASE("a profile locked by another process: a warning, and the fetch bypasses the cache",
          "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  DefineResources(&origin);
  START_ORIGIN(origin);
  TempDir dir("cache-locked");
  const std::string profile = dir.Join("profile");
  CHECK_FETCH_OK(FetchWithProfile(profile, {origin.Url("/text")}), 1u);

  ProfileLockHolder holder(profile);
  REQUIRE(holder.locked());
  NetstackRun run = FetchWithProfile(profile, {origin.Url("/text")});
  INFO(run.Describe());
  CHECK(run.exit_code() == 0);
  REQUIRE(run.records.size() == 1);
  CHECK(Disposition(run.records[0]) == "bypass");
  CHECK(origin.Count("/text") == 2);  // the fresh stored copy was not read
  std::vector<std::string> err = run.StderrLines();
  REQUIRE(err.size() == 1);
  CHECK(err[0] == "netstack: warning: profile " + profile +
                      " is in use by another netstack; cache disabled for this run");
}

TEST_CASE("a profile path that cannot be a directory: a warning, and the fetch still works",
          "[cache]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  DefineResources(&origin);
  START_ORIGIN(origin);
  TempDir dir("cache-unusable");
  const std::string file = dir.Join("a-file");
  REQUIRE(WriteStringToFile(file, "not a directory"));
  NetstackRun run = FetchWithProfile(file, {origin.Url("/text")});
  INFO(run.Describe());
  CHECK(run.exit_code() == 0);
  REQUIRE(run.records.size() == 1);
  CHECK(JsonInt(run.records[0], "status") == 200);
  CHECK(Disposition(run.records[0]) == "bypass");
  std::vector<std::string> err = run.StderrLines();
  REQUIRE(err.size() == 1);
  CHECK(err[0].rfind("netstack: warning: cannot use profile " + file, 0) == 0);
  CHECK(ReadFile(file) == "not a directory");
}

}  // namespace
}  // namespace netstack::test
