#include "tools/netstack/gen_session_command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tools/replay/gen/har_session.h"
#include "tools/replay/report/report_text.h"

namespace netstack {

CLI::App* AddGenSessionCommand(CLI::App* app, GenSessionOptions* options) {
  CLI::App* command = app->add_subcommand(
      "gen-session", "write a session trace for `netstack replay` (docs/trace-format.md)");
  SyntheticSessionOptions& m = options->model;
  command->add_flag("--synthetic", options->synthetic,
                    "the synthetic browsing model (sites, pages, popularity, caching)");
  command->add_option("--pages", m.pages, "stop after N navigations");
  command->add_option("--requests", m.requests,
                      "stop after N requests (the last page is cut to fit)");
  command->add_option("--sites", m.sites, "first-party sites (default 30)");
  command->add_option("--pages-per-site", m.pages_per_site, "pages per site (default 12)");
  command->add_option("--think-s", m.think_median_s,
                      "median think time between page loads, seconds (default 10)");
  command->add_option("--http2-share", options->http2_share,
                      "--synthetic: share of hosts that speak h2, the rest http/1.1 (default "
                      "0.75, after the Web Almanac 2024)");
  command->add_option("--har", options->hars,
                      "pages of these HAR files (each file a site; paths written relative to "
                      "the output's folder)");
  command->add_option("--day-pages", m.behavior.day_pages,
                      "navigations per day: each day starts with a startup and the routine "
                      "(default 25)");
  command->add_option("--routine-sites", m.behavior.routine_sites,
                      "sites typed first every day, most popular first (default 3)");
  command->add_option("--stray-hover", m.behavior.stray_hover,
                      "share of hovers not followed by a click (default 0.3)");
  command->add_flag("--no-user-events", options->no_user_events,
                    "no startup routine, hovers or omnibox typing (the plain model)");
  command->add_option("--seed", m.seed, "seed: the same seed gives the same bytes (default 1)");
  command->add_option("-o,--output", options->output, "write to FILE (default: stdout)");
  command->add_flag("-q,--quiet", options->quiet, "no summary line on stderr");
  return command;
}

int RunGenSessionCommand(const GenSessionOptions& given) {
  GenSessionOptions options = given;
  options.model.behavior.user_events = !options.no_user_events;
  const bool har = !options.hars.empty();
  if (options.synthetic == har) {
    std::fprintf(stderr,
                 "netstack: gen-session: give --synthetic or --har FILE... (one of them)\n");
    return 2;
  }
  std::string error;
  HarSessionOptions har_options;
  if (options.http2_share) {
    if (har) {
      std::fprintf(stderr,
                   "netstack: gen-session: --http2-share works with --synthetic only (a HAR "
                   "records each host's protocol)\n");
      return 2;
    }
    options.model.http2_share = *options.http2_share;
  }
  if (har) {
    har_options.hars = options.hars;
    har_options.behavior = options.model.Behavior();
    if (options.output != "-")
      har_options.output_dir = std::filesystem::path(options.output).parent_path().string();
    if (har_options.behavior.requests) {
      std::fprintf(stderr,
                   "netstack: gen-session: --requests works with --synthetic only (give --pages "
                   "N)\n");
      return 2;
    }
    if (!har_options.behavior.Validate(&error)) {
      std::fprintf(stderr, "netstack: gen-session: %s\n", error.c_str());
      return 2;
    }
  } else if (!options.model.Validate(&error)) {
    std::fprintf(stderr, "netstack: gen-session: %s\n", error.c_str());
    return 2;
  }
  bool to_stdout = options.output == "-";
  std::FILE* out = to_stdout ? stdout : std::fopen(options.output.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "netstack: gen-session: cannot write %s: %s\n", options.output.c_str(),
                 std::strerror(errno));
    return 2;  // bad output path: bad usage, as replay says (DESIGN.md's exit statuses)
  }
  SessionStats stats;
  bool ok = har ? WriteHarSession(har_options, out, &stats, &error)
                : WriteSyntheticSession(options.model, out, &stats, &error);
  if (!to_stdout && std::fclose(out) != 0 && ok) {
    ok = false;
    error = std::string("write error: ") + std::strerror(errno);
  }
  if (!ok) {
    std::fprintf(stderr, "netstack: gen-session: %s: %s\n",
                 to_stdout ? "stdout" : options.output.c_str(), error.c_str());
    if (!to_stdout) std::remove(options.output.c_str());
    return 2;
  }
  if (!options.quiet) {
    std::fprintf(stderr, "netstack: wrote %s requests in %s navigations (%s pages) to %s\n",
                 FormatCount(stats.requests).c_str(), FormatCount(stats.navigations).c_str(),
                 FormatCount(stats.pages_defined).c_str(),
                 to_stdout ? "stdout" : options.output.c_str());
  }
  return 0;
}

}  // namespace netstack
