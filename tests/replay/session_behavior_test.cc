// gen-session's user model (tools/replay/gen/session_behavior.h) through both generators: the same
// seed gives the same bytes; hovers come about 200 ms before their click and some are not
// followed; omnibox keystrokes grow the text one character at a time; each day starts with a
// startup and the routine; --har sessions over ../shared/traces/har replay's reader accepts.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/replay/replay_test_util.h"
#include "tests/test_skip.h"
#include "tools/replay/gen/har_session.h"
#include "tools/replay/gen/synthetic_session.h"
#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

using test::Generate;

std::vector<nlohmann::json> Events(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(nlohmann::json::parse(line));
  return out;
}

// The URL each navigate loads (synthetic pages: their first entry's; HAR pages: unknown here,
// so the page id).
struct Shapes {
  size_t navigations = 0, startups = 0, hovers = 0, followed_hovers = 0, omnibox = 0;
  size_t misses = 0;  // keystrokes suggesting another URL than the one navigated
  std::vector<std::string> first_of_day;  // the first navigations' page ids after each startup
  std::string problem;
};

Shapes Check(const std::vector<nlohmann::json>& events, int routine) {
  Shapes s;
  std::map<std::string, std::string> urls;  // page id -> document URL
  double last_t = 0;
  std::vector<const nlohmann::json*> pending;  // hovers and keystrokes since the last navigate
  int since_startup = 0;
  for (const auto& e : events) {
    const std::string type = e["type"];
    if (type == "host") continue;  // each host's protocol, before the events
    if (type == "page") {
      if (e.contains("entries")) urls[e["id"]] = e["entries"][0]["url"];
      continue;
    }
    double t = e["t"].get<double>();
    if (t < last_t) s.problem = "t goes backwards at " + e.dump();
    last_t = t;
    if (type == "startup") {
      ++s.startups;
      since_startup = 0;
    } else if (type == "hover") {
      ++s.hovers;
      pending.push_back(&e);
    } else if (type == "omnibox") {
      ++s.omnibox;
      pending.push_back(&e);
    } else if (type == "navigate") {
      ++s.navigations;
      std::string id = e["page"].is_string() ? e["page"].get<std::string>() : "";
      std::string url = urls.count(id) ? urls[id] : "";
      if (since_startup++ < routine) s.first_of_day.push_back(id);
      // Keystrokes: one character more each, 150-250 ms apart, enter 150-400 ms after.
      const nlohmann::json* previous_key = nullptr;
      for (const nlohmann::json* p : pending) {
        if ((*p)["type"] == "hover") {
          if ((*p)["url"] == url && !url.empty()) {
            ++s.followed_hovers;
            double lead = t - (*p)["t"].get<double>();
            if (lead < 50 || lead > 1000) s.problem = "hover lead " + std::to_string(lead);
          }
          continue;
        }
        if (!url.empty() && (*p)["url"] != url) ++s.misses;
        if (previous_key) {
          std::string a = (*previous_key)["text"], b = (*p)["text"];
          double gap = (*p)["t"].get<double>() - (*previous_key)["t"].get<double>();
          if (b.size() != a.size() + 1 || b.compare(0, a.size(), a) != 0)
            s.problem = "keystrokes '" + a + "' then '" + b + "'";
          if (gap < 150 || gap > 250) s.problem = "keystroke gap " + std::to_string(gap);
        } else if ((*p)["text"].get<std::string>().size() != 1) {
          s.problem = "typing starts with " + (*p)["text"].dump();
        }
        previous_key = p;
      }
      if (previous_key) {
        double enter = t - (*previous_key)["t"].get<double>();
        if (enter < 150 || enter > 400) s.problem = "enter after " + std::to_string(enter);
        // Typed navigations go to a home page, the last suggestion's when it was right.
        if (!url.empty() && url.find("/p/") != std::string::npos)
          s.problem = "typed navigation to an inner page " + url;
      }
      pending.clear();
    }
  }
  return s;
}

TEST_CASE("gen-session's user model: same seed, same bytes", "[gen-session][behavior]") {
  SyntheticSessionOptions options;
  options.pages = 200;
  options.seed = 5;
  SessionStats stats;
  std::string a = Generate(options, &stats), b = Generate(options, &stats);
  CHECK(a == b);
  options.seed = 6;
  CHECK(Generate(options, &stats) != a);
}

