#include "tools/netstack/gen_session_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/replay/trace/session_reader.h"

using namespace netstack;

namespace {

// Parses `args` (after "netstack") as the real main does; returns the options.
GenSessionOptions Parse(std::vector<std::string> args) {
  CLI::App app;
  GenSessionOptions options;
  AddGenSessionCommand(&app, &options);
  args.insert(args.begin(), "netstack");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  return options;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("gen-session: flags reach the model, and the file is what the seed makes") {
  std::string path = "gen_session_test.jsonl";
  GenSessionOptions options =
      Parse({"gen-session", "--synthetic", "--requests", "500", "--sites", "4", "--pages-per-site",
             "3", "--seed", "9", "-o", path, "--quiet"});
  CHECK(options.synthetic);
  CHECK(options.model.requests == 500);
  CHECK(options.model.sites == 4);
  CHECK(options.model.pages_per_site == 3);
  CHECK(options.model.seed == 9);
  REQUIRE(RunGenSessionCommand(options) == 0);
  std::string first = ReadFile(path);
  CHECK(first.rfind("# netstack gen-session --synthetic --seed 9 --requests 500 --sites 4", 0) ==
        0);
  REQUIRE(RunGenSessionCommand(options) == 0);
  CHECK(ReadFile(path) == first);
  std::remove(path.c_str());
}

// CLI11's message for `args`, or "" when they parse.
static std::string ParseMessage(std::vector<std::string> args) {
  try {
    Parse(std::move(args));
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("gen-session: every number is checked for range before anything is written") {
  // The repros: -5 wrapped to 2^64-5 pages; 99999999999 was taken as given.
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "-5"}) ==
        "--pages: '-5' is out of range (1 to 10,000,000)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "99999999999"}) ==
        "--pages: '99999999999' is out of range (1 to 10,000,000)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--requests", "99999999999"}) ==
        "--requests: '99999999999' is out of range (1 to 100,000,000)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--requests", "0"}) ==
        "--requests: '0' is out of range (1 to 100,000,000)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--seed", "-1"}) ==
        "--seed: '-1' is out of range (0 to 18,446,744,073,709,551,615)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--sites", "99999999999"}) ==
        "--sites: '99999999999' is out of range (1 to 100,000)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--pages-per-site", "0"}) ==
        "--pages-per-site: '0' is out of range (1 to 10,000)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--think-s", "nan"}) ==
        "--think-s: 'nan' is not a finite number (above 0, at most 3600)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--think-s", "0"}) ==
        "--think-s: '0' is out of range (above 0, at most 3600)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--http2-share", "inf"}) ==
        "--http2-share: 'inf' is not a finite number (0 to 1)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--day-pages", "-1"}) ==
        "--day-pages: '-1' is out of range (1 to 100,000)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--routine-sites", "11"}) ==
        "--routine-sites: '11' is out of range (0 to 10)");
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--stray-hover", "1e400"}) ==
        "--stray-hover: '1e400' is out of range (0 to 0.9)");
  // The bounds themselves are accepted.
  GenSessionOptions at_bounds =
      Parse({"gen-session", "--synthetic", "--pages", "10000000", "--requests", "100000000",
             "--seed", "18446744073709551615"});
  CHECK(at_bounds.model.pages == 10'000'000);
  CHECK(at_bounds.model.requests == 100'000'000);
  CHECK(at_bounds.model.seed == UINT64_MAX);
  // The model's own Validate keeps the same bounds for callers without the flags.
  SyntheticSessionOptions model;
  model.pages = BehaviorOptions::kMaxPages + 1;
  std::string error;
  CHECK_FALSE(model.Validate(&error));
  CHECK(error == "--pages: 10000001 is out of range (1 to 10000000)");
}

