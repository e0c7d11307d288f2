#include "tools/netstack/page_command.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "net/base/net_log_file_writer.h"
#include "net/http/http_cache.h"
#include "net/http/live_stack.h"
#include "net/http/request_record_json.h"
#include "tools/netstack/cache_loop.h"
#include "tools/netstack/fetch_cache.h"
#include "tools/netstack/fetch_command.h"
#include "tools/netstack/live_internals.h"
#include "tools/netstack/output_file.h"
#include "tools/netstack/page_har.h"
#include "tools/netstack/page_predictor.h"
#include "tools/netstack/page_record.h"
#include "tools/netstack/profile.h"
#include "tools/netstack/terminal_text.h"
#include "tools/page/page_loader.h"

namespace netstack {
namespace {

void Warn(const std::string& message) {
  std::fprintf(stderr, "netstack: warning: %s\n", TerminalSafe(message).c_str());
}

}  // namespace

std::unique_ptr<Profile> OpenPredictorProfile(const FetchOptions& o,
                                              std::unique_ptr<Profile> cache_profile) {
  if (o.private_mode || o.predictor.policy == "off") return cache_profile;
  if (cache_profile) return cache_profile;
  const char* without = "; the predictor runs without learned state this run";
  if (!o.no_cache) {
    // OpenFetchCache already said why the profile is unusable.
    Warn(std::string("no usable profile") + without);
    return nullptr;
  }
  std::string dir = o.profile_dir.empty()
                        ? DefaultProfileDir([](const char* n) { return std::getenv(n); })
                        : o.profile_dir;
  if (dir.empty()) {
    Warn(std::string("no profile directory (give --profile DIR, or set XDG_CACHE_HOME or HOME)") +
         without);
    return nullptr;
  }
  std::unique_ptr<Profile> profile;
  std::string message;
  if (Profile::Open(dir, /*create=*/true, &profile, &message) != Profile::Status::kOk) {
    Warn(message + without);
    return nullptr;
  }
  return profile;
}

int RunPageCommand(const FetchOptions& options, const std::string& command_line) {
  // --har: the file is opened before anything is fetched (a path that cannot be written is
  // exit 2 with nothing loaded).
  OutputFile har;
  std::string har_error;
  if (!options.har_path.empty() && !har.Open(options.har_path, &har_error)) {
    std::fprintf(stderr, "netstack: %s\n", TerminalSafe(har_error).c_str());
    return 2;
  }
  FetchStack opened;
  if (!OpenFetchStack(options, command_line, &opened)) return 2;
  std::unique_ptr<LiveStack>& stack = opened.stack;
  // The profile's lock is held until the cache and the predictor's store are gone (FetchStack).
  std::unique_ptr<Profile>& profile = opened.profile;
  profile = OpenPredictorProfile(options, std::move(profile));

  // The learned tables are loaded before the loop runs, so the navigation's first hints use
  // them.
  auto predictor = std::make_unique<PagePredictor>(
      options.predictor, stack.get(), profile ? profile->predictor_db_path() : std::string(),
      stderr);
  Predictor* events = options.predictor.policy == "off" ? nullptr : predictor->predictor();

  PageLoadOptions load_options;
  load_options.headers = options.headers;
  load_options.omitted_headers = options.omitted_headers;
  load_options.cache_mode = options.cache_mode;
  load_options.follow_redirects = !options.no_follow;
  load_options.max_redirects = options.max_redirects;
  // --internals: the page is up before the load starts, so the load can be watched.
  std::unique_ptr<LiveInternals> internals;
  if (options.internals_port >= 0) {
    internals = MakeFetchInternals(options, command_line, stack.get(), events,
                                   profile ? profile->dir() : std::string(), load_options);
    if (!internals) return 2;
  }
  auto loader = std::make_unique<PageLoader>(stack->context(), events, load_options);
  bool done = false;
  loader->Start(options.urls[0], [&](const PageLoadResult&) {
    done = true;
    stack->Stop();
  });
  // The disk cache answers through the poster, which does not keep the loop alive by itself.
  stack->poster()->Ref();
  stack->Run();
  stack->poster()->Unref();

  const PageLoadResult& page = loader->result();
  bool any_failed = !done || page.failed > 0;
  if (!done) {
    std::fprintf(stderr, "netstack: %s: internal error: the page load never completed\n",
                 TerminalSafe(options.urls[0].spec()).c_str());
  }
  // What the predictor did for each origin, read before Finish turns pending into wasted.
  const std::vector<RequestRecord> reports = PageRequestReports(page, events);
  if (internals) {
    internals->ServeUntilQuit();
    internals.reset();
  }
  // Learned tables reach the disk before the process exits.
  predictor->Save();
  predictor->Finish();

  if (options.json) {
    std::string line;
    for (const RequestRecord& r : reports) {
      line.clear();
      AppendRequestRecordJson(r, &line);
      std::printf("%s\n", line.c_str());
    }
    std::printf("%s\n", PageSummaryToJson(page, predictor->ToJson())
                            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                            .c_str());
  } else {
    std::printf("%s\n", PageWaterfallHeader().c_str());
    for (const RequestRecord& r : reports)
      std::printf("%s\n", PageRequestToLine(r, page.load_ms()).c_str());
    std::printf("%s\n", PageSummaryToLine(page).c_str());
    if (events) {
      const PredictorStats& s = events->stats();
      const SpeculationCounts& pc = s.of(SpeculativeAction::kPreconnect);
      const SpeculationCounts& pr = s.of(SpeculativeAction::kPreresolve);
      // Used, late and needed count critical requests; background ones (IDLE) apart.
      std::printf(
          "predictor %s  preconnects %llu (used %llu, late %llu, background %llu, wasted %llu)  "
          "preresolves %llu  connections ready %llu of %llu needed (%llu background)\n",
          options.predictor.policy.c_str(), (unsigned long long)pc.taken,
          (unsigned long long)pc.used, (unsigned long long)pc.late,
          (unsigned long long)(pc.used_background + pc.late_background),
          (unsigned long long)pc.wasted, (unsigned long long)pr.taken,
          (unsigned long long)s.connections_ready, (unsigned long long)s.connections_needed,
          (unsigned long long)s.connections_needed_background);
    }
  }
  std::fflush(stdout);
  if (!options.har_path.empty()) {
    // Dates from the wall clock at the navigation's start plus each request's offset.
    const double start_epoch_ms =
        static_cast<double>(stack->time_tick_offset_ms()) + ToMilliseconds(page.start);
    WritePageHar(page, reports, start_epoch_ms, done, har.file());
    if (!har.Commit(&har_error)) {
      std::fprintf(stderr, "netstack: %s: %s\n", TerminalSafe(options.har_path).c_str(),
                   TerminalSafe(har_error).c_str());
      any_failed = true;
    }
  }
  for (const RequestRecord& r : reports) {
    if (r.error == OK) continue;
    std::fprintf(stderr, "netstack: %s: %s (%s)\n", TerminalSafe(r.url).c_str(),
                 TerminalSafe(r.error_message).c_str(), ErrorToString(r.error).c_str());
  }

  loader.reset();
  if (!FinishFetchStack(&opened, [&predictor] { predictor.reset(); })) any_failed = true;
  return any_failed ? 1 : 0;
}

}  // namespace netstack
