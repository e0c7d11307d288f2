#include "tools/netstack/replay_internals.h"

#include <cstdio>
#include <limits>

#include "tools/netstack/terminal_text.h"
#include "tools/replay/trace/trace.h"

namespace netstack {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
// While running, waiting requests are served at most this often (wall time): often enough
// for the page to feel live, rarely enough that a replay of a million requests barely notices.
constexpr uint64_t kPollIntervalNs = 20'000'000;

}  // namespace

ReplayInternals::ReplayInternals(int port, std::string command_line, std::string predictor_policy)
    : port_(port),
      command_line_(std::move(command_line)),
      predictor_policy_(std::move(predictor_policy)) {
  uv_loop_init(&loop_);
}

ReplayInternals::~ReplayInternals() {
  server_.reset();
  // The server's handles are freed in their close callbacks. A Quit outside the loop left a
  // stop request that ends the first run at once: run until nothing is left.
  while (uv_run(&loop_, UV_RUN_DEFAULT) != 0) {
  }
  if (uv_loop_close(&loop_) != 0)
    std::fprintf(stderr, "netstack: internal: the internals page's loop did not close\n");
}

bool ReplayInternals::Start(std::string* error) {
  InternalsServer::Options options;
  options.port = port_;
  options.command_line = command_line_;
  server_ = std::make_unique<InternalsServer>(&loop_, this, options);
  if (!server_->Start(error)) {
    server_.reset();
    return false;
  }
  std::fprintf(stderr, "%s\n", InternalsReadyLine(*server_).c_str());
  std::fprintf(stderr,
               "netstack: the replay is paused before its first event: Run or Step on the page\n");
  std::fflush(stderr);
  last_poll_ns_ = uv_hrtime();
  return true;
}

void ReplayInternals::OnStackCreated(UrlRequestContext* context, Predictor* predictor,
                                     NetLog* net_log, const Clock& clock) {
  context_ = context;
  predictor_ = predictor;
  clock_ = &clock;
  ++pass_;
  if (server_) server_->AttachNetLog(net_log);
}

void ReplayInternals::OnStackDestroyed() {
  if (server_) server_->AttachNetLog(nullptr);
  context_ = nullptr;
  predictor_ = nullptr;
  clock_ = nullptr;
}

void ReplayInternals::BeforeEvent(const SessionEvent& event, uint64_t, const ReplayTotals& totals) {
  totals_ = totals;
  std::string what = SessionEventTypeName(event.type);
  if (!event.url.empty()) what += " " + event.url;
  PausePoint(what);
}

void ReplayInternals::OnRunEnd(const ReplayTotals& totals) {
  totals_ = totals;
  PausePoint("the end of the trace (every page finished)");
}

void ReplayInternals::PausePoint(const std::string& what) {
  uint64_t point = points_++;
  if (quit_ || !server_) return;
  if (page_mark_ && totals_.pages > *page_mark_) {
    page_mark_.reset();
    pause_at_ = 0;
  }
  if (point >= pause_at_) {
    paused_ = true;
    position_ = what;
    while (!quit_ && point >= pause_at_ && !page_mark_) uv_run(&loop_, UV_RUN_ONCE);
    paused_ = false;
    last_poll_ns_ = uv_hrtime();
    return;
  }
  uint64_t now = uv_hrtime();
  if (now - last_poll_ns_ >= kPollIntervalNs) {
    last_poll_ns_ = now;
    position_ = what;
    uv_run(&loop_, UV_RUN_NOWAIT);
  }
}

void ReplayInternals::ServeUntilQuit() {
  finished_ = true;
  if (quit_ || !server_) return;
  std::fprintf(stderr, "netstack: the replay finished; Quit on the page ends the command\n");
  std::fflush(stderr);
  while (!quit_) uv_run(&loop_, UV_RUN_ONCE);
}

InternalsResult ReplayInternals::ReplayControl(const std::string& action) {
  if (finished_) return InternalsResult::Fail(409, "the replay has finished");
  if (action == "pause") {
    pause_at_ = 0;
    page_mark_.reset();
  } else if (action == "run") {
    pause_at_ = kNever;
    page_mark_.reset();
  } else if (action == "step") {
    // Paused at point N: let N run, pause at N + 1.
    pause_at_ = points_;
    page_mark_.reset();
  } else if (action == "step_page") {
    pause_at_ = kNever;
    page_mark_ = totals_.pages;
  } else {
    return InternalsResult::Fail(
        400, "unknown replay action \"" + action + "\" (pause, run, step or step_page)");
  }
  return InternalsResult::Ok(State());
}

void ReplayInternals::OnStackChanged(const std::string& what) {
  ++stack_changes_;
  std::fprintf(stderr, "netstack: the internals page changed the replay's stack (%s)\n",
               what.c_str());
}

void ReplayInternals::Quit() {
  quit_ = true;
  if (!server_) return;
  // The page is not served again (the replay runs to its end without pausing): close it now,
  // so open connections end instead of hanging. The answer to Quit was written already.
  server_->Close();
  uv_stop(&loop_);
}

nlohmann::json ReplayInternals::State() const {
  // Before the first event the replay is about to pause (it starts paused).
  bool pausing = paused_ || (points_ == 0 && pause_at_ == 0 && !quit_ && server_);
  std::string state = finished_ ? "finished" : pausing ? "paused" : "running";
  return {{"state", state},
          {"position", position_},
          {"pass", pass_},
          {"events_done", points_ - (paused_ ? 1 : 0)},
          {"pages_done", totals_.pages},
          {"requests_done", totals_.requests},
          {"virtual_ms", totals_.virtual_ms},
          {"stack_changes", stack_changes_},
          {"quit", quit_}};
}

nlohmann::json ReplayInternals::GetInfo() {
  return {{"mode", "replay"},   {"command_line", command_line_},
          {"profile", nullptr}, {"predictor_policy", predictor_policy_},
          {"can_fetch", false}, {"replay", State()}};
}

}  // namespace netstack
