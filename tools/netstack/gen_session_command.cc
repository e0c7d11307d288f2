#include "tools/netstack/gen_session_command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tools/netstack/number_flags.h"
#include "tools/netstack/output_file.h"
#include "tools/netstack/terminal_text.h"
#include "tools/replay/gen/har_session.h"
#include "tools/replay/report/report_text.h"

namespace netstack {
namespace {

// One line on stderr, escaped for the terminal (a HAR's path or a message may echo input).
void Fail(const std::string& message) {
  std::fprintf(stderr, "netstack: gen-session: %s\n", TerminalSafe(message).c_str());
}

}  // namespace

CLI::App* AddGenSessionCommand(CLI::App* app, GenSessionOptions* options) {
  CLI::App* command = app->add_subcommand(
      "gen-session", "write a session trace for `netstack replay` (docs/trace-format.md)");
  SyntheticSessionOptions& m = options->model;
  using Limits = SyntheticSessionOptions;
  // Every number is checked as text first (number_flags.h): a negative count, "nan" or
  // 99999999999 is a one-line error, not a wrapped count.
  command->add_flag("--synthetic", options->synthetic,
                    "the synthetic browsing model (sites, pages, popularity, caching)");
  command->add_option("--pages", m.pages, "stop after N navigations")
      ->transform(CountFlag(1, BehaviorOptions::kMaxPages));
  command
      ->add_option("--requests", m.requests, "stop after N requests (the last page is cut to fit)")
      ->transform(CountFlag(1, BehaviorOptions::kMaxRequests));
  command->add_option("--sites", m.sites, "first-party sites (default 30)")
      ->transform(CountFlag(1, Limits::kMaxSites));
  command->add_option("--pages-per-site", m.pages_per_site, "pages per site (default 12)")
      ->transform(CountFlag(1, Limits::kMaxPagesPerSite));
  command
      ->add_option("--think-s", m.think_median_s,
                   "median think time between page loads, seconds (default 10)")
      ->transform(NumberFlag(0, 3600, /*min_exclusive=*/true));
  command
      ->add_option("--http2-share", options->http2_share,
                   "--synthetic: share of hosts that speak h2, the rest http/1.1 (default "
                   "0.75, after the Web Almanac 2024)")
      ->transform(NumberFlag(0, 1));
  command->add_option("--har", options->hars,
                      "pages of these HAR files (each file a site; paths written relative to "
                      "the output's folder)");
  command
      ->add_option("--day-pages", m.behavior.day_pages,
                   "navigations per day: each day starts with a startup and the routine "
                   "(default 25)")
      ->transform(CountFlag(1, BehaviorOptions::kMaxDayPages));
  command
      ->add_option("--routine-sites", m.behavior.routine_sites,
                   "sites typed first every day, most popular first (default 3)")
      ->transform(CountFlag(0, BehaviorOptions::kMaxRoutineSites));
  command
      ->add_option("--stray-hover", m.behavior.stray_hover,
                   "share of hovers not followed by a click (default 0.3)")
      ->transform(NumberFlag(0, 0.9));
  command->add_flag("--no-user-events", options->no_user_events,
                    "no startup routine, hovers or omnibox typing (the plain model)");
  command->add_option("--seed", m.seed, "seed: the same seed gives the same bytes (default 1)")
      ->transform(CountFlag(0, UINT64_MAX));
  command->add_option("-o,--output", options->output, "write to FILE (default: stdout)");
  command->add_flag("-q,--quiet", options->quiet, "no summary line on stderr");
  return command;
}

int RunGenSessionCommand(const GenSessionOptions& given) {
  GenSessionOptions options = given;
  options.model.behavior.user_events = !options.no_user_events;
  const bool har = !options.hars.empty();
  if (options.synthetic == har) {
    Fail("give --synthetic or --har FILE... (one of them)");
    return 2;
  }
  std::string error;
  HarSessionOptions har_options;
  if (options.http2_share) {
    if (har) {
      Fail("--http2-share works with --synthetic only (a HAR records each host's protocol)");
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
      Fail("--requests works with --synthetic only (give --pages N)");
      return 2;
    }
    if (!har_options.behavior.Validate(&error)) {
      Fail(error);
      return 2;
    }
  } else if (!options.model.Validate(&error)) {
    Fail(error);
    return 2;
  }
  // A failed write removes only the temporary it wrote; the path keeps what it had
  // (output_file.h).
  OutputFile output;
  if (!output.Open(options.output, &error)) {
    Fail(error);
    return 2;  // bad output path: bad usage, as replay says (DESIGN.md's exit statuses)
  }
  const bool to_stdout = output.is_stdout();
  const std::string where = to_stdout ? "stdout" : options.output;
  SessionStats stats;
  bool ok = har ? WriteHarSession(har_options, output.file(), &stats, &error)
                : WriteSyntheticSession(options.model, output.file(), &stats, &error);
  if (ok) {
    ok = output.Commit(&error);
  } else {
    output.Abandon();
  }
  if (!ok) {
    // A write error is the output's ("s.jsonl: write error: No space left on device"); a HAR's
    // names the HAR ("a.har:3:17: JSON syntax error: ...").
    Fail(error.rfind("write error", 0) == 0 ? where + ": " + error : error);
    return 2;
  }
  if (!options.quiet) {
    std::fprintf(stderr, "netstack: wrote %s requests in %s navigations (%s pages) to %s\n",
                 FormatCount(stats.requests).c_str(), FormatCount(stats.navigations).c_str(),
                 FormatCount(stats.pages_defined).c_str(), TerminalSafe(where).c_str());
  }
  return 0;
}

}  // namespace netstack
