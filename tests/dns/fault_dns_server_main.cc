// fault_dns_server_main --port N --mode servfail|refused|silent|garbage
// Runs a FaultDnsServer on 127.0.0.1 in its own process, for integration tests of the CLI.
// Prints "fault_dns_server listening on 127.0.0.1:PORT mode MODE" once bound (PORT is the real
// port when --port 0), then serves until SIGTERM or SIGINT. Exit status: 0 after a signal,
// 1 if the port cannot be bound, 2 on bad usage.
#include <uv.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "tests/dns/fault_dns_server.h"

namespace {

int Usage(const char* message) {
  std::fprintf(stderr,
               "fault_dns_server_main: %s\n"
               "usage: fault_dns_server_main --port N --mode servfail|refused|silent|garbage\n",
               message);
  return 2;
}

struct Signals {
  uv_signal_t term;
  uv_signal_t interrupt;
  netstack::FaultDnsServer* server;
};

void OnSignal(uv_signal_t* handle, int /*signum*/) {
  auto* signals = static_cast<Signals*>(handle->data);
  signals->server->Close();
  uv_close(reinterpret_cast<uv_handle_t*>(&signals->term), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&signals->interrupt), nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  long port = -1;
  std::optional<netstack::FaultDnsServer::Mode> mode;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) return Usage(("missing value for " + arg).c_str());
    std::string value = argv[++i];
    if (arg == "--port") {
      char* end = nullptr;
      port = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || port < 0 || port > 65535) return Usage("bad --port");
    } else if (arg == "--mode") {
      mode = netstack::FaultDnsServer::ParseMode(value);
      if (!mode) return Usage("bad --mode");
    } else {
      return Usage(("unknown argument " + arg).c_str());
    }
  }
  if (port < 0 || !mode) return Usage("--port and --mode are required");

  uv_loop_t loop;
  uv_loop_init(&loop);
  int status = 0;
  {
    netstack::FaultDnsServer server(&loop);
    int rv = server.Start(*mode, static_cast<uint16_t>(port));
    if (rv != 0) {
      std::fprintf(stderr, "fault_dns_server_main: cannot bind 127.0.0.1:%ld: %s\n", port,
                   uv_strerror(rv));
      status = 1;
    } else {
      Signals signals;
      signals.server = &server;
      uv_signal_init(&loop, &signals.term);
      uv_signal_init(&loop, &signals.interrupt);
      signals.term.data = signals.interrupt.data = &signals;
      uv_signal_start(&signals.term, &OnSignal, SIGTERM);
      uv_signal_start(&signals.interrupt, &OnSignal, SIGINT);
      std::printf("fault_dns_server listening on 127.0.0.1:%u mode %s\n", server.port(),
                  netstack::FaultDnsServer::ModeToString(*mode));
      std::fflush(stdout);
      uv_run(&loop, UV_RUN_DEFAULT);  // Until a signal closes every handle.
    }
  }
  uv_run(&loop, UV_RUN_DEFAULT);  // Close callbacks of a failed start.
  if (uv_loop_close(&loop) != 0) status = status ? status : 1;
  return status;
}