TEST_CASE("gen-session: a failed write never deletes what was at the path") {
  // A file the user had: a HAR that cannot be read fails after the output was opened; the file
  // was once removed.
  const std::string path = "gen_session_keep_test.jsonl";
  { std::ofstream(path) << "the user's file\n"; }
  CHECK(RunGenSessionCommand(Parse({"gen-session", "--har", "/nonexistent/a.har", "--pages", "3",
                                    "-o", path, "--quiet"})) == 2);
  CHECK(ReadFile(path) == "the user's file\n");
  // A device: /dev/full fails the write (exit 2) and stays a device; /dev/null takes it (0).
  struct stat st;
  if (::access("/dev/full", W_OK) == 0) {
    CHECK(RunGenSessionCommand(Parse({"gen-session", "--synthetic", "--requests", "20000", "-o",
                                      "/dev/full", "--quiet"})) == 2);
    REQUIRE(::stat("/dev/full", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  }
  CHECK(RunGenSessionCommand(Parse(
            {"gen-session", "--synthetic", "--pages", "3", "-o", "/dev/null", "--quiet"})) == 0);
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  // A success replaces the file whole.
  REQUIRE(RunGenSessionCommand(
              Parse({"gen-session", "--synthetic", "--pages", "3", "-o", path, "--quiet"})) == 0);
  CHECK(ReadFile(path).rfind("# netstack gen-session --synthetic", 0) == 0);
  std::remove(path.c_str());
}

TEST_CASE("gen-session: usage errors and output errors exit 2") {
  CHECK(RunGenSessionCommand(Parse({"gen-session", "--pages", "3", "--quiet"})) == 2);
  CHECK(RunGenSessionCommand(Parse({"gen-session", "--synthetic", "--quiet"})) == 2);
  // Out of range is CLI11's error now, before the command runs (exit 2 in main).
  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--sites", "0"}) ==
        "--sites: '0' is out of range (1 to 100,000)");
  CHECK(RunGenSessionCommand(Parse({"gen-session", "--synthetic", "--pages", "3", "-o",
                                    "/nonexistent-dir/s.jsonl", "--quiet"})) == 2);
}

namespace {

// The "host" lines of a session, as host -> protocol; `before_events` is false when one comes
// after another kind of line.
std::map<std::string, std::string> HostLines(const std::string& text, bool* before_events) {
  std::map<std::string, std::string> hosts;
  *before_events = true;
  bool other = false;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["type"] != "host") {
      other = true;
      continue;
    }
    if (other) *before_events = false;
    hosts[j["host"]] = j["protocol"];
  }
  return hosts;
}

// Every host a URL of the session names (pages and events).
std::set<std::string> UrlHosts(const std::string& text) {
  std::set<std::string> hosts;
  for (size_t pos = 0; (pos = text.find("\"https://", pos)) != std::string::npos;) {
    pos += 9;
    hosts.insert(text.substr(pos, text.find_first_of("/\"", pos) - pos));
  }
  return hosts;
}

}  // namespace

TEST_CASE("gen-session: each host's protocol, drawn with --http2-share") {
  std::string path = "gen_session_http2_test.jsonl";
  auto generate = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"gen-session", "--synthetic", "--pages", "40",     "--seed",
                                     "5",           "-o",          path,      "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    REQUIRE(RunGenSessionCommand(Parse(args)) == 0);
    return ReadFile(path);
  };
  std::string text = generate({});
  CHECK(text.find(" --http2-share 0.75 ") != std::string::npos);  // the comment line
  bool before_events = false;
  std::map<std::string, std::string> hosts = HostLines(text, &before_events);
  CHECK(before_events);
  // Every page host has a line (30 sites, some with an asset host, and 6 third parties).
  for (const std::string& host : UrlHosts(text)) {
    if (host.find(".test") == std::string::npos || host.find("www.") != 0) continue;
    CHECK(hosts.count(host) == 1);
  }
  int h2 = 0;
  for (const auto& [host, protocol] : hosts) {
    CHECK((protocol == "h2" || protocol == "http/1.1"));
    h2 += protocol == "h2";
  }
  CHECK(hosts.size() >= 36);
  CHECK(h2 > static_cast<int>(hosts.size()) / 2);  // about 75 %
  CHECK(h2 < static_cast<int>(hosts.size()));
  CHECK(generate({}) == text);  // deterministic
  for (const auto& [host, protocol] : HostLines(generate({"--http2-share", "0"}), &before_events))
    CHECK(protocol == "http/1.1");
  for (const auto& [host, protocol] : HostLines(generate({"--http2-share", "1"}), &before_events))
    CHECK(protocol == "h2");
  // The replay's reader takes them before the first event.
  std::string error;
  std::unique_ptr<TraceSource> source = OpenTrace(path, &error);
  REQUIRE(source);
  HostProtocols read;
  REQUIRE(source->ReadHostProtocols(&read, &error));
  CHECK(read.size() == hosts.size());
  SessionEvent first;
  REQUIRE(source->Next(&first, &error));
  CHECK(first.type == SessionEvent::Type::kStartup);

  CHECK(ParseMessage({"gen-session", "--synthetic", "--pages", "3", "--http2-share", "1.5"}) ==
        "--http2-share: '1.5' is out of range (0 to 1)");
  CHECK(RunGenSessionCommand(Parse({"gen-session", "--har", "x.har", "--pages", "3",
                                    "--http2-share", "0.5", "-o", path, "--quiet"})) == 2);
  std::remove(path.c_str());
}

