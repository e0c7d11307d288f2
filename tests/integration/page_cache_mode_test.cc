// `fetch --page --cache-mode MODE` against nginx: the mode reaches the document and every
// subresource (a user's reload applies to the whole page), as each request's `cache` field and
// nginx's access log (what reached the origin, and with which status) show; only-if-cached is
// refused with --page (docs/fetch.md "Page loads").
#include <string>
#include <vector>

#include "tests/integration/fetch_test_util.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

// A document with a stylesheet, a script and an image, all fresh for an hour.
constexpr char kPage[] =
    "<!doctype html><html><head><link rel=stylesheet href=\"/cm/a.css\">"
    "<script src=\"/cm/b.js\"></script></head><body><img src=\"/cm/c.png\"></body></html>\n";
constexpr size_t kRequests = 4;

struct Load {
  NetstackRun run;
  std::vector<std::string> caches;  // each request's `cache`, in record order
};

Load RunLoad(const std::string& profile, const std::string& url,
             const std::vector<std::string>& extra) {
  Load load;
  // --predictor off: no fetches ahead or preconnects, so only the page's own requests count.
  load.run = RunFetchJson(
      Concat(Concat({"--page", "--predictor", "off", "--profile", profile}, extra), {url}),
      std::chrono::seconds(60));
  for (const nlohmann::json& r : load.run.records)
    if (JsonString(r, "kind") == "request") load.caches.push_back(JsonString(r, "cache"));
  return load;
}

TEST_CASE("fetch --page --cache-mode applies the mode to the document and its subresources",
          "[page][cache][cache_mode]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.AddFile("/cm/page.html", kPage);
  nginx.AddFile("/cm/a.css", "body { color: black }\n");
  nginx.AddFile("/cm/b.js", "var loaded = 1;\n");
  nginx.AddFile("/cm/c.png", std::string(300, 'p'));
  nginx.AddServerConfig("    location /cm/ { expires 1h; }");
  START_OR_SKIP(nginx);
  TempDir dir;
  const std::string profile = dir.Join("profile");
  const std::string url = nginx.HttpUrl("/cm/page.html");

  struct Step {
    const char* mode;   // "" for none given
    const char* cache;  // every request's `cache`
    int origin_status;  // what nginx answered each request; 0: nothing reached it
  };
  const std::vector<Step> steps = {
      {"", "miss", 200},                 // the first load stores everything
      {"", "hit", 0},                    // fresh: nothing reaches nginx
      {"reload", "miss", 200},           // the network for all, stored again
      {"no-cache", "revalidated", 304},  // every stored response validated first
      {"force-cache", "hit", 0},
      {"no-store", "bypass", 200},
      {"default", "hit", 0},  // no-store neither read nor replaced what was stored
  };
  size_t logged = 0;
  for (const Step& step : steps) {
    std::vector<std::string> extra;
    if (*step.mode) extra = {"--cache-mode", step.mode};
    Load load = RunLoad(profile, url, extra);
    INFO((*step.mode ? step.mode : "(no mode)") << "\n" << load.run.Describe());
    REQUIRE(load.run.exit_code() == 0);
    CHECK(load.caches == std::vector<std::string>(kRequests, step.cache));
    const size_t expected = logged + (step.origin_status ? kRequests : 0);
    const std::vector<NginxLogEntry> log = nginx.ReadAccessLog(expected);
    REQUIRE(log.size() == expected);
    for (size_t i = logged; i < log.size(); ++i) {
      INFO(log[i].request_uri);
      CHECK(log[i].status == step.origin_status);
      CHECK(log[i].request_uri.rfind("/cm/", 0) == 0);
    }
    logged = expected;
  }

  // only-if-cached is not a page load: exit 2, one line, nothing fetched.
  NetstackRun refused =
      RunNetstack({"fetch", "--page", "--profile", profile, "--cache-mode", "only-if-cached", url});
  INFO(refused.Describe());
  CHECK(refused.exit_code() == 2);
  CHECK(refused.StderrLines().size() == 1);
  CHECK(refused.process.err.find("--cache-mode only-if-cached conflicts with --page") !=
        std::string::npos);
  CHECK(nginx.ReadAccessLog().size() == logged);
}

}  // namespace
}  // namespace netstack::test