TEST_CASE("gen-session's user model: hovers, keystrokes, days and the routine",
          "[gen-session][behavior]") {
  SyntheticSessionOptions options;
  options.pages = 400;
  options.seed = 3;
  options.behavior.day_pages = 20;
  SessionStats stats;
  std::string text = Generate(options, &stats);
  Shapes s = Check(Events(text), 3);
  INFO(s.problem);
  CHECK(s.problem.empty());
  CHECK(s.navigations == 400);
  CHECK(s.startups == 20);
  CHECK(stats.behavior.startups == 20);
  CHECK(s.hovers == stats.behavior.hovers);
  CHECK(s.omnibox == stats.behavior.omnibox);
  // About 30 % of hovers are not followed by their click.
  REQUIRE(s.hovers > 50);
  double stray = 1.0 - static_cast<double>(s.followed_hovers) / static_cast<double>(s.hovers);
  CHECK(stray > 0.15);
  CHECK(stray < 0.45);
  // Every day starts with the routine: the three most popular sites' home pages, in order.
  REQUIRE(s.first_of_day.size() == 60);
  for (size_t i = 0; i < s.first_of_day.size(); ++i)
    CHECK(s.first_of_day[i] == "s" + std::to_string(i % 3) + "p0");
  // Some keystrokes suggested another site than the one typed (misses exist), most did not.
  CHECK(s.misses > 0);
  CHECK(s.misses < s.omnibox);
}

TEST_CASE("gen-session without user events is the plain model", "[gen-session][behavior]") {
  SyntheticSessionOptions options;
  options.requests = 3000;
  options.behavior.user_events = false;
  SessionStats stats;
  std::string text = Generate(options, &stats);
  CHECK(text.find("\"hover\"") == std::string::npos);
  CHECK(text.find("\"omnibox\"") == std::string::npos);
  CHECK(stats.requests == 3000);
  CHECK(stats.behavior.startups == 1);
}

std::vector<std::string> HarFiles() { return test::FilesIn(NETSTACK_TRACES_DIR "/har", ".har"); }

std::string WriteHar(const HarSessionOptions& options, const std::string& path) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  REQUIRE(out);
  std::string error;
  SessionStats stats;
  bool ok = WriteHarSession(options, out, &stats, &error);
  std::fclose(out);
  INFO(error);
  REQUIRE(ok);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("gen-session --har: HAR pages visited by the user model", "[gen-session][behavior]") {
  std::vector<std::string> files = HarFiles();
  if (files.empty()) SKIP_TEST_ALWAYS("no HAR files in " NETSTACK_TRACES_DIR "/har");
  std::string dir = "/tmp/session_behavior_test_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::string path = dir + "/s.jsonl";
  HarSessionOptions options;
  options.hars = files;
  options.output_dir = dir;
  options.behavior.pages = 60;
  options.behavior.seed = 2;
  std::string text = WriteHar(options, path);
  CHECK(text == WriteHar(options, path));
  Shapes s = Check(Events(text), 0);
  INFO(s.problem);
  CHECK(s.problem.empty());
  CHECK(s.navigations == 60);
  CHECK(s.hovers > 0);
  CHECK(s.omnibox > 0);
  // Pages are defined by reference, relative to the session's folder.
  CHECK(text.find("\"har\":\"../") != std::string::npos);

  // The replay's reader accepts it to the end, HARs included.
  std::string error;
  auto source = OpenTrace(path, &error);
  REQUIRE(source);
  SessionEvent event;
  size_t navigations = 0;
  while (source->Next(&event, &error))
    navigations += event.type == SessionEvent::Type::kNavigate && event.page;
  CHECK(error.empty());
  CHECK(navigations == 60);

  options.behavior.seed = 3;
  CHECK(WriteHar(options, path) != text);
  std::filesystem::remove_all(dir);
}

TEST_CASE("gen-session's user model: flags out of range are one-line errors",
          "[gen-session][behavior]") {
  SyntheticSessionOptions options;
  options.pages = 3;
  std::string error;
  options.behavior.stray_hover = 2;
  CHECK_FALSE(options.Validate(&error));
  CHECK(error == "--stray-hover: must be from 0 to 0.9");
  options.behavior.stray_hover = 0.3;
  options.behavior.day_pages = 0;
  CHECK_FALSE(options.Validate(&error));
  CHECK(error == "--day-pages: 0 is out of range (1 to 100000)");
  options.behavior.day_pages = 25;
  options.behavior.routine_sites = 11;
  CHECK_FALSE(options.Validate(&error));
  CHECK(error == "--routine-sites: 11 is out of range (0 to 10)");
}

TEST_CASE("gen-session --har: errors are one line naming the file", "[gen-session][behavior]") {
  HarSessionOptions options;
  options.hars = {"/nonexistent/a.har"};
  options.behavior.pages = 3;
  std::FILE* out = std::tmpfile();
  std::string error;
  CHECK_FALSE(WriteHarSession(options, out, nullptr, &error));
  CHECK(error.rfind("/nonexistent/a.har: cannot open", 0) == 0);
  options.behavior.requests = 10;
  CHECK_FALSE(WriteHarSession(options, out, nullptr, &error));
  CHECK(error == "--requests works with --synthetic only (give --pages N)");
  std::fclose(out);
}

}  // namespace
}  // namespace netstack
