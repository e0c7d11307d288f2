// LiveInternals: the internals page over a live stack, for `netstack internals` and
// `fetch --internals`. It is the InternalsHost (the stack, its predictor, the fetch box), owns
// the InternalsServer on the stack's loop, and, while serving after the command's own work,
// handles SIGINT/SIGTERM so that Ctrl-C ends serving cleanly (the command then saves and
// closes as usual).
#ifndef TOOLS_NETSTACK_LIVE_INTERNALS_H_
#define TOOLS_NETSTACK_LIVE_INTERNALS_H_

#include <uv.h>

#include <memory>
#include <string>

#include "net/http/live_stack.h"
#include "tools/internals/internals_host.h"
#include "tools/internals/internals_server.h"
#include "tools/netstack/fetch_box.h"
#include "tools/netstack/fetch_options.h"

namespace netstack {

class LiveInternals : public InternalsHost {
 public:
  struct Params {
    std::string mode;  // "internals" | "fetch"
    int port = 0;
    std::string listen_address = "127.0.0.1";
    std::string command_line;
    std::string profile_dir;  // "" when the stack has none
    std::string predictor_policy = "off";
    PageLoadOptions load_options;
  };

  // `stack` and `predictor` (may be null) must outlive this object.
  LiveInternals(LiveStack* stack, Predictor* predictor, Params params);
  // Closes the server and the signal handles (freed when the loop runs their close callbacks,
  // which LiveStack's destructor does) and cancels the fetch box's loads.
  ~LiveInternals() override;
  LiveInternals(const LiveInternals&) = delete;
  LiveInternals& operator=(const LiveInternals&) = delete;

  // Listens, starts observing the stack's NetLog, and prints InternalsReadyLine on stderr.
  // False with a one-line `error` if the port cannot be had.
  bool Start(std::string* error);
  // Runs the stack's loop until the page's Quit or SIGINT/SIGTERM (handled only from here on:
  // before, Ctrl-C ends the process as it would without --internals). Returns at once if the
  // page's Quit came while the command's own work ran.
  void ServeUntilQuit();

  // InternalsHost.
  UrlRequestContext* context() override { return stack_->context(); }
  Predictor* predictor() override { return predictor_; }
  const Clock& clock() override { return stack_->clock(); }
  int64_t time_tick_offset_ms() override { return stack_->time_tick_offset_ms(); }
  nlohmann::json GetInfo() override;
  InternalsResult Fetch(const std::string& url) override { return box_.Fetch(url); }
  InternalsResult Omnibox(const std::string& text) override { return box_.Omnibox(text); }
  InternalsResult Hover(const std::string& url) override { return box_.Hover(url); }
  void Resolve(const std::string& host, std::function<void(InternalsResult)> done) override {
    box_.Resolve(host, std::move(done));
  }
  InternalsResult FetchHistory() override { return InternalsResult::Ok(box_.History()); }
  void Quit() override;

 private:
  static void OnSignal(uv_signal_t* handle, int signum);

  LiveStack* const stack_;
  Predictor* const predictor_;
  const Params params_;
  FetchBox box_;
  std::unique_ptr<InternalsServer> server_;
  uv_signal_t* sigint_ = nullptr;   // freed in its close callback
  uv_signal_t* sigterm_ = nullptr;  // freed in its close callback
  bool quit_ = false;
  bool serving_ = false;  // inside ServeUntilQuit
};

// For `fetch --internals PORT` (with or without --page): a started LiveInternals in "fetch"
// mode on 127.0.0.1, or null after printing "netstack: cannot listen ..." on stderr (the
// command exits 2).
std::unique_ptr<LiveInternals> MakeFetchInternals(const FetchOptions& options,
                                                  const std::string& command_line, LiveStack* stack,
                                                  Predictor* predictor,
                                                  const std::string& profile_dir,
                                                  PageLoadOptions load_options);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_LIVE_INTERNALS_H_
