// NetLogParams writes the text nlohmann's dump writes for the same object, and the NetLog builds
// params only in the forms its observers ask for (ParamsNeed).
#include "net/base/net_log_params.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"

using namespace netstack;
using json = nlohmann::json;

namespace {

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

struct Recorder : NetLog::Observer {
  explicit Recorder(int need) : need(need) {}
  int ParamsNeed(NetLogEventType) const override { return need; }
  void OnAddEntry(const NetLogEntry& e) override {
    texts.emplace_back(e.params_text);
    params.push_back(e.params);
  }
  int need;
  std::vector<std::string> texts;
  std::vector<json> params;
};

}  // namespace

TEST_CASE("NetLogParams writes what nlohmann dumps, key by key", "[net_log_params]") {
  NetLogParams p;
  p.Add("a_int", -42)
      .Add("b_big", std::numeric_limits<uint64_t>::max())
      .Add("c_min", std::numeric_limits<int64_t>::min())
      .Add("d_true", true)
      .Add("e_false", false)
      .AddNull("f_null")
      .Add("g_plain", "GET /a?b=c HTTP/1.1")
      .Add("h_quote", std::string("say \"hi\" \\ back"))
      .Add("i_control", std::string_view("line\r\n\t\x01"))
      .Add("j_utf8", "caf\xc3\xa9")
      .Add("k_bad_utf8", std::string("x\xff\xfey"))
      .Add("l_empty", "");
  const json expected = {{"a_int", -42},
                         {"b_big", std::numeric_limits<uint64_t>::max()},
                         {"c_min", std::numeric_limits<int64_t>::min()},
                         {"d_true", true},
                         {"e_false", false},
                         {"f_null", nullptr},
                         {"g_plain", "GET /a?b=c HTTP/1.1"},
                         {"h_quote", "say \"hi\" \\ back"},
                         {"i_control", "line\r\n\t\x01"},
                         {"j_utf8", "caf\xc3\xa9"},
                         {"k_bad_utf8", "x\xff\xfey"},
                         {"l_empty", ""}};
  CHECK(p.Finish() == Dump(expected));
}

TEST_CASE("NetLogParams writes doubles as nlohmann does", "[net_log_params]") {
  const std::vector<double> values = {0.0,     -0.0,      1.0,     0.1,   3.0,    1e-7, 1e21,
                                      123.456, -2.5e-300, 1.0 / 3, 1e300, 5e-324, 0.5,  -1234567.0};
  for (double v : values) {
    NetLogParams p;
    p.Add("v", v);
    CHECK(p.Finish() == Dump(json{{"v", v}}));
  }
  for (double v : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    NetLogParams p;
    p.Add("v", v);
    CHECK(p.Finish() == R"({"v":null})");
  }
}

TEST_CASE("NetLogParams nests objects, arrays and sources", "[net_log_params]") {
  NetLogSource source{NetLogSourceType::SOCKET, 17, {}};
  NetLogParams p;
  p.BeginArray("headers").AddElement("Host: a").AddElement("X: \"q\"").EndArray();
  p.BeginArray("none").EndArray();
  p.BeginObject("inner").Add("a", 1).BeginObject("b").EndObject().Add("c", "x").EndObject();
  p.AddJson("raw", json{{"z", 1}, {"y", json::array({1, 2})}});
  p.AddSource("source_dependency", source);
  const json expected = {{"headers", {"Host: a", "X: \"q\""}},
                         {"none", json::array()},
                         {"inner", {{"a", 1}, {"b", json::object()}, {"c", "x"}}},
                         {"raw", {{"z", 1}, {"y", {1, 2}}}},
                         {"source_dependency", source.ToJson()}};
  CHECK(p.Finish() == Dump(expected));
}

TEST_CASE("NetLogParams re-sorts keys a call site wrote out of order", "[net_log_params]") {
  NetLogParams p;
  p.Add("zeta", 1).Add("alpha", 2).BeginObject("mid").Add("y", 1).Add("b", 2).EndObject();
  CHECK(p.Finish() == R"({"alpha":2,"mid":{"b":2,"y":1},"zeta":1})");

  // Deeper than the checked depth: still sorted.
  NetLogParams deep;
  for (int i = 0; i <= NetLogParams::kMaxDepth + 1; ++i) deep.BeginObject("o");
  deep.Add("z", 1).Add("a", 2);
  json expected = {{"a", 2}, {"z", 1}};
  for (int i = 0; i <= NetLogParams::kMaxDepth + 1; ++i) expected = json{{"o", expected}};
  CHECK(deep.Finish() == Dump(expected));

  // Keys that need escaping compare differently as text: re-sorted too.
  NetLogParams escaped;
  escaped.Add("b", 1).Add("a\"", 2);
  CHECK(escaped.Finish() == Dump(json{{"b", 1}, {"a\"", 2}}));

  // Unclosed objects are closed by Finish; nothing added is "{}".
  NetLogParams open;
  open.BeginObject("x").Add("k", 1);
  CHECK(open.Finish() == R"({"x":{"k":1}})");
  NetLogParams none;
  CHECK(none.empty());
  CHECK(none.Finish() == "{}");
}