TEST_CASE("gen-session --har: host lines from the HARs' recorded protocols") {
  std::string har = "gen_session_http2_test.har";
  auto entry = [](const std::string& url, const std::string& version) {
    return nlohmann::json{
        {"startedDateTime", "2024-01-01T00:00:00.000Z"},
        {"time", 10},
        {"request", {{"method", "GET"}, {"url", url}}},
        {"response", {{"status", 200}, {"httpVersion", version}, {"bodySize", 10}}}};
  };
  nlohmann::json doc = {
      {"log",
       {{"entries", nlohmann::json::array({entry("https://www.h2.test/", "h2"),
                                           entry("https://cdn.h3.test/a.js", "h3"),
                                           entry("https://old.test/b.js", "HTTP/1.1")})}}}};
  std::ofstream(har) << doc.dump();
  std::string path = "gen_session_http2_har.jsonl";
  REQUIRE(RunGenSessionCommand(
              Parse({"gen-session", "--har", har, "--pages", "2", "-o", path, "--quiet"})) == 0);
  bool before_events = false;
  std::map<std::string, std::string> hosts = HostLines(ReadFile(path), &before_events);
  CHECK(before_events);
  CHECK(hosts == std::map<std::string, std::string>{
                     {"www.h2.test", "h2"}, {"cdn.h3.test", "h3"}, {"old.test", "http/1.1"}});
  std::remove(har.c_str());
  std::remove(path.c_str());
}

TEST_CASE("gen-session --har: a path that JSON cannot hold is an error, not a crash") {
  // nlohmann's dump throws on bytes that are not UTF-8; the session names each HAR in JSON.
  const std::string har = std::string("gen_session_bad_\x9b_name.har");
  nlohmann::json doc = {
      {"log",
       {{"entries",
         nlohmann::json::array({{{"startedDateTime", "2024-01-01T00:00:00.000Z"},
                                 {"time", 10},
                                 {"request", {{"method", "GET"}, {"url", "https://a.test/"}}},
                                 {"response", {{"status", 200}, {"bodySize", 10}}}}})}}}};
  std::ofstream(har) << doc.dump();
  const std::string path = "gen_session_bad_name.jsonl";
  CHECK(RunGenSessionCommand(
            Parse({"gen-session", "--har", har, "--pages", "2", "-o", path, "--quiet"})) == 2);
  std::ifstream written(path);
  CHECK_FALSE(written.good());  // nothing was left at the output path
  std::remove(har.c_str());
}

TEST_CASE("gen-session --har: a DevTools protocol log is a site like a HAR") {
  std::string log_path = "gen_session_devtools_test.devtoolslog.json";
  auto message = [](const std::string& method, nlohmann::json params) {
    return nlohmann::json{{"method", method}, {"params", std::move(params)}};
  };
  nlohmann::json log = nlohmann::json::array();
  const char* urls[] = {"https://www.dt.test/", "https://www.dt.test/about"};
  for (int i = 0; i < 2; ++i) {
    std::string id = "r" + std::to_string(i);
    double t = 10.0 * (i + 1);
    log.push_back(
        message("Network.requestWillBeSent", {{"requestId", id},
                                              {"loaderId", id},
                                              {"frameId", "main"},
                                              {"type", "Document"},
                                              {"timestamp", t},
                                              {"wallTime", 1.7e9 + t},
                                              {"request", {{"url", urls[i]}, {"method", "GET"}}}}));
    log.push_back(
        message("Network.responseReceived", {{"requestId", id},
                                             {"timestamp", t + 0.1},
                                             {"response", {{"status", 200}, {"protocol", "h2"}}}}));
    log.push_back(message("Network.loadingFinished",
                          {{"requestId", id}, {"timestamp", t + 0.2}, {"encodedDataLength", 900}}));
  }
  std::ofstream(log_path) << log.dump();
  std::string path = "gen_session_devtools.jsonl";
  REQUIRE(RunGenSessionCommand(Parse(
              {"gen-session", "--har", log_path, "--pages", "5", "-o", path, "--quiet"})) == 0);
  std::string text = ReadFile(path);
  CHECK(text.find("\"har\":\"" + log_path + "\"") != std::string::npos);
  CHECK(text.find("\"page\":\"page_2\"") != std::string::npos);
  bool before_events = false;
  CHECK(HostLines(text, &before_events) ==
        std::map<std::string, std::string>{{"www.dt.test", "h2"}});
  // The session replays' reader takes its pages from the log.
  std::string error;
  std::unique_ptr<TraceSource> source = OpenTrace(path, &error);
  REQUIRE(source);
  SessionEvent event;
  int navigations = 0;
  while (source->Next(&event, &error)) {
    if (event.type == SessionEvent::Type::kNavigate) ++navigations;
  }
  INFO(error);
  CHECK(error.empty());
  CHECK(navigations == 5);
  std::remove(log_path.c_str());
  std::remove(path.c_str());
}
