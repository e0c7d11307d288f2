#include "tools/lab/lab_session.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include <uv.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "net/link/link_relay.h"

namespace netstack {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The link's timing is only as good as the relay's wake-ups: on a loaded machine a relay
// scheduled like any process wakes late (a ping at rtt 60 ms measured 62.7-63.5 ms on average
// under load 4.6, against 60.8 ms when the relay ran SCHED_FIFO). So for the session the lab
// runs at a low real-time priority, if it may (CAP_SYS_NICE; root); SCHED_RESET_ON_FORK gives
// every process it starts (the user's command) the normal policy back. Without the right the
// lab runs as before. The relay does bounded work per wake-up and sleeps in between, and the
// kernel's real-time throttling keeps a share of each CPU for everything else.
class RealtimeScope {
 public:
  RealtimeScope() {
    old_policy_ = sched_getscheduler(0);
    if (old_policy_ < 0 || sched_getparam(0, &old_param_) != 0) return;
    sched_param param{};
    param.sched_priority = 10;
    active_ = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param) == 0;
  }
  ~RealtimeScope() {
    if (active_) sched_setscheduler(0, old_policy_, &old_param_);
  }
  RealtimeScope(const RealtimeScope&) = delete;
  RealtimeScope& operator=(const RealtimeScope&) = delete;

 private:
  int old_policy_ = -1;
  sched_param old_param_{};
  bool active_ = false;
};

struct Session {
  const LabSessionOptions* options;
  FILE* err;
  LabSessionResult result;
  LabProcesses command;
  std::unique_ptr<LinkRelay> relay;
  uv_poll_t command_exit{};
  uv_poll_t server_exit{};
  bool command_poll_started = false;
  bool server_poll_started = false;
  uv_signal_t signals[3]{};
  uv_timer_t grace{};
  int forwarded_signal = 0;
  bool finished = false;

  void Finish(int exit_code) {
    if (finished) return;
    finished = true;
    result.exit_code = exit_code;
    if (command_poll_started) uv_close(reinterpret_cast<uv_handle_t*>(&command_exit), nullptr);
    if (server_poll_started) uv_close(reinterpret_cast<uv_handle_t*>(&server_exit), nullptr);
    for (uv_signal_t& s : signals) uv_close(reinterpret_cast<uv_handle_t*>(&s), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&grace), nullptr);
    result.up = relay->up_stats();
    result.down = relay->down_stats();
    relay->Close([] {});
  }
};

void OnCommandExit(uv_poll_t* handle, int /*status*/, int /*events*/) {
  Session* s = static_cast<Session*>(handle->data);
  int index = 0, wait_status = 0;
  switch (s->command.ReadExit(&index, &wait_status)) {
    case LabProcesses::ExitRead::kExit:
      s->Finish(ExitCodeOf(wait_status));
      break;
    case LabProcesses::ExitRead::kClosed:
      std::fprintf(s->err, "%s: the command's process namespace ended without a status\n",
                   s->options->prefix.c_str());
      s->Finish(s->forwarded_signal ? 128 + s->forwarded_signal : 1);
      break;
    case LabProcesses::ExitRead::kNone:
      break;
  }
}

void OnServerExit(uv_poll_t* handle, int /*status*/, int /*events*/) {
  Session* s = static_cast<Session*>(handle->data);
  int index = 0, wait_status = 0;
  LabProcesses::ExitRead read = s->options->servers->ReadExit(&index, &wait_status);
  if (read == LabProcesses::ExitRead::kExit) {
    const auto& names = s->options->server_names;
    std::string name = index >= 0 && static_cast<size_t>(index) < names.size()
                           ? names[index]
                           : "server " + std::to_string(index);
    std::fprintf(s->err, "%s: %s exited (status %d) while the command ran\n",
                 s->options->prefix.c_str(), name.c_str(), ExitCodeOf(wait_status));
  } else if (read == LabProcesses::ExitRead::kClosed) {
    uv_poll_stop(handle);
  }
}

