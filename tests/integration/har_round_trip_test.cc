// The loop closed (docs/replay.md "HAR out"): `netstack fetch --page --har` loads a page live
// from a server on loopback whose subresources answer after known delays (the fault server's
// /delay/<ms>: the server sleeps that long before answering), then `netstack replay --estimate`
// replays the HAR it wrote, and the two are compared.
//
// Assertions are on structure and orders of magnitude, never on wall-clock tightness: the live
// waits are at least the known delays (the server slept them); the replay estimates each
// request's server time between 0.8 times the known delay and the live wait it was estimated
// from (loopback's round trip is tiny, so the wait is nearly all server time); and the replayed
// page load is within a factor of 2 of the live one either way (the replay's network is
// estimated from the same HAR, so a loaded machine slows both). The figures are printed.
#include <catch2/catch.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tests/integration/fault_http_server.h"
#include "tests/integration/fetch_test_util.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

// The subresources' known server delays.
constexpr int kShortDelayMs = 150;
constexpr int kLongDelayMs = 300;
// How far the replayed page load may be from the live one, either way.
constexpr double kLoadFactor = 2.0;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<nlohmann::json> JsonLines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) lines.push_back(std::move(j));
  }
  return lines;
}

// A page on a.test (the fault server): a stylesheet answered at once, a script after
// kShortDelayMs and an image after kLongDelayMs.
struct DelayedPage {
  bool Start(std::string* why) {
    server.set_handler([](const FaultHttpServer::Request& r) -> std::optional<std::string> {
      if (r.path == "/page.html") {
        return FaultHttpServer::Response(
            "200 OK", {"Content-Type: text/html"},
            "<!doctype html><html><head><link rel=stylesheet href=\"/style.css\">"
            "<script src=\"/delay/" +
                std::to_string(kShortDelayMs) +
                "\"></script></head>"
                "<body><img src=\"/delay/" +
                std::to_string(kLongDelayMs) + "\"></body></html>");
      }
      if (r.path == "/style.css")
        return FaultHttpServer::Response("200 OK", {"Content-Type: text/css"}, "body{}");
      return std::nullopt;
    });
    if (!server.Start(0, why)) return false;
    host_port = "a.test:" + std::to_string(server.port());
    page = "http://" + host_port + "/page.html";
    return true;
  }
  std::string Url(const std::string& path) const { return "http://" + host_port + path; }
  std::vector<std::string> Flags() const {
    return {"--resolve", host_port + ":127.0.0.1", "--no-cache", "--predictor", "off"};
  }

  FaultHttpServer server;
  std::string host_port, page;
};

const nlohmann::json* EntryFor(const nlohmann::json& entries, const std::string& url) {
  for (const nlohmann::json& e : entries)
    if (JsonString(e, "request/url") == url) return &e;
  return nullptr;
}

