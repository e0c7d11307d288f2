// `netstack replay` as users run it: RunReplayCommand in-process (outputs, compare, exit
// codes, one-line errors) and the built binary for the command line itself.
#include "tools/netstack/replay_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/replay/replay_command_run.h"
#include "tools/netstack/replay_options.h"
#include "tools/replay/report/report_text.h"

namespace netstack {
namespace {

std::string Temp(const std::string& name) {
  return "/tmp/replay_command_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = Temp(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string ReadFile(const std::string& path) { return test::ReadWholeFile(path); }

// Two pages on two hosts, the second navigated after the first loaded.
const char kSession[] =
    "{\"type\": \"startup\", \"t\": 0}\n"
    "{\"type\": \"navigate\", \"t\": 0, \"page\": {\"entries\": ["
    "{\"url\": \"https://www.example.com/\", \"bytes\": 20000, \"server_ms\": 100},"
    "{\"url\": \"https://cdn.example.com/a.js\", \"type\": \"script\", \"bytes\": 50000,"
    " \"start_ms\": 200, \"after\": 0, \"gap_ms\": 5}]}}\n"
    "{\"type\": \"wait\", \"t\": 0}\n"
    "{\"type\": \"navigate\", \"t\": 500, \"page\": {\"entries\": ["
    "{\"url\": \"https://www.example.com/next\", \"bytes\": 10000}]}}\n";

using CommandRun = test::ReplayCommandRun;

CommandRun Run(const std::vector<std::string>& args) { return test::RunReplayCommandLine(args); }

std::vector<nlohmann::json> JsonLines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

TEST_CASE("replay prints the summary and writes --json lines", "[replay][command]") {
  std::string session = Write("s.jsonl", kSession);
  std::string json = Temp("out.jsonl");
  CommandRun run = Run({session, "--json", json, "--set", "rtt_ms=50"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.err.empty());  // stderr is no terminal: no progress line
  CHECK(run.out.find("2 pages, 3 requests") != std::string::npos);
  CHECK(run.out.find("page load   median") != std::string::npos);
  CHECK(run.out.find("network     rtt 50 ms") != std::string::npos);
  CHECK(run.out.find("https://www.example.com/next") != std::string::npos);
  std::vector<nlohmann::json> lines = JsonLines(json);
  REQUIRE(lines.size() == 6);
  int requests = 0, pages = 0;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    requests += lines[i]["kind"] == "request";
    pages += lines[i]["kind"] == "page";
  }
  CHECK(requests == 3);
  CHECK(pages == 2);
  const nlohmann::json& summary = lines.back();
  CHECK(summary["kind"] == "summary");
  CHECK(summary["totals"]["requests"] == 3);
  CHECK(summary["totals"]["other_events"] == 1);
  CHECK(summary["config"]["placement"] == "dependency");
  CHECK(summary["traces"][0]["path"] == session);
  CHECK(summary["page_load"]["median_ms"].is_number());

  // Deterministic bytes.
  std::string again = Temp("again.jsonl");
  REQUIRE(Run({session, "--json", again, "--set", "rtt_ms=50", "--quiet"}).code == 0);
  CHECK(ReadFile(json) == ReadFile(again));
  for (const auto& p : {session, json, again}) std::remove(p.c_str());
}

// A HAR entry (as JSON text) for `url`, answered 200 with 1000 bytes.
std::string HarEntryText(const std::string& url) {
  return nlohmann::json({{"startedDateTime", "2024-01-01T00:00:00Z"},
                         {"request", {{"method", "GET"}, {"url", url}}},
                         {"response", {{"status", 200}, {"bodySize", 1000}}}})
      .dump();
}

TEST_CASE("A HAR's entries with a 3 MB URL or control characters are reported, never silent",
          "[replay][command][skipped]") {
  std::string har =
      Write("skipped.har", "{\"log\": {\"entries\": [" + HarEntryText("https://a.test/") + "," +
                               HarEntryText("https://a.test/" + std::string(3'000'000, 'x')) + "," +
                               HarEntryText("https://a\x01.test/") + "," +
                               HarEntryText("\thttps://a.test/with\ncontrol\x01"
                                            "characters ") +
                               "]}}");
  std::string json = Temp("skipped.jsonl");
  CommandRun run = Run({har, "--json", json});
  INFO(run.err);
  REQUIRE(run.code == 0);
  // The URL with tabs, newlines and a control character in its path is replayed, as a browser
  // would request it; the two others are skipped, with their reason.
  CHECK(run.out.find("1 pages, 2 requests, 0 failed, 2 skipped (2 invalid URL)") !=
        std::string::npos);
  CHECK(run.out.find("first invalid URL: " + har +
                     ": log.entries[1].request.url: URL longer than 2 MiB\n") != std::string::npos);
  std::vector<nlohmann::json> lines = JsonLines(json);
  REQUIRE(!lines.empty());
  const nlohmann::json& reasons = lines.back()["totals"]["skipped_reasons"];
  CHECK(reasons["invalid_url"] == 2);
  CHECK(reasons["not_http"] == 0);
  CHECK(reasons["no_response"] == 0);
  bool replayed = false;
  for (const nlohmann::json& line : lines) {
    replayed |=
        line["kind"] == "request" && line["url"] == "https://a.test/withcontrol%01characters";
  }
  CHECK(replayed);

  // Nothing left to replay: an error naming the first invalid URL, exit 2.
  std::string none =
      Write("none.har", "{\"log\": {\"entries\": [" + HarEntryText("https://a\x01.test/") + "]}}");
  CommandRun failed = Run({none});
  CHECK(failed.code == 2);
  CHECK(failed.err ==
        "netstack: " + none +
            ": no entry can be replayed: 1 skipped (0 not http(s), 1 invalid URL, 0 never "
            "answered); the first invalid URL: log.entries[0].request.url: invalid URL "
            "\"https://a?.test/\": contains a space or control character\n");
  for (const auto& p : {har, json, none}) std::remove(p.c_str());
}

TEST_CASE("Compare pairs pages under two configurations", "[replay][command]") {
  std::string session = Write("c.jsonl", kSession);
  std::string json = Temp("compare.jsonl");
  CommandRun run = Run({session, "--compare", "rtt_ms=20", "rtt_ms=200", "--json", json});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("A: rtt_ms=20\nB: rtt_ms=200\n") == 0);
  CHECK(run.out.find("0 faster with B, 2 slower, 0 the same") != std::string::npos);
  CHECK(run.out.find("wilcoxon") != std::string::npos);
  std::vector<nlohmann::json> lines = JsonLines(json);
  REQUIRE(lines.size() == 11);
  CHECK(lines.front()["run"] == "a");
  CHECK(lines[9]["run"] == "b");
  const nlohmann::json& summary = lines.back();
  CHECK(summary["kind"] == "summary");
  CHECK(summary["compare"]["pages"] == 2);
  CHECK(summary["compare"]["b_slower"] == 2);
  CHECK(summary["compare"]["median_diff_ms"].get<double>() > 0);
  CHECK(summary["a"]["spec"] == "rtt_ms=20");
  CHECK(summary["b"]["totals"]["requests"] == 3);
  std::remove(session.c_str());
  std::remove(json.c_str());
}

TEST_CASE("Compare predictor=off with chrome: both sides' figures and the time saved",
          "[replay][command][predictor]") {
  std::string session = Write("p.jsonl", kSession);
  std::string json = Temp("compare-predictor.jsonl");
  CommandRun run = Run({session, "--compare", "predictor=off", "predictor=chrome", "--json", json});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("  predictor\n  A off: ") != std::string::npos);
  CHECK(run.out.find("  B chrome: ") != std::string::npos);
  CHECK(run.out.find("  saved by B  ") != std::string::npos);
  const nlohmann::json summary = JsonLines(json).back();
  CHECK(summary["compare"].contains("saved_ms"));
  CHECK(summary["b"]["totals"]["predictor"]["policy"] == "chrome");
  CHECK(summary["b"]["totals"]["predictor"]["stats"]["hints"]["produced"].get<int>() > 0);
  CHECK(summary["a"]["totals"]["predictor"]["tables"].is_null());
  std::remove(session.c_str());
  std::remove(json.c_str());
}

TEST_CASE("Compare --report: the oracle ceiling as --json's compare.ceiling gives it",
          "[replay][command][predictor]") {
  std::string session = Write("ceiling.jsonl", kSession);
  std::string json = Temp("ceiling.jsonl.out"), html = Temp("ceiling.html");
  for (const char* a : {"predictor=off", "predictor=chrome"}) {
    INFO(a);
    CommandRun run =
        Run({session, "--compare", a, "predictor=learned", "--json", json, "--report", html});
    INFO(run.err);
    REQUIRE(run.code == 0);
    const nlohmann::json ceiling = JsonLines(json).back()["compare"]["ceiling"];
    const nlohmann::json saved = JsonLines(json).back()["compare"]["saved_ms"];
    REQUIRE(ceiling["total_ms"].get<double>() > 0);
    const std::string page = ReadFile(html);
    size_t at = page.find("<h3 id=\"ceiling\">Oracle ceiling</h3>");
    REQUIRE(at != std::string::npos);
    auto row = [&](const std::string& key, const std::string& value) {
      return "<tr><th>" + key + "</th><td class=\"n\">" + value + "</td></tr>";
    };
    const std::string section = page.substr(at, page.find("</table>", at) - at);
    CHECK(section.find(row("ceiling, total", FormatMs(ceiling["total_ms"]))) != std::string::npos);
    CHECK(section.find(row("ceiling, per navigation", FormatMs(ceiling["per_navigation_ms"]))) !=
          std::string::npos);
    CHECK(section.find(row("saved by predictor=learned (A - B page load), total",
                           FormatMs(saved["total"]))) != std::string::npos);
    CHECK(section.find(row("share of the ceiling predictor=learned took",
                           FormatFixed(100 * ceiling["share"].get<double>(), 1) + " %")) !=
          std::string::npos);
    const bool relative = ceiling["relative_to"] == "a";
    CHECK(relative == (std::string(a) == "predictor=chrome"));
    CHECK(section.find(row("relative to", relative ? "A (predictor=chrome)" : "off")) !=
          std::string::npos);
  }
  // A report without --compare has no ceiling.
  REQUIRE(Run({session, "--report", html}).code == 0);
  CHECK(ReadFile(html).find("Oracle ceiling") == std::string::npos);
  std::remove(session.c_str());
  std::remove(json.c_str());
  std::remove(html.c_str());
}

TEST_CASE("Malformed traces and outputs: one line naming where, exit 2", "[replay][command]") {
  struct Case {
    std::string name, text;
    std::vector<std::string> extra;
    std::string expect;  // after "netstack: <path>"
  };
  std::vector<Case> cases = {
      {"bad-type.jsonl",
       "{\"type\": \"startup\", \"t\": 0}\n{\"type\": \"hoover\", \"t\": 1}\n",
       {},
       ":2: unknown event type 'hoover'"},
      {"bad-json.jsonl", "{\"type\": \"navigate\", \"t\": \n", {}, ":1:"},
      {"missing-har.jsonl",
       "{\"type\": \"navigate\", \"t\": 0, \"page\": \"nope.har\"}\n",
       {},
       ":1:"},
      {"bad.har", "{\"log\": {\"entries\": [}}", {}, ":1:"},
      {"session-estimate.jsonl", kSession, {"--estimate"}, ": --estimate needs a HAR file"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::string path = Write(c.name, c.text);
    std::vector<std::string> args = {path};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    CommandRun run = Run(args);
    CHECK(run.code == 2);
    CHECK(run.out.empty());
    CHECK(run.err.find("netstack: " + path + c.expect) == 0);
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
    std::remove(path.c_str());
  }
  std::string good = Write("predictor.jsonl", kSession);
  CommandRun bad_predictor = Run({good, "--set", "predictor=clever"});
  CHECK(bad_predictor.code == 2);
  CHECK(bad_predictor.err ==
        "netstack: --set 'predictor=clever': predictor: 'clever' is not off, chrome, loading "
        "or learned\n");
  std::remove(good.c_str());
  CommandRun missing = Run({"/nonexistent/trace.har"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("netstack: /nonexistent/trace.har") == 0);
  std::string session = Write("ok.jsonl", kSession);
  CommandRun unwritable = Run({session, "--json", "/nonexistent-dir/out.jsonl"});
  CHECK(unwritable.code == 2);
  CHECK(unwritable.err ==
        "netstack: cannot write /nonexistent-dir/out.jsonl: No such file or directory\n");
  std::remove(session.c_str());
}

#ifdef NETSTACK_BIN
// Runs the binary; returns its exit status with stdout and stderr.
CommandRun RunBinary(const std::string& args) {
  std::string out = Temp("bin.out"), err = Temp("bin.err");
  std::string command = std::string(NETSTACK_BIN) + " replay " + args + " >" + out + " 2>" + err;
  int status = std::system(command.c_str());
  CommandRun run;
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = ReadFile(out);
  run.err = ReadFile(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return run;
}

TEST_CASE("The netstack binary: exit 0 on a good session, 2 on bad usage", "[replay][command]") {
  std::string session = Write("bin.jsonl", kSession);
  CommandRun ok = RunBinary(session + " --set rtt_ms=30");
  INFO(ok.err);
  CHECK(ok.code == 0);
  CHECK(ok.out.find("2 pages, 3 requests") != std::string::npos);
  CommandRun bad_set = RunBinary(session + " --set rtt_ms=fast");
  CHECK(bad_set.code == 2);
  CHECK(bad_set.err == "netstack: --set 'rtt_ms=fast': rtt_ms: 'fast' is not a number\n");
  CommandRun bad_flag = RunBinary(session + " --no-such-flag");
  CHECK(bad_flag.code == 2);
  CHECK(bad_flag.err.rfind("netstack: ", 0) == 0);
  CommandRun no_trace = RunBinary("");
  CHECK(no_trace.code == 2);
  std::string broken = Write("broken.jsonl", "{\"type\": \"navigate\", \"t\": 0}\n");
  CommandRun bad_input = RunBinary(broken);
  CHECK(bad_input.code == 2);
  CHECK(bad_input.err.rfind("netstack: " + broken + ":1: ", 0) == 0);
  std::remove(session.c_str());
  std::remove(broken.c_str());
}
#endif

}  // namespace
}  // namespace netstack

namespace netstack {
namespace {

// A HAR page with onLoad at 150 ms: the document (ends at 100) is its load set, a late image
// (500..600) is not.
const char kOnLoadHar[] = R"({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
  "pages": [{"id": "p1", "title": "https://www.example.com/",
             "startedDateTime": "2024-01-01T00:00:00.000Z",
             "pageTimings": {"onContentLoad": 120, "onLoad": 150}}],
  "entries": [
   {"pageref": "p1", "startedDateTime": "2024-01-01T00:00:00.000Z", "time": 100,
    "request": {"method": "GET", "url": "https://www.example.com/", "headers": []},
    "response": {"status": 200, "statusText": "OK", "headers": [], "bodySize": 2000,
                 "content": {"size": 2000}},
    "timings": {"blocked": 0, "dns": 10, "connect": 20, "ssl": 10, "send": 0, "wait": 50,
                "receive": 20}, "_resourceType": "document"},
   {"pageref": "p1", "startedDateTime": "2024-01-01T00:00:00.500Z", "time": 100,
    "request": {"method": "GET", "url": "https://www.example.com/late.png", "headers": []},
    "response": {"status": 200, "statusText": "OK", "headers": [], "bodySize": 2000,
                 "content": {"size": 2000}},
    "timings": {"blocked": 0, "dns": 0, "connect": 0, "send": 0, "wait": 80, "receive": 20},
    "_resourceType": "image"}]}})";

TEST_CASE("replay: onLoad is the page load in the summary, --json and --compare, which say so",
          "[replay][command][onload]") {
  std::string har = Write("onload.har", kOnLoadHar);
  std::string json = Temp("onload.jsonl");
  CommandRun run = Run({har, "--json", json});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("(onLoad; 1 of 1 pages)") != std::string::npos);
  std::vector<nlohmann::json> lines = JsonLines(json);
  const nlohmann::json* page = nullptr;
  for (const nlohmann::json& j : lines)
    if (j["kind"] == "page") page = &j;
  REQUIRE(page);
  CHECK((*page)["recorded_onload_ms"] == 150.0);
  CHECK((*page)["page_load_metric"] == "onload");
  CHECK((*page)["page_load_ms"] == (*page)["onload_ms"]);
  // The late image ends after onLoad: the replayed onLoad is before the last end.
  CHECK((*page)["onload_ms"].get<double>() < (*page)["load_ms"].get<double>());
  CHECK(lines.back()["page_load"]["metric"] == "onload");
  CHECK(lines.back()["config"]["warm_start"] == "on");

  CommandRun compare = Run({har, "--compare", "rtt_ms=20", "rtt_ms=200", "--json", json});
  INFO(compare.err);
  REQUIRE(compare.code == 0);
  CHECK(compare.out.find("(page load: onLoad; 1 of 1 pages)") != std::string::npos);
  lines = JsonLines(json);
  CHECK(lines.back()["compare"]["metric"] == "onload");
  CHECK(lines.back()["compare"]["median_diff_ms"].get<double>() > 0);
  std::remove(har.c_str());
  std::remove(json.c_str());
}

}  // namespace
}  // namespace netstack
