// FetchBox (the internals page's fetch box) over the simulated network on virtual time, with the
// chrome predictor: suggestions, page loads and their history, the in-flight and history
// bounds, the omnibox and mouse-over hints, and DNS lookups (including one pending when the box
// goes away).
#include "tools/netstack/fetch_box.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "net/dns/dns_transport.h"
#include "net/http/url_request_context.h"
#include "net/sim/sim_network.h"
#include "predictor/chrome_policy.h"
#include "predictor/predictor.h"
#include "tests/predictor/sim_predictor_env.h"
#include "tests/support/scripted_dns_transport.h"

namespace netstack {
namespace {

using nlohmann::json;

// The simulated DNS knows every name; this one knows only *.test names (through the sim). The
// others go to a scripted transport: ERR_NAME_NOT_RESOLVED when scripted so, else no answer.
class SplitDns : public DnsTransport {
 public:
  SplitDns(std::unique_ptr<DnsTransport> sim, Scheduler& scheduler)
      : sim_(std::move(sim)), scripted(scheduler) {
    scripted.set_default_delay(ScriptedDnsTransport::kHang);
  }
  std::unique_ptr<DnsTransaction> StartLookup(const std::string& hostname, AddressFamily family,
                                              Callback callback) override {
    const std::string suffix = ".test";
    bool known = hostname.size() > suffix.size() &&
                 hostname.compare(hostname.size() - suffix.size(), suffix.size(), suffix) == 0;
    return known ? sim_->StartLookup(hostname, family, std::move(callback))
                 : scripted.StartLookup(hostname, family, std::move(callback));
  }

 private:
  std::unique_ptr<DnsTransport> sim_;

 public:
  ScriptedDnsTransport scripted;
};

// The stack on the worked example's network with the chrome predictor, its DNS split by SplitDns,
// and the box. The responder serves the test's HTML documents by "host/target" and 1000 filler
// bytes for anything else; /slow answers after an hour of virtual time.
class BoxEnv {
 public:
  BoxEnv() : sim(Options(), "chrome") {
    sim.responder.default_body_bytes = 1000;
    SimResponse slow;
    slow.head = test::TestResponder::Head(1000);
    slow.body_bytes = 1000;
    slow.server_time = Seconds(3600);
    sim.responder.scripted["/slow"] = slow;
    box = std::make_unique<FetchBox>(context, predictor, PageLoadOptions());
  }
  ~BoxEnv() { box.reset(); }  // before the predictor and the stack

  // Every load in the history is done.
  bool AllDone() const {
    const json history = box->History();
    for (const json& l : history["loads"]) {
      if (l["state"] != "done") return false;
    }
    return true;
  }

  SplitDns* dns = nullptr;  // the stack's; set while `sim` is built, so declared before it
  test::SimPredictorEnv sim;
  VirtualScheduler& scheduler = sim.scheduler;
  test::TestResponder& responder = sim.responder;
  UrlRequestContext* const context = sim.context;
  Predictor* const predictor = sim.predictor;
  std::unique_ptr<FetchBox> box;

