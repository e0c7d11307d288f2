#include "tests/integration/slow_drip_server.h"

#include <signal.h>
#include <unistd.h>

#include <sstream>
#include <thread>

namespace netstack::test {

SlowDripServer::SlowDripServer() : dir_("slowdrip") {}

SlowDripServer::~SlowDripServer() { process_.Stop(SIGTERM); }

bool SlowDripServer::Start(const std::string& mode, const std::string& proto) {
  if (::access(kPython, X_OK) != 0 ||
      (proto == "h2c" &&
       RunProcess({kPython, "-c", "import h2.connection"}, std::chrono::seconds(20)).exit_code !=
           0)) {
    skipped_ = true;
    message_ = std::string(kPython) + " (with python3-h2 for h2c) is not available";
    return false;
  }
  const std::string err_log = dir_.Join("stderr.log");
  const std::vector<std::string> argv = {
      kPython,    SLOW_DRIP_SERVER_SCRIPT,  "--mode", mode, "--proto", proto,
      "--events", dir_.Join("events.jsonl")};
  if (!process_.Start(argv, "", err_log, &message_)) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline && process_.IsRunning()) {
    for (const nlohmann::json& e : Events()) {
      if (e.value("event", "") == "listening") {
        port_ = e.value("port", 0);
        return port_ > 0;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  process_.Stop(SIGKILL);
  std::string stderr_text;
  ReadFileToString(err_log, &stderr_text);
  message_ = "slow_drip_server.py did not start listening\n--- stderr ---\n" + stderr_text;
  return false;
}

std::string SlowDripServer::Url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::vector<nlohmann::json> SlowDripServer::Events() const {
  std::string text;
  ReadFileToString(dir_.Join("events.jsonl"), &text);
  std::vector<nlohmann::json> events;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json e = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (e.is_object()) events.push_back(std::move(e));
  }
  return events;
}

nlohmann::json SlowDripServer::WaitForClosed(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    for (const nlohmann::json& e : Events()) {
      if (e.value("event", "") == "closed") return e;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < deadline);
  return nullptr;
}

}  // namespace netstack::test
