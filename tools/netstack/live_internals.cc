#include "tools/netstack/live_internals.h"

#include <cstdio>

#include "tools/netstack/terminal_text.h"

namespace netstack {
namespace {

uv_signal_t* StartSignal(uv_loop_t* loop, int signum, void* owner, uv_signal_cb callback) {
  auto* handle = new uv_signal_t;
  if (uv_signal_init(loop, handle) != 0) {
    delete handle;
    return nullptr;
  }
  handle->data = owner;
  uv_signal_start(handle, callback, signum);
  // Signals alone must not keep the loop alive: the server and the stack's work do.
  uv_unref(reinterpret_cast<uv_handle_t*>(handle));
  return handle;
}

void CloseSignal(uv_signal_t* handle) {
  if (!handle) return;
  handle->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(handle),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_signal_t*>(h); });
}

}  // namespace

LiveInternals::LiveInternals(LiveStack* stack, Predictor* predictor, Params params)
    : stack_(stack),
      predictor_(predictor),
      params_(std::move(params)),
      box_(stack->context(), predictor, params_.load_options) {}

LiveInternals::~LiveInternals() {
  CloseSignal(sigint_);
  CloseSignal(sigterm_);
  server_.reset();
}

bool LiveInternals::Start(std::string* error) {
  InternalsServer::Options options;
  options.listen_address = params_.listen_address;
  options.port = params_.port;
  options.command_line = params_.command_line;
  server_ = std::make_unique<InternalsServer>(stack_->loop(), this, options);
  if (!server_->Start(error)) {
    server_.reset();
    return false;
  }
  server_->AttachNetLog(stack_->net_log());
  std::fprintf(stderr, "%s\n", InternalsReadyLine(*server_).c_str());
  std::fflush(stderr);
  return true;
}

void LiveInternals::OnSignal(uv_signal_t* handle, int) {
  auto* self = static_cast<LiveInternals*>(handle->data);
  if (self) self->Quit();
}

void LiveInternals::ServeUntilQuit() {
  if (quit_ || !server_) return;
  // Ctrl-C is ours only now: before, while the command's own work runs, it kills the process
  // as it would without --internals.
  if (!sigint_) sigint_ = StartSignal(stack_->loop(), SIGINT, this, &LiveInternals::OnSignal);
  if (!sigterm_) sigterm_ = StartSignal(stack_->loop(), SIGTERM, this, &LiveInternals::OnSignal);
  serving_ = true;
  std::fprintf(stderr, "netstack: serving the internals page; Quit on the page or Ctrl-C ends\n");
  std::fflush(stderr);
  // The disk cache answers through the poster, which does not keep the loop alive by itself.
  stack_->poster()->Ref();
  while (!quit_) stack_->Run();
  stack_->poster()->Unref();
  serving_ = false;
}

void LiveInternals::Quit() {
  if (quit_) return;
  quit_ = true;
  // While the command's own work runs, Quit only means "do not serve afterwards": the fetches
  // finish and report as usual.
  if (!serving_) return;
  // Posted, so the answer to the page's Quit is written before the loop stops. The task holds
  // the stack, not this object, which may be gone by the time it runs.
  LiveStack* stack = stack_;
  stack_->scheduler().PostTask([stack] { stack->Stop(); });
}

nlohmann::json LiveInternals::GetInfo() {
  return {{"mode", params_.mode},
          {"command_line", params_.command_line},
          {"profile", params_.profile_dir.empty() ? nlohmann::json(nullptr)
                                                  : nlohmann::json(params_.profile_dir)},
          {"predictor_policy", predictor_ ? params_.predictor_policy : std::string("off")},
          {"can_fetch", true},
          {"replay", nullptr}};
}

std::unique_ptr<LiveInternals> MakeFetchInternals(const FetchOptions& options,
                                                  const std::string& command_line, LiveStack* stack,
                                                  Predictor* predictor,
                                                  const std::string& profile_dir,
                                                  PageLoadOptions load_options) {
  LiveInternals::Params params;
  params.mode = "fetch";
  params.port = options.internals_port;
  params.command_line = command_line;
  params.profile_dir = profile_dir;
  params.predictor_policy = options.predictor.policy;
  params.load_options = std::move(load_options);
  auto internals = std::make_unique<LiveInternals>(stack, predictor, std::move(params));
  std::string error;
  if (!internals->Start(&error)) {
    std::fprintf(stderr, "netstack: %s\n", TerminalSafe(error).c_str());
    return nullptr;
  }
  return internals;
}

}  // namespace netstack