TEST_CASE("fetch --page --har, then replay --estimate: the loop closes", "[page][har]") {
  REQUIRE_NETSTACK_BINARY();
  DelayedPage world;
  std::string why;
  REQUIRE(world.Start(&why));
  TempDir dir("har-round-trip");
  const std::string live_har = dir.Join("live.har");

  NetstackRun live = RunNetstack(
      Concat({"fetch", "--page", "--json", "--har", live_har}, Concat(world.Flags(), {world.page})),
      std::chrono::seconds(60));
  INFO(live.Describe());
  REQUIRE(live.exit_code() == 0);
  double live_load_ms = -1;
  for (const nlohmann::json& r : live.records)
    if (JsonString(r, "kind") == "page") live_load_ms = JsonNumber(r, "load_ms");
  REQUIRE(live_load_ms > 0);

  // The live HAR: one page, four entries, the timings block, connection ids, the protocol, the
  // initiator and pageTimings.
  nlohmann::json har = nlohmann::json::parse(ReadFile(live_har));
  const nlohmann::json& log = har["log"];
  CHECK(JsonString(log, "creator/name") == "netstack");
  REQUIRE(log["pages"].size() == 1);
  CHECK(JsonNumber(log["pages"][0], "pageTimings/onLoad") == Approx(live_load_ms).margin(0.01));
  const nlohmann::json& entries = log["entries"];
  REQUIRE(entries.size() == 4);
  for (const nlohmann::json& e : entries) {
    INFO(e.dump());
    CHECK(JsonString(e, "pageref") == "page_1");
    CHECK(JsonInt(e, "response/status") == 200);
    CHECK(JsonString(e, "response/httpVersion") == "http/1.1");
    CHECK_FALSE(JsonString(e, "connection").empty());
    CHECK(JsonString(e, "serverIPAddress") == "127.0.0.1");
    if (JsonString(e, "request/url") != world.page) {
      CHECK(JsonString(e, "_initiator/type") == "parser");
      CHECK(JsonString(e, "_initiator/url") == world.page);
    }
  }
  const nlohmann::json* short_entry =
      EntryFor(entries, world.Url("/delay/" + std::to_string(kShortDelayMs)));
  const nlohmann::json* long_entry =
      EntryFor(entries, world.Url("/delay/" + std::to_string(kLongDelayMs)));
  REQUIRE(short_entry);
  REQUIRE(long_entry);
  // The server slept the delays: the live waits are at least that long.
  const double live_short_wait = JsonNumber(*short_entry, "timings/wait");
  const double live_long_wait = JsonNumber(*long_entry, "timings/wait");
  CHECK(live_short_wait >= kShortDelayMs);
  CHECK(live_long_wait >= kLongDelayMs);

  // Replayed under the network estimated from it: every entry replays (nothing skipped, the
  // same statuses), each delayed request's server time is estimated near its delay, and the page
  // loads in about the live time.
  const std::string replay_json = dir.Join("replay.jsonl");
  const std::string replay_har = dir.Join("replay.har");
  NetstackRun replay = RunNetstack(
      {"replay", live_har, "--estimate", "--json", replay_json, "--har", replay_har, "--quiet"});
  INFO(replay.Describe());
  REQUIRE(replay.exit_code() == 0);
  double replay_load_ms = -1, short_server_ms = -1, long_server_ms = -1;
  int requests = 0;
  for (const nlohmann::json& line : JsonLines(replay_json)) {
    const std::string kind = JsonString(line, "kind");
    if (kind == "request") {
      ++requests;
      CHECK(JsonInt(line, "status") == 200);
      if (JsonString(line, "url") == JsonString(*short_entry, "request/url"))
        short_server_ms = JsonNumber(line, "model/server_ms");
      if (JsonString(line, "url") == JsonString(*long_entry, "request/url"))
        long_server_ms = JsonNumber(line, "model/server_ms");
    } else if (kind == "page") {
      replay_load_ms = JsonNumber(line, "load_ms");
      CHECK(JsonInt(line, "skipped") == 0);
    }
  }
  CHECK(requests == 4);
  std::cout << "har round trip: live load " << live_load_ms << " ms, replayed load "
            << replay_load_ms << " ms; server time estimated " << short_server_ms << " ms (delay "
            << kShortDelayMs << ", live wait " << live_short_wait << ") and " << long_server_ms
            << " ms (delay " << kLongDelayMs << ", live wait " << live_long_wait << ")\n";
  CHECK(short_server_ms >= 0.8 * kShortDelayMs);
  CHECK(short_server_ms <= live_short_wait + 1);
  CHECK(long_server_ms >= 0.8 * kLongDelayMs);
  CHECK(long_server_ms <= live_long_wait + 1);
  CHECK(replay_load_ms >= live_load_ms / kLoadFactor);
  CHECK(replay_load_ms <= live_load_ms * kLoadFactor);

  // The replay's own HAR replays again: the same pages, requests and statuses.
  NetstackRun again = RunNetstack({"replay", replay_har, "--json", "-", "--quiet"});
  INFO(again.Describe());
  REQUIRE(again.exit_code() == 0);
  int again_requests = 0, again_pages = 0;
  for (const nlohmann::json& line : again.records) {
    if (JsonString(line, "kind") == "request") {
      ++again_requests;
      CHECK(JsonInt(line, "status") == 200);
    }
    if (JsonString(line, "kind") == "page") {
      ++again_pages;
      CHECK(JsonInt(line, "skipped") == 0);
    }
  }
  CHECK(again_requests == 4);
  CHECK(again_pages == 1);
}

TEST_CASE("fetch --har of plain fetches: one page, an entry per URL, and it replays",
          "[page][har]") {
  REQUIRE_NETSTACK_BINARY();
  DelayedPage world;
  std::string why;
  REQUIRE(world.Start(&why));
  TempDir dir("har-plain");
  const std::string har_path = dir.Join("plain.har");
  const std::string delayed = world.Url("/delay/" + std::to_string(kShortDelayMs));
  NetstackRun run =
      RunNetstack({"fetch", "--json", "--har", har_path, "--resolve",
                   world.host_port + ":127.0.0.1", "--no-cache", world.Url("/style.css"), delayed});
  INFO(run.Describe());
  REQUIRE(run.exit_code() == 0);
  nlohmann::json har = nlohmann::json::parse(ReadFile(har_path));
  const nlohmann::json& log = har["log"];
  REQUIRE(log["pages"].size() == 1);
  CHECK(JsonString(log["pages"][0], "title") == world.Url("/style.css"));
  CHECK(JsonNumber(log["pages"][0], "pageTimings/onLoad") == -1);
  REQUIRE(log["entries"].size() == 2);
  const nlohmann::json* entry = EntryFor(log["entries"], delayed);
  REQUIRE(entry);
  CHECK(JsonString(*entry, "pageref") == "page_1");
  CHECK(JsonNumber(*entry, "timings/wait") >= kShortDelayMs);
  CHECK(JsonString(*entry, "response/content/mimeType") == "text/plain");
  NetstackRun replay = RunNetstack({"replay", har_path, "--json", "-", "--quiet"});
  INFO(replay.Describe());
  REQUIRE(replay.exit_code() == 0);
  int requests = 0;
  for (const nlohmann::json& line : replay.records) {
    if (JsonString(line, "kind") != "request") continue;
    ++requests;
    CHECK(JsonInt(line, "status") == 200);
  }
  CHECK(requests == 2);
}

TEST_CASE("fetch --page --har to an unwritable path: exit 2, one line, nothing fetched",
          "[page][har]") {
  REQUIRE_NETSTACK_BINARY();
  DelayedPage world;
  std::string why;
  REQUIRE(world.Start(&why));
  NetstackRun run = RunNetstack(Concat({"fetch", "--page", "--har", "/nonexistent-dir/p.har"},
                                       Concat(world.Flags(), {world.page})));
  INFO(run.Describe());
  CHECK(run.exit_code() == 2);
  std::vector<std::string> errors = run.StderrLines();
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "netstack: cannot write /nonexistent-dir/p.har: No such file or directory");
  CHECK(world.server.paths().empty());
}

}  // namespace
}  // namespace netstack::test
