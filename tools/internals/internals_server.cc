#include "tools/internals/internals_server.h"

#include <utility>

namespace netstack {

namespace {

UvHttpServer::Limits ServerLimits(const InternalsServer::Options& options) {
  UvHttpServer::Limits limits = options.limits;
  if (options.connections_from_fd_limit) {
    limits.max_connections = UvHttpServer::MaxConnectionsForFdLimit(UvHttpServer::FdSoftLimit());
  }
  return limits;
}

}  // namespace

// Forwards everything to the command's host and adds the server's "server" object to
// GetInfo(), so /api/info shows the page's own load next to the stack's.
class InternalsServer::InfoHost final : public InternalsHost {
 public:
  InfoHost(InternalsHost* host, const InternalsServer* server) : host_(host), server_(server) {}

  UrlRequestContext* context() override { return host_->context(); }
  Predictor* predictor() override { return host_->predictor(); }
  const Clock& clock() override { return host_->clock(); }
  int64_t time_tick_offset_ms() override { return host_->time_tick_offset_ms(); }
  nlohmann::json GetInfo() override {
    nlohmann::json info = host_->GetInfo();
    if (info.is_object()) {
      info["server"] = InternalsServerStatsJson(server_->server_stats(), server_->server_limits());
    }
    return info;
  }
  InternalsResult Fetch(const std::string& url) override { return host_->Fetch(url); }
  InternalsResult Omnibox(const std::string& text) override { return host_->Omnibox(text); }
  InternalsResult Hover(const std::string& url) override { return host_->Hover(url); }
  InternalsResult FetchHistory() override { return host_->FetchHistory(); }
  void Resolve(const std::string& host, std::function<void(InternalsResult)> done) override {
    host_->Resolve(host, std::move(done));
  }
  InternalsResult ReplayControl(const std::string& action) override {
    return host_->ReplayControl(action);
  }
  void OnStackChanged(const std::string& what) override { host_->OnStackChanged(what); }
  void Quit() override { host_->Quit(); }

 private:
  InternalsHost* const host_;
  const InternalsServer* const server_;
};

InternalsServer::InternalsServer(uv_loop_t* loop, InternalsHost* host, Options options)
    : options_(std::move(options)),
      token_(MakeInternalsToken()),
      info_host_(std::make_unique<InfoHost>(host, this)),
      router_(info_host_.get(), &ring_, &histograms_,
              InternalsRouter::Options{token_, options_.port, options_.listen_address,
                                       options_.command_line}),
      server_(
          loop,
          [this](const HttpServerRequest& request, UvHttpServer::Respond respond) {
            router_.Handle(request, std::move(respond));
          },
          ServerLimits(options_)) {}

InternalsServer::~InternalsServer() {
  AttachNetLog(nullptr);
  server_.Close();
}

bool InternalsServer::Start(std::string* error) {
  if (server_.Listen(options_.listen_address, options_.port, error) != 0) return false;
  router_.set_port(server_.port());
  return true;
}

std::string InternalsServer::url() const {
  const std::string& a = options_.listen_address;
  std::string host = a.find(':') != std::string::npos ? "[" + a + "]" : a;
  return "http://" + host + ":" + std::to_string(server_.port()) + "/";
}

void InternalsServer::AttachNetLog(NetLog* net_log) {
  // The histograms ask for json params of a few event types only, the ring for every event's
  // text (NetLog::Observer::ParamsNeed): each event's params are built once, as text.
  histograms_.Attach(net_log);
  ring_.Attach(net_log);
}

nlohmann::json InternalsServerStatsJson(const UvHttpServer::Stats& stats,
                                        const UvHttpServer::Limits& limits) {
  return {{"max_connections", limits.max_connections},
          {"max_rejected_connections", limits.max_rejected_connections},
          {"head_timeout_ms", limits.head_timeout_ms},
          {"body_timeout_ms", limits.body_timeout_ms},
          {"keep_alive_timeout_ms", limits.keep_alive_timeout_ms},
          {"send_timeout_ms", limits.send_timeout_ms},
          {"open", stats.open},
          {"peak_open", stats.peak_open},
          {"rejected_open", stats.rejected_open},
          {"accepted", stats.accepted},
          {"requests_served", stats.requests_served},
          {"evicted_idle", stats.evicted_idle},
          {"evicted_waiting", stats.evicted_waiting},
          {"rejected_full", stats.rejected_full},
          {"rejected_cut_short", stats.rejected_cut_short},
          {"head_timeouts", stats.head_timeouts},
          {"body_timeouts", stats.body_timeouts},
          {"keep_alive_timeouts", stats.keep_alive_timeouts},
          {"send_timeouts", stats.send_timeouts},
          {"accept_errors", stats.accept_errors}};
}

std::string InternalsReadyLine(const InternalsServer& server) {
  return "netstack: internals page at " + server.url();
}

}  // namespace netstack
