#include "tools/internals/internals_server.h"

#include <utility>

namespace netstack {

InternalsServer::InternalsServer(uv_loop_t* loop, InternalsHost* host, Options options)
    : options_(std::move(options)),
      token_(MakeInternalsToken()),
      router_(host, &ring_, &histograms_,
              InternalsRouter::Options{token_, options_.port, options_.listen_address,
                                       options_.command_line}),
      server_(loop, [this](const HttpServerRequest& request, UvHttpServer::Respond respond) {
        router_.Handle(request, std::move(respond));
      }) {}

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
  // The ring last: as the NetLog's last observer it moves each entry's params in (no copy).
  histograms_.Attach(net_log);
  ring_.Attach(net_log);
}

std::string InternalsReadyLine(const InternalsServer& server) {
  return "netstack: internals page at " + server.url();
}

}  // namespace netstack
