// fault_http_server --port N: runs FaultHttpServer in the foreground (for manual debugging of
// a failure path: `netstack fetch http://127.0.0.1:N/reset-mid-body`). Stops on SIGINT/SIGTERM.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/integration/fault_http_server.h"

int main(int argc, char** argv) {
  int port = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
      port = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--port N]\n", argv[0]);
      return 2;
    }
  }
  // Block the stop signals before any thread starts, then wait for one.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  netstack::test::FaultHttpServer server;
  std::string error;
  if (!server.Start(port, &error)) {
    std::fprintf(stderr, "fault_http_server: %s\n", error.c_str());
    return 1;
  }
  std::printf("listening on 127.0.0.1:%d\n", server.port());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  server.Stop();
  return 0;
}
