// ReplayInternals: the internals page for `replay --internals PORT`. The replay runs on
// virtual time with no event loop of its own, so this object brings one (libuv) for the page's
// server and turns the replay's session events into pause points (ReplayEngine::Monitor):
// between two events the stack is consistent, and a paused replay serves the page until told
// to go on. The page's Replay controls: Run, Pause, Step (one session event; the end of a
// trace counts as one), Step page (until the next page finishes). It starts paused.
//
// While running, the page is served every few milliseconds of wall time between events, so the
// replay slows down only a little. Quit lets the replay run to its end without pausing again;
// the command then exits as it would have without --internals.
#ifndef TOOLS_NETSTACK_REPLAY_INTERNALS_H_
#define TOOLS_NETSTACK_REPLAY_INTERNALS_H_

#include <uv.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "net/base/clock.h"
#include "tools/internals/internals_host.h"
#include "tools/internals/internals_server.h"
#include "tools/replay/replay_engine.h"

namespace netstack {

class ReplayInternals : public InternalsHost, public ReplayEngine::Monitor {
 public:
  ReplayInternals(int port, std::string command_line, std::string predictor_policy);
  // Closes the server and runs the private loop until every handle is closed.
  ~ReplayInternals() override;
  ReplayInternals(const ReplayInternals&) = delete;
  ReplayInternals& operator=(const ReplayInternals&) = delete;

  // Listens on 127.0.0.1:`port` and prints InternalsReadyLine on stderr. False with a one-line
  // `error` when the port cannot be had.
  bool Start(std::string* error);
  // After the last pass: serves the page (state "finished", no stack) until Quit. Returns at
  // once after a Quit.
  void ServeUntilQuit();

  // ReplayEngine::Monitor.
  void OnStackCreated(UrlRequestContext* context, Predictor* predictor, NetLog* net_log,
                      const Clock& clock) override;
  void BeforeEvent(const SessionEvent& event, uint64_t index, const ReplayTotals& totals) override;
  void OnRunEnd(const ReplayTotals& totals) override;
  void OnStackDestroyed() override;

  // InternalsHost.
  UrlRequestContext* context() override { return context_; }
  Predictor* predictor() override { return predictor_; }
  const Clock& clock() override { return clock_ ? *clock_ : system_clock_; }
  int64_t time_tick_offset_ms() override { return 0; }
  nlohmann::json GetInfo() override;
  InternalsResult ReplayControl(const std::string& action) override;
  void OnStackChanged(const std::string& what) override;
  void Quit() override;
  // How many times the page changed the replay's stack (see OnStackChanged), over every pass.
  uint64_t stack_changes() const { return stack_changes_; }

 private:
  // Pauses here (serving the page) if the controls say so; else serves what is waiting when
  // enough wall time has passed since the last time.
  void PausePoint(const std::string& what);
  nlohmann::json State() const;

  uv_loop_t loop_;
  std::unique_ptr<InternalsServer> server_;
  const int port_;
  const std::string command_line_;
  const std::string predictor_policy_;
  SystemClock system_clock_;

  UrlRequestContext* context_ = nullptr;
  Predictor* predictor_ = nullptr;
  const Clock* clock_ = nullptr;
  uint64_t pass_ = 0;
  ReplayTotals totals_;
  // Pause points so far (session events and trace ends, over every pass).
  uint64_t points_ = 0;
  // The replay pauses at the first pause point whose number is >= pause_at_.
  uint64_t pause_at_ = 0;
  // Step page: pause once the page count passes this.
  std::optional<uint64_t> page_mark_;
  bool paused_ = false;
  bool finished_ = false;
  bool quit_ = false;
  std::string position_;  // what the replay is paused before ("navigate https://...")
  uint64_t last_poll_ns_ = 0;
  uint64_t stack_changes_ = 0;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_REPLAY_INTERNALS_H_
