#include "tests/integration/h2_fault_server.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "tests/integration/package_installer.h"

namespace netstack::test {
namespace {

// True if Debian's python3 can import h2 (python3-h2 installed).
bool PythonHasH2() {
  if (::access(H2FaultServer::kPython, X_OK) != 0) return false;
  return RunProcess({H2FaultServer::kPython, "-c", "import h2.connection"},
                    std::chrono::seconds(20))
             .exit_code == 0;
}

}  // namespace

std::string H2FaultServer::ScriptPath() {
  const char* env = std::getenv("NETSTACK_H2_FAULT_SERVER");
  if (env && *env) return env;
  return H2_FAULT_SERVER_SCRIPT;
}

H2FaultServer::H2FaultServer() : dir_("h2fault") {}

H2FaultServer::~H2FaultServer() { Stop(); }

bool H2FaultServer::Start(const std::string& mode, bool tls) {
  mode_ = mode;
  tls_ = tls;
  if (dir_.path().empty()) {
    message_ = "cannot create a temp dir";
    return false;
  }
  std::string why;
  if (!EnsurePackage("python3-h2 (Debian's python3 cannot import h2)", "python3-h2", PythonHasH2,
                     &why)) {
    skipped_ = true;
    message_ = why;
    return false;
  }
  if (tls && !certs_.Create(dir_.path(), TestCertificates::DefaultNames(), &why)) {
    skipped_ = FindExecutable("openssl").empty();
    message_ = why;
    return false;
  }
  if (!TryStart(&why)) {
    message_ = why;
    return false;
  }
  return true;
}

bool H2FaultServer::TryStart(std::string* error) {
  std::vector<std::string> argv = {kPython,          ScriptPath(),
                                   "--mode",         mode_,
                                   "--events",       dir_.Join("events.jsonl"),
                                   "--goaway-after", std::to_string(goaway_after_),
                                   "--hold-ms",      std::to_string(hold_ms_),
                                   "--parent-pid",   std::to_string(::getpid())};
  if (tls_) {
    argv.insert(argv.end(),
                {"--tls", "--cert", certs_.server_cert(), "--key", certs_.server_key()});
  }
  const std::string err_log = dir_.Join("stderr.log");
  if (!process_.Start(argv, "", err_log, error)) return false;
  // The script binds port 0 and logs {"event": "listening", "port": N} once it listens.
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
  *error = "h2_fault_server.py --mode " + mode_ + " did not start listening\n--- stderr ---\n" +
           stderr_text;
  return false;
}

void H2FaultServer::Stop() { process_.Stop(SIGTERM); }

std::string H2FaultServer::Url(const std::string& path, const std::string& host) const {
  return std::string(tls_ ? "https://" : "http://") + host + ":" + std::to_string(port_) + path;
}

std::string H2FaultServer::ReadEvents() const {
  std::string text;
  ReadFileToString(dir_.Join("events.jsonl"), &text);
  return text;
}

std::vector<nlohmann::json> H2FaultServer::Events() const {
  std::vector<nlohmann::json> events;
  std::istringstream in(ReadEvents());
  std::string line;
  while (std::getline(in, line)) {
    // A line being written has no newline yet and may not parse: it is read next time.
    nlohmann::json e = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (e.is_object()) events.push_back(std::move(e));
  }
  return events;
}

int H2FaultServer::Count(const std::string& event, const std::string& path) const {
  int n = 0;
  for (const nlohmann::json& e : Events()) {
    if (e.value("event", "") == event && (path.empty() || e.value("path", "") == path)) ++n;
  }
  return n;
}

int H2FaultServer::WaitForCount(const std::string& event, int at_least, const std::string& path,
                                std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int n = Count(event, path);
  while (n < at_least && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    n = Count(event, path);
  }
  return n;
}

int H2FaultServer::ConnectionsWithRequests() const {
  std::set<int> connections;
  for (const nlohmann::json& e : Events()) {
    if (e.value("event", "") == "request") connections.insert(e.value("conn", 0));
  }
  return static_cast<int>(connections.size());
}

std::vector<int> H2FaultServer::Unprocessed() const {
  for (const nlohmann::json& e : Events()) {
    if (e.value("event", "") == "goaway") return e.value("unprocessed", std::vector<int>{});
  }
  return {};
}

int H2FaultServer::MaxOpenStreams() const {
  std::vector<nlohmann::json> events = Events();
  int max_open = 0;
  for (const nlohmann::json& e : events) {
    if (e.value("event", "") != "request") continue;
    // A request refused on arrival (mcs1: opened before the client could know the limit) never
    // counted as open for the client; its refusal is the next event for its stream.
    const bool refused = std::any_of(events.begin(), events.end(), [&](const nlohmann::json& r) {
      return r.value("event", "") == "refused" && r.value("conn", 0) == e.value("conn", 0) &&
             r.value("stream", 0) == e.value("stream", 0) &&
             r.value("why", "").find("before the client acknowledged") != std::string::npos;
    });
    if (!refused) max_open = std::max(max_open, e.value("open", 0));
  }
  return max_open;
}

int64_t H2FaultServer::ClientSetting(const std::string& name) const {
  int64_t value = -1;
  for (const nlohmann::json& e : Events()) {
    if (e.value("event", "") != "client_settings") continue;
    auto it = e.find("settings");
    if (it != e.end() && it->contains(name) && (*it)[name].is_number_integer()) {
      value = (*it)[name].get<int64_t>();
    }
  }
  return value;
}

}  // namespace netstack::test
