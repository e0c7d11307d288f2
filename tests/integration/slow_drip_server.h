// SlowDripServer: slow_drip_server.py (its docstring documents the modes) run as a child process
// on 127.0.0.1: a server that sends a response's headers, or its body, one byte at a time, over
// HTTP/1.1 or h2c (prior knowledge). Never silent for long, so only netstack's total-time,
// minimum-rate and headers limits stop a client. Stopped (SIGTERM) by the destructor; the
// script also exits by itself after two minutes.
#ifndef TESTS_INTEGRATION_SLOW_DRIP_SERVER_H_
#define TESTS_INTEGRATION_SLOW_DRIP_SERVER_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/integration/process_runner.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {

class SlowDripServer {
 public:
  // Debian's python3 (it has python3-h2, which h2c needs).
  static constexpr const char* kPython = "/usr/bin/python3";

  SlowDripServer();
  ~SlowDripServer();
  SlowDripServer(const SlowDripServer&) = delete;
  SlowDripServer& operator=(const SlowDripServer&) = delete;

  // Starts the script in `mode` ("headers-drip" or "body-drip") speaking `proto` ("http1" or
  // "h2c") and waits (10 s at most) until it listens. False with message() (and the script's
  // stderr) otherwise; skipped() when python3, or python3-h2 for h2c, is missing.
  bool Start(const std::string& mode, const std::string& proto);
  bool skipped() const { return skipped_; }
  const std::string& message() const { return message_; }

  // "http://127.0.0.1:PORT/path".
  std::string Url(const std::string& path) const;
  // Every event logged so far, in order.
  std::vector<nlohmann::json> Events() const;
  // The first "closed" event, waiting up to `timeout` for it (null if none came).
  nlohmann::json WaitForClosed(std::chrono::milliseconds timeout = std::chrono::seconds(5)) const;

 private:
  TempDir dir_;
  ChildProcess process_;
  int port_ = 0;
  bool skipped_ = false;
  std::string message_;
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_SLOW_DRIP_SERVER_H_