TEST_CASE("NetLog builds params only in the forms observers need", "[net_log_params]") {
  VirtualScheduler clock;
  NetLog log(clock);
  auto src = NetLogWithSource::Make(&log, NetLogSourceType::URL_REQUEST);
  int written = 0;
  int built = 0;
  auto writer = [&](NetLogParams& p) {
    ++written;
    p.Add("bytes", 5).Add("url", "http://a/");
  };
  auto builder = [&] {
    ++built;
    return json{{"url", "http://a/"}, {"bytes", 5}};
  };

  // Nobody observing, or an observer that needs only the type and time: nothing is built.
  src.AddEvent(NetLogEventType::REQUEST_ALIVE, writer);
  Recorder bare(kNetLogParamsNone);
  log.AddObserver(&bare);
  src.AddEvent(NetLogEventType::REQUEST_ALIVE, writer);
  src.AddEvent(NetLogEventType::REQUEST_ALIVE, builder);
  CHECK(written == 0);
  CHECK(built == 0);
  REQUIRE(bare.texts.size() == 2);
  CHECK(bare.texts[0].empty());
  CHECK(bare.params[1].is_null());

  // A text observer: written params are not parsed into json.
  Recorder text(kNetLogParamsText);
  log.AddObserver(&text);
  src.AddEvent(NetLogEventType::REQUEST_ALIVE, writer);
  CHECK(written == 1);
  REQUIRE(text.texts.size() == 1);
  CHECK(text.texts[0] == R"({"bytes":5,"url":"http://a/"})");
  CHECK(text.params[0].is_null());

  // Text and json observers: either callback gives both forms, the same params.
  Recorder values(kNetLogParamsJson);
  log.AddObserver(&values);
  src.AddEvent(NetLogEventType::REQUEST_ALIVE, writer);
  src.AddEvent(NetLogEventType::REQUEST_ALIVE, builder);
  src.AddEvent(NetLogEventType::REQUEST_ALIVE, [](NetLogParams&) {});  // no params
  CHECK(written == 2);
  CHECK(built == 1);
  REQUIRE(text.texts.size() == 4);
  CHECK(text.texts[1] == text.texts[0]);
  CHECK(text.texts[2] == text.texts[0]);
  CHECK(text.texts[3].empty());
  REQUIRE(values.params.size() == 3);
  CHECK(values.params[0] == values.params[1]);
  CHECK(values.params[0]["bytes"] == 5);
  CHECK(values.params[2].is_null());
  log.RemoveObserver(&bare);
  log.RemoveObserver(&text);
  log.RemoveObserver(&values);
}

namespace {
// Logs another event from inside its observer call: the NetLog's reused buffer must not be
// overwritten under the outer entry.
struct Reentrant : NetLog::Observer {
  int ParamsNeed(NetLogEventType) const override { return kNetLogParamsText; }
  void OnAddEntry(const NetLogEntry& e) override {
    if (e.type == NetLogEventType::REQUEST_ALIVE) {
      inner->AddEvent(NetLogEventType::SOCKET_CLOSED,
                      [](NetLogParams& p) { p.Add("inner", "yes"); });
    }
    texts.emplace_back(e.params_text);
  }
  const NetLogWithSource* inner = nullptr;
  std::vector<std::string> texts;
};
}  // namespace

TEST_CASE("NetLog params survive an entry logged from an observer", "[net_log_params]") {
  VirtualScheduler clock;
  NetLog log(clock);
  Reentrant observer;
  log.AddObserver(&observer);
  auto src = NetLogWithSource::Make(&log, NetLogSourceType::URL_REQUEST);
  observer.inner = &src;
  src.AddEvent(NetLogEventType::REQUEST_ALIVE, [](NetLogParams& p) { p.Add("outer", 1); });
  REQUIRE(observer.texts.size() == 2);
  CHECK(observer.texts[0] == R"({"inner":"yes"})");
  CHECK(observer.texts[1] == R"({"outer":1})");
  log.RemoveObserver(&observer);
}