 private:
  // The worked example, the simulated DNS wrapped by a SplitDns on the env's scheduler.
  SimStackOptions Options() {
    SimStackOptions options = test::SimTestEnv::Options(test::SimTestEnv::WorkedExample());
    options.wrap_dns = [this](std::unique_ptr<DnsTransport> sim_dns) {
      auto split = std::make_unique<SplitDns>(std::move(sim_dns), sim.scheduler);
      dns = split.get();
      return split;
    };
    return options;
  }
};

std::optional<std::string> SuggestSpec(const std::string& text,
                                       const std::vector<std::string>& candidates) {
  std::optional<Url> url = FetchBox::Suggest(text, candidates);
  if (!url) return std::nullopt;
  return url->spec();
}

// The entries of `actions` with this action name.
std::vector<json> ActionsNamed(const json& actions, const std::string& name) {
  std::vector<json> out;
  for (const json& a : actions) {
    if (a.value("action", std::string()) == name) out.push_back(a);
  }
  return out;
}

TEST_CASE("fetch box suggests the newest matching history entry", "[internals][fetch_box]") {
  const std::vector<std::string> candidates = {"https://www.example.com/new",
                                               "http://example.com/old", "https://other.org/"};
  // Newest first; case, scheme and www. ignored on both sides.
  CHECK(SuggestSpec("EXAMPLE", candidates) == "https://www.example.com/new");
  CHECK(SuggestSpec("www.Example.com/o", candidates) == "http://example.com/old");
  CHECK(SuggestSpec("https://example.com/n", candidates) == "https://www.example.com/new");
  CHECK(SuggestSpec("http://www.other", candidates) == "https://other.org/");
  // No candidate matches: the text itself as a URL, http:// added when it has no scheme.
  CHECK(SuggestSpec("third.net/x", candidates) == "http://third.net/x");
  CHECK(SuggestSpec("https://third.net/y", candidates) == "https://third.net/y");
  CHECK(SuggestSpec("fourth.net", {}) == "http://fourth.net/");
  // Nothing for empty text, text that is no http(s) URL, or text over the bound.
  CHECK_FALSE(SuggestSpec("", candidates));
  CHECK_FALSE(SuggestSpec("ftp://example.com/", {}));
  CHECK_FALSE(SuggestSpec("http://", {}));
  CHECK_FALSE(SuggestSpec(std::string(FetchBox::kMaxTextBytes + 1, 'a'), {}));
}

TEST_CASE("fetch box loads a page and shows it in the history", "[internals][fetch_box]") {
  BoxEnv env;
  CHECK(env.box->Fetch("").status == 400);
  CHECK(env.box->Fetch("ftp://a.test/").status == 400);
  CHECK(env.box->Fetch(std::string(FetchBox::kMaxTextBytes + 1, 'a')).status == 400);
  CHECK(env.box->History()["loads"].empty());

  env.responder.pages["a.test/"] = "<html><body><img src=\"/logo.png\"></body></html>";
  InternalsResult r = env.box->Fetch("a.test");
  REQUIRE(r.status == 200);
  INFO(r.body.dump());
  CHECK(r.body["url"] == "http://a.test/");
  REQUIRE(r.body["id"].is_number_unsigned());
  const uint64_t id = r.body["id"];

  json loads = env.box->History()["loads"];
  REQUIRE(loads.size() == 1);
  CHECK(loads[0]["id"] == id);
  CHECK(loads[0]["state"] == "loading");
  CHECK(loads[0]["page"].is_null());
  CHECK(loads[0]["requests"].empty());

  REQUIRE(env.scheduler.RunUntil([&] { return env.AllDone(); }));
  loads = env.box->History()["loads"];
  REQUIRE(loads.size() == 1);
  INFO(loads.dump());
  CHECK(loads[0]["id"] == id);
  CHECK(loads[0]["url"] == "http://a.test/");
  CHECK(loads[0]["state"] == "done");
  CHECK(loads[0]["page"].is_object());
  REQUIRE(loads[0]["requests"].size() == 2);  // the document and its image
  for (const json& req : loads[0]["requests"]) {
    CHECK(req["type"].is_string());
    CHECK(req["timing"].is_object());
  }
  CHECK(loads[0]["requests"][0]["type"] == "document");

  // A second load comes first in the history.
  InternalsResult second = env.box->Fetch("http://b.test/next");
  REQUIRE(second.status == 200);
  CHECK(second.body["id"] != id);
  loads = env.box->History()["loads"];
  REQUIRE(loads.size() == 2);
  CHECK(loads[0]["url"] == "http://b.test/next");
  CHECK(loads[1]["url"] == "http://a.test/");
}

TEST_CASE("fetch box refuses a load past kMaxInFlight", "[internals][fetch_box]") {
  BoxEnv env;
  // Virtual time does not move: every load stays in flight.
  for (size_t i = 0; i < FetchBox::kMaxInFlight; ++i) {
    INFO(i);
    REQUIRE(env.box->Fetch("http://a.test/" + std::to_string(i)).status == 200);
  }
  InternalsResult refused = env.box->Fetch("http://a.test/more");
  CHECK(refused.status == 429);
  CHECK(refused.body["error"].is_string());
  CHECK(env.box->History()["loads"].size() == FetchBox::kMaxInFlight);
  // Once they finish, loads are accepted again.
  REQUIRE(env.scheduler.RunUntil([&] { return env.AllDone(); }));
  CHECK(env.box->Fetch("http://a.test/more").status == 200);
}

TEST_CASE("fetch box history keeps the newest kMaxHistory loads and every load in flight",
          "[internals][fetch_box]") {
  BoxEnv env;
  // The first load is slow: it stays in flight while more than kMaxHistory others finish.
  InternalsResult slow = env.box->Fetch("http://slow.test/slow");
  REQUIRE(slow.status == 200);
  const uint64_t slow_id = slow.body["id"];
  std::vector<uint64_t> ids;
  const size_t total = FetchBox::kMaxHistory + 5;
  while (ids.size() < total) {
    // One slot is the slow load's.
    for (size_t i = 0; i + 1 < FetchBox::kMaxInFlight && ids.size() < total; ++i) {
      InternalsResult r = env.box->Fetch("http://a.test/p" + std::to_string(ids.size()));
      REQUIRE(r.status == 200);
      ids.push_back(r.body["id"]);
    }
    REQUIRE(env.scheduler.RunUntil([&] {
      size_t loading = 0;
      const json history = env.box->History();
      for (const json& l : history["loads"]) loading += l["state"] == "loading";
      return loading == 1;
    }));
  }
  json loads = env.box->History()["loads"];
  REQUIRE(loads.size() == FetchBox::kMaxHistory);
  // Newest first: the newest kMaxHistory - 1 finished loads, then the slow one still loading.
  for (size_t i = 0; i + 1 < FetchBox::kMaxHistory; ++i) {
    INFO(i);
    CHECK(loads[i]["id"] == ids[total - 1 - i]);
    CHECK(loads[i]["state"] == "done");
  }
  CHECK(loads[FetchBox::kMaxHistory - 1]["id"] == slow_id);
  CHECK(loads[FetchBox::kMaxHistory - 1]["state"] == "loading");
}

TEST_CASE("fetch box omnibox preconnects after three hits", "[internals][fetch_box][predictor]") {
  static_assert(ChromePolicy::kOmniboxMinHits == 3);
  BoxEnv env;
  const SchemeHostPort origin{"http", "a.test", 80};
  for (int hit = 0; hit < 3; ++hit) {
    INFO("hit " << hit);
    InternalsResult typed = env.box->Omnibox("a.test");
    REQUIRE(typed.status == 200);
    CHECK(typed.body["text"] == "a.test");
    CHECK(typed.body["suggestion"] == "http://a.test/");
    // Below three hits the confidence is 0: no preconnect.
    CHECK(ActionsNamed(typed.body["actions"], "preconnect").empty());
    REQUIRE(env.box->Fetch("a.test").status == 200);
    REQUIRE(env.scheduler.RunUntil([&] { return env.AllDone(); }));
  }
  // The history's own URL is now the suggestion for a prefix.
  CHECK(env.box->Omnibox("A.TE").body["suggestion"] == "http://a.test/");

  env.context->socket_pool()->CloseIdleSockets();
  env.scheduler.AdvanceBy(Seconds(11));  // past the omnibox preconnect's per-origin period
  env.scheduler.RunUntilIdle();
  REQUIRE(env.context->socket_pool()->IdleSocketCountInGroup(origin) == 0);
  REQUIRE(env.context->socket_pool()->NumConnectJobsInGroup(origin) == 0);

  InternalsResult typed = env.box->Omnibox("a.test");
  REQUIRE(typed.status == 200);
  INFO(typed.body.dump());
  std::vector<json> preconnects = ActionsNamed(typed.body["actions"], "preconnect");
  REQUIRE(preconnects.size() == 1);
  CHECK(preconnects[0]["motivation"] == "omnibox");
  CHECK(preconnects[0]["origin"] == origin.ToString());
  env.scheduler.RunUntilIdle();  // no time passes: the connect is under way
  ClientSocketPool* pool = env.context->socket_pool();
  CHECK(pool->NumConnectJobsInGroup(origin) + pool->IdleSocketCountInGroup(origin) >= 1);
}

TEST_CASE("fetch box hover gives the mouse-over actions", "[internals][fetch_box][predictor]") {
  BoxEnv env;
  CHECK(env.box->Hover("").status == 400);
  CHECK(env.box->Hover("ftp://b.test/").status == 400);
  InternalsResult r = env.box->Hover("b.test/page");
  REQUIRE(r.status == 200);
  INFO(r.body.dump());
  CHECK(r.body["url"] == "http://b.test/page");
  std::vector<json> preconnects = ActionsNamed(r.body["actions"], "preconnect");
  REQUIRE_FALSE(preconnects.empty());
  CHECK(preconnects[0]["motivation"] == "mouse-over");
  CHECK(preconnects[0]["origin"] == "http://b.test:80");
}

// What one Resolve answered, and whether it answered inside the call.
struct Answer {
  int calls = 0;
  bool inside_call = false;
  InternalsResult result;
};

void StartResolve(FetchBox* box, const std::string& host, Answer* answer) {
  auto in_call = std::make_shared<bool>(true);
  box->Resolve(host, [answer, in_call](InternalsResult r) {
    ++answer->calls;
    answer->inside_call = *in_call;
    answer->result = std::move(r);
  });
  *in_call = false;
}

TEST_CASE("fetch box resolves a known host and reports an unknown one", "[internals][fetch_box]") {
  BoxEnv env;
  env.dns->scripted.SetError("nowhere.invalid", ERR_NAME_NOT_RESOLVED);
  Answer known, unknown;
  StartResolve(env.box.get(), "a.test", &known);
  StartResolve(env.box.get(), "nowhere.invalid", &unknown);
  CHECK(known.calls == 0);
  CHECK(unknown.calls == 0);
  REQUIRE(env.scheduler.RunUntil([&] { return known.calls > 0 && unknown.calls > 0; }));
  env.scheduler.AdvanceBy(Seconds(1));
  env.scheduler.RunUntilIdle();

  CHECK(known.calls == 1);
  INFO(known.result.body.dump());
  CHECK(known.result.status == 200);
  CHECK(known.result.body["host"] == "a.test");
  CHECK(known.result.body["result"] == "OK");
  REQUIRE(known.result.body["addresses"].size() == 1);
  CHECK(known.result.body["addresses"][0].get<std::string>().rfind("10.", 0) == 0);
  CHECK(known.result.body["from_cache"] == false);

  CHECK(unknown.calls == 1);
  INFO(unknown.result.body.dump());
  CHECK(unknown.result.status == 200);
  CHECK(unknown.result.body["host"] == "nowhere.invalid");
  CHECK(unknown.result.body["result"] == "ERR_NAME_NOT_RESOLVED");
  CHECK(unknown.result.body["addresses"].empty());

  Answer empty;
  StartResolve(env.box.get(), "", &empty);
  CHECK(empty.calls == 0);  // never inside the call
  env.scheduler.RunUntilIdle();
  CHECK(empty.calls == 1);
  CHECK_FALSE(empty.inside_call);
  CHECK(empty.result.status == 400);
}

// InternalsHost::Resolve: `done` runs "once, later". A host-cache hit completes synchronously
// in the resolver; the box still answers from a later task.
TEST_CASE("fetch box answers a cached lookup later, not inside Resolve", "[internals][fetch_box]") {
  BoxEnv env;
  Answer first, second;
  StartResolve(env.box.get(), "a.test", &first);
  REQUIRE(env.scheduler.RunUntil([&] { return first.calls > 0; }));
  StartResolve(env.box.get(), "a.test", &second);
  env.scheduler.RunUntilIdle();
  REQUIRE(second.calls == 1);
  CHECK(second.result.body["from_cache"] == true);
  CHECK_FALSE(second.inside_call);
}

TEST_CASE("fetch box refuses lookups past kMaxLookups", "[internals][fetch_box]") {
  BoxEnv env;
  // *.invalid names without a script never answer: every lookup stays in flight.
  std::vector<Answer> answers(FetchBox::kMaxLookups);
  for (size_t i = 0; i < FetchBox::kMaxLookups; ++i) {
    StartResolve(env.box.get(), "hang" + std::to_string(i) + ".invalid", &answers[i]);
  }
  Answer refused;
  StartResolve(env.box.get(), "one-more.invalid", &refused);
  CHECK(refused.calls == 0);  // never inside the call
  env.scheduler.RunUntilIdle();
  CHECK(refused.calls == 1);
  CHECK(refused.result.status == 429);
  CHECK(refused.result.body["error"].is_string());
  env.scheduler.RunUntilIdle();
  for (const Answer& a : answers) {
    INFO(a.result.body.dump());
    CHECK(a.calls == 0);
  }
}

TEST_CASE("fetch box: a lookup pending when the box goes never answers", "[internals][fetch_box]") {
  BoxEnv env;
  Answer pending, loaded;
  StartResolve(env.box.get(), "hang.invalid", &pending);
  // A load in flight too: it is cancelled with the box.
  REQUIRE(env.box->Fetch("http://a.test/").status == 200);
  env.scheduler.RunUntilIdle();
  REQUIRE(pending.calls == 0);
  env.box.reset();
  // The transport answers after all (if the resolver still waits for it); nobody hears it.
  env.dns->scripted.SetError("hang.invalid", ERR_NAME_NOT_RESOLVED);
  env.dns->scripted.CompleteNext("hang.invalid");
  env.scheduler.AdvanceBy(Seconds(60));
  env.scheduler.RunUntilIdle();
  CHECK(pending.calls == 0);
}

}  // namespace
}  // namespace netstack