void OnGraceOver(uv_timer_t* handle) {
  Session* s = static_cast<Session*>(handle->data);
  std::fprintf(s->err, "%s: the command did not end %d ms after signal %d: killed\n",
               s->options->prefix.c_str(), s->options->signal_grace_ms, s->forwarded_signal);
  s->command.Stop(0);
  s->Finish(128 + s->forwarded_signal);
}

void OnSignal(uv_signal_t* handle, int signum) {
  Session* s = static_cast<Session*>(handle->data);
  if (s->finished) return;
  // A terminal's Ctrl-C (or Ctrl-\) reaches the whole foreground process group: the command got
  // it already when the lab is in that group.
  bool from_terminal =
      (signum == SIGINT) && isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
  if (!from_terminal) s->command.Signal(signum);
  if (s->forwarded_signal == 0) {
    s->forwarded_signal = signum;
    uv_timer_start(&s->grace, OnGraceOver, s->options->signal_grace_ms, 0);
  }
}

}  // namespace

LabSessionResult RunLabSession(const LabSessionOptions& options, FILE* err) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  auto s = std::make_unique<Session>();
  s->options = &options;
  s->err = err;
  s->relay =
      std::make_unique<LinkRelay>(&loop, options.client_tun, options.server_tun, options.link);
  int rc = s->relay->Start();
  if (rc < 0) {
    std::fprintf(err, "%s: cannot start the emulated link: %s\n", options.prefix.c_str(),
                 uv_strerror(rc));
    s->relay.reset();
    uv_loop_close(&loop);
    return s->result;
  }
  std::string error;
  uv_timer_init(&loop, &s->grace);
  s->grace.data = s.get();
  for (size_t i = 0; i < 3; ++i) {
    uv_signal_init(&loop, &s->signals[i]);
    s->signals[i].data = s.get();
    uv_signal_start(&s->signals[i], OnSignal, kSignals[i]);
  }
  if (!s->command.Start(options.command, &error)) {
    std::fprintf(err, "%s: %s\n", options.prefix.c_str(), error.c_str());
    s->Finish(1);
  } else {
    uv_poll_init(&loop, &s->command_exit, s->command.exit_fd());
    s->command_exit.data = s.get();
    uv_poll_start(&s->command_exit, UV_READABLE | UV_DISCONNECT, OnCommandExit);
    s->command_poll_started = true;
    if (options.servers != nullptr && options.servers->exit_fd() >= 0) {
      uv_poll_init(&loop, &s->server_exit, options.servers->exit_fd());
      s->server_exit.data = s.get();
      uv_poll_start(&s->server_exit, UV_READABLE | UV_DISCONNECT, OnServerExit);
      s->server_poll_started = true;
    }
  }
  {
    RealtimeScope realtime;
    uv_run(&loop, UV_RUN_DEFAULT);
  }
  s->command.Stop(0);  // reaps the init (already gone unless killed above)
  s->relay.reset();
  uv_loop_close(&loop);
  return s->result;
}

int ReportLabSession(const LabSessionResult& result, const std::string& stats_json,
                     const std::string& prefix, FILE* err) {
  std::string error;
  if (!stats_json.empty() && !WriteLinkStatsJson(stats_json, result.up, result.down, &error)) {
    std::fprintf(err, "%s: %s\n", prefix.c_str(), error.c_str());
    return result.exit_code == 0 ? 1 : result.exit_code;
  }
  return result.exit_code;
}

bool WriteLinkStatsJson(const std::string& path, const LinkDirectionStats& up,
                        const LinkDirectionStats& down, std::string* error) {
  auto one = [](const LinkDirectionStats& d) {
    return nlohmann::json{
        {"packets_in", d.packets_in},          {"bytes_in", d.bytes_in},
        {"packets_out", d.packets_out},        {"bytes_out", d.bytes_out},
        {"queue_drops", d.queue_drops},        {"loss_drops", d.loss_drops},
        {"write_drops", d.write_drops},        {"max_queue_packets", d.max_queue_packets},
        {"max_queue_bytes", d.max_queue_bytes}};
  };
  nlohmann::json doc{{"up", one(up)}, {"down", one(down)}};
  std::ofstream out(path, std::ios::trunc);
  out << doc.dump(2) << "\n";
  out.flush();
  if (!out) {
    *error = "--stats-json: cannot write '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace netstack
