// PageLoader on the simulated network (virtual time): the document is parsed, its
// subresources fetched with their priorities, the predictor told in order; and a second load
// of the same page in one process finds the connections the predictor opened ahead.
#include "tools/page/page_loader.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>

#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "net/http/url_request_context.h"
#include "net/sim/sim_network.h"
#include "predictor/predictor.h"
#include "tests/predictor/sim_predictor_env.h"
#include "tests/support/test_url.h"

namespace netstack {
namespace {

using test::U;

// The stack on the worked example's network with the predictor of `policy`; the responder serves
// the test's HTML documents by "host/target" and 1000 filler bytes for anything else.
class PageEnv : public test::SimPredictorEnv {
 public:
  explicit PageEnv(const std::string& policy) : SimPredictorEnv(Options(WorkedExample()), policy) {
    responder.default_body_bytes = 1000;
  }

  PageLoadResult Load(const std::string& url) {
    PageLoader loader(context, predictor, PageLoadOptions());
    bool done = false;
    PageLoadResult result;
    loader.Start(U(url), [&](const PageLoadResult& r) {
      done = true;
      result = r;
    });
    CHECK_FALSE(done);  // never inside Start
    REQUIRE(scheduler.RunUntil([&] { return done; }));
    return result;
  }
};

const char kPage[] = R"(<!doctype html><html><head>
  <link rel=stylesheet href="https://cdn.b.test/site.css">
  <script src="https://js.c.test/app.js"></script>
  <link rel=dns-prefetch href="//dns.d.test">
</head><body>
  <img src="/logo.png"><img src="https://img.b.test/1.png">
  <img src="data:image/gif;base64,R0lGOD">
</body></html>)";

const RequestRecord* Find(const PageLoadResult& r, const std::string& spec) {
  for (const RequestRecord& rec : r.requests) {
    if (rec.url == spec) return &rec;
  }
  return nullptr;
}

TEST_CASE("page load fetches the document, then its subresources by priority", "[page][loader]") {
  PageEnv env("off");
  env.responder.pages["www.a.test/"] = kPage;
  PageLoadResult r = env.Load("https://www.a.test/");
  REQUIRE(r.parsed);
  REQUIRE(r.requests.size() == 5);
  CHECK(r.requests[0].placement->type == "document");
  CHECK(r.requests[0].placement->priority == HIGHEST);
  CHECK(r.requests[0].status == 200);
  CHECK(r.requests[1].url == "https://cdn.b.test/site.css");
  CHECK(r.requests[1].placement->priority == HIGHEST);
  CHECK(r.requests[2].placement->priority == MEDIUM);
  CHECK(r.requests[3].url == "https://www.a.test/logo.png");
  CHECK(r.requests[4].placement->priority == LOWEST);
  CHECK(r.scan.skipped_schemes == 1);
  REQUIRE(r.scan.hints.size() == 1);
  CHECK(r.failed == 0);
  for (const RequestRecord& rec : r.requests) {
    CHECK(rec.error == OK);
    if (rec.placement->type == "document") continue;
    CHECK(rec.body_bytes == 1000);
    CHECK(rec.transfer_bytes == 1000);
    CHECK_FALSE(IsPreconnectSocket(rec.connection.socket_source));
  }
  // Subresources wait for the whole document: each starts after it ended.
  CHECK(r.requests[1].start >= r.document_end);
  CHECK(r.load_ms() > r.document_ms());
  // The document's own origin: its socket is reused for /logo.png.
  CHECK(Find(r, "https://www.a.test/logo.png")->connection.reused());
  CHECK(env.responder.requests.size() == 5);
}

TEST_CASE("page load: a failed or non-HTML document ends the load", "[page][loader]") {
  PageEnv env("off");
  PageLoadResult r = env.Load("https://www.a.test/plain");  // not HTML
  CHECK_FALSE(r.parsed);
  CHECK(r.requests.size() == 1);
  CHECK(r.requests[0].error == OK);
}

TEST_CASE("second page load in one process uses the predictor's preconnects",
          "[page][loader][predictor]") {
  PageEnv env("chrome");
  env.responder.pages["www.a.test/"] = kPage;
  PageLoadResult first = env.Load("https://www.a.test/");
  REQUIRE(first.failed == 0);
  const RequestRecord* css1 = Find(first, "https://cdn.b.test/site.css");
  REQUIRE(css1);
  CHECK(css1->connection.socket_source == SocketSource::kNew);
  CHECK(css1->phases.connect_wait_ms() > 0);
  // The markup's <link rel=dns-prefetch> reached the predictor as soon as it was parsed.
  nlohmann::json hinted = env.predictor->SpeculativeFor({"https", "dns.d.test", 443});
  INFO(hinted.dump());
  CHECK(hinted.value("preresolved", false));

  // A later visit: the pool starts empty (idle sockets closed), as in a new process.
  env.context->socket_pool()->CloseIdleSockets();
  env.scheduler.AdvanceBy(Seconds(1));
  PageLoadResult second = env.Load("https://www.a.test/");
  REQUIRE(second.failed == 0);
  for (const char* spec : {"https://cdn.b.test/site.css", "https://js.c.test/app.js"}) {
    INFO(spec);
    const RequestRecord* rec = Find(second, spec);
    REQUIRE(rec);
    CHECK(rec->connection.socket_source == SocketSource::kPreconnected);
    CHECK(rec->phases.dns_ms == 0);
    CHECK(rec->phases.connect_ms == 0);
    CHECK(rec->phases.tls_ms == 0);
    nlohmann::json spec_json = env.predictor->SpeculativeFor(U(rec->url).scheme_host_port());
    INFO(spec_json.dump());
    CHECK(spec_json.value("preconnected", 0) >= 1);
    CHECK(spec_json.value("outcome", std::string()) == "used");
  }
  CHECK(env.predictor->stats().connections_ready >= 2);
  CHECK(env.predictor->stats().of(SpeculativeAction::kPreconnect).used >= 2);
  CHECK(second.load_ms() < first.load_ms());
}

// The predictor's fetch-ahead hints, as its NetLog shows them (the URL of each).
class FetchHintLog : public NetLog::Observer {
 public:
  void OnAddEntry(const NetLogEntry& entry) override {
    if (entry.type != NetLogEventType::PREDICTOR_HINT || !entry.params.is_object()) return;
    if (entry.params.value("action", std::string()) != "fetch-ahead") return;
    urls.push_back(entry.params.value("target", std::string()));
  }
  std::vector<std::string> urls;
};

TEST_CASE("page load sends each preload and prefetch to the network once", "[page][loader]") {
  PageEnv env("chrome");
  FetchHintLog hints;
  env.net_log.AddObserver(&hints);
  env.responder.pages["www.a.test/"] = R"(<!doctype html><html><head>
  <link rel=preload as=style href="https://cdn.b.test/pre.css">
  <link rel=modulepreload href="/mod.js">
  <link rel=prefetch href="/next.html">
  <link rel=prefetch href="/used.png">
  <link rel=preconnect href="https://pc.e.test">
</head><body><img src="/used.png"></body></html>)";
  PageLoadResult r = env.Load("https://www.a.test/");
  env.net_log.RemoveObserver(&hints);
  REQUIRE(r.parsed);
  REQUIRE(r.failed == 0);
  // The preloads are requests of the load at their `as` priority; the prefetch is not.
  REQUIRE(Find(r, "https://cdn.b.test/pre.css"));
  CHECK(Find(r, "https://cdn.b.test/pre.css")->placement->priority == HIGHEST);
  REQUIRE(Find(r, "https://www.a.test/mod.js"));
  CHECK(Find(r, "https://www.a.test/mod.js")->placement->priority == MEDIUM);
  CHECK(Find(r, "https://www.a.test/next.html") == nullptr);
  // Only the prefetch of a URL this load does not request reaches the predictor as a fetch
  // ahead (the simulated context has no HTTP cache, so it is not carried out here).
  CHECK(hints.urls == std::vector<std::string>{"https://www.a.test/next.html"});
  env.scheduler.AdvanceBy(Seconds(5));
  env.scheduler.RunUntilIdle();
  std::map<std::string, int> count;
  for (const SimRequest& req : env.responder.requests) ++count[req.host + req.target];
  INFO(nlohmann::json(count).dump());
  CHECK(count["cdn.b.test/pre.css"] == 1);
  CHECK(count["www.a.test/mod.js"] == 1);
  CHECK(count["www.a.test/used.png"] == 1);
  CHECK(count["www.a.test/next.html"] == 0);
}

}  // namespace
}  // namespace netstack
