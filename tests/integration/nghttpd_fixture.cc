#include "tests/integration/nghttpd_fixture.h"

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <set>
#include <sstream>

#include "tests/integration/loopback_port.h"
#include "tests/integration/package_installer.h"

namespace netstack::test {
namespace {

std::string SmallText() {
  const std::string line = "netstack nghttpd file: the quick brown fox jumps over the lazy dog\n";
  std::string out;
  while (out.size() < static_cast<size_t>(NghttpdFixture::kSmallSize)) out += line;
  out.resize(NghttpdFixture::kSmallSize);
  return out;
}

}  // namespace

NghttpdFixture::NghttpdFixture() : dir_("nghttpd") {}

NghttpdFixture::~NghttpdFixture() { Stop(); }

void NghttpdFixture::AddFile(const std::string& url_path, std::string content) {
  extra_files_.emplace_back(url_path, std::move(content));
}

bool NghttpdFixture::TryStart(std::string* error) {
  port_ = PickFreePort();
  if (!port_) {
    *error = "could not pick a free port";
    return false;
  }
  std::vector<std::string> argv = {nghttpd_path_, "-v", "-a", "127.0.0.1", "-d", dir_.Join("www")};
  if (max_concurrent_streams_ > 0) {
    argv.push_back("--max-concurrent-streams=" + std::to_string(max_concurrent_streams_));
  }
  if (!tls_) argv.push_back("--no-tls");
  argv.push_back(std::to_string(port_));
  if (tls_) {
    argv.push_back(certs_.server_key());
    argv.push_back(certs_.server_cert());
  }
  const std::string log = dir_.Join("nghttpd.log");
  if (!nghttpd_.Start(argv, log, log, error)) return false;
  if (nghttpd_.IsRunning() && WaitForTcpPort(port_, std::chrono::seconds(10))) return true;
  nghttpd_.Stop(SIGKILL);
  *error = "nghttpd did not start serving on port " + std::to_string(port_) + "\n--- log ---\n" +
           ReadLog();
  return false;
}

bool NghttpdFixture::Start(bool tls) {
  tls_ = tls;
  if (dir_.path().empty()) {
    message_ = "cannot create a temp dir";
    return false;
  }
  std::string why;
  nghttpd_path_ = EnsureProgram("nghttpd", "nghttp2-server", &why);
  if (nghttpd_path_.empty()) {
    skipped_ = true;
    message_ = why;
    return false;
  }
  std::string error;
  if (tls && !certs_.Create(dir_.path(), TestCertificates::DefaultNames(), &error)) {
    skipped_ = FindExecutable("openssl").empty();
    message_ = error;
    return false;
  }
  dir_.Write("www/small.txt", SmallText());
  dir_.Write("www/index.html", "<!doctype html><p>netstack nghttpd fixture\n");
  for (const auto& [url_path, content] : extra_files_) dir_.Write("www" + url_path, content);
  extra_files_.clear();
  // A port picked free may be taken by the time nghttpd binds it: retry with a fresh one.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (TryStart(&error)) return true;
  }
  message_ = error;
  return false;
}

void NghttpdFixture::Stop() { nghttpd_.Stop(SIGTERM); }

std::string NghttpdFixture::Url(const std::string& path, const std::string& host) const {
  return std::string(tls_ ? "https://" : "http://") + host + ":" + std::to_string(port_) + path;
}

std::string NghttpdFixture::ReadLog() const {
  std::string text;
  ReadFileToString(dir_.Join("nghttpd.log"), &text);
  return text;
}

int NghttpdFixture::Connections() const {
  // An HTTP/2 client's connection is one whose SETTINGS nghttpd received: readiness probes
  // and HTTP/1.1 clients do not count.
  std::set<std::string> ids;
  std::istringstream in(ReadLog());
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("[id=", 0) == 0 && line.find("recv SETTINGS frame") != std::string::npos) {
      ids.insert(line.substr(0, line.find(']')));
    }
  }
  return static_cast<int>(ids.size());
}

int NghttpdFixture::CountRequests(const std::string& path) const {
  int n = 0;
  std::istringstream in(ReadLog());
  std::string line;
  const std::string suffix = ") :path: " + path;
  while (std::getline(in, line)) {
    if (line.size() >= suffix.size() &&
        line.compare(line.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        line.find("recv (stream_id=") != std::string::npos) {
      ++n;
    }
  }
  return n;
}

}  // namespace netstack::test
