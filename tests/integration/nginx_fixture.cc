#include "tests/integration/nginx_fixture.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <thread>

#include "tests/integration/loopback_port.h"
#include "tests/integration/package_installer.h"

namespace netstack::test {
namespace {

constexpr int kSmallSize = 612;
constexpr int kTextSize = 100 * 1024;
constexpr int kBinarySize = 1024 * 1024;
constexpr int kResources = 10;

std::string Text(size_t size, const std::string& seed) {
  std::string line =
      "netstack test file " + seed + ": the quick brown fox jumps over the lazy dog\n";
  std::string out;
  while (out.size() < size) out += line;
  out.resize(size);
  return out;
}

std::string PseudoRandom(size_t size) {
  std::string out(size, '\0');
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (size_t i = 0; i < size; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<char>(x & 0xff);
  }
  return out;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(s);
  while (std::getline(in, field, sep)) out.push_back(field);
  return out;
}

uint64_t ToU64(const std::string& s) { return std::strtoull(s.c_str(), nullptr, 10); }

}  // namespace

NginxFixture::NginxFixture() : dir_("nginx") {}

NginxFixture::~NginxFixture() { Stop(); }

void NginxFixture::AddFile(const std::string& url_path, std::string content) {
  extra_files_.emplace_back(url_path, std::move(content));
}

bool NginxFixture::MakeDocroot(std::string* error) {
  const std::string www = dir_.Join("www");
  ::mkdir(www.c_str(), 0755);
  ::mkdir((www + "/res").c_str(), 0755);
  ::mkdir(dir_.Join("tmp").c_str(), 0755);
  ::mkdir(dir_.Join("logs").c_str(), 0755);
  std::string page =
      "<!doctype html>\n<html><head><title>netstack test page</title></head>\n<body>\n";
  bool ok = WriteStringToFile(www + "/small.txt", Text(kSmallSize, "small")) &&
            WriteStringToFile(www + "/text.txt", Text(kTextSize, "text")) &&
            WriteStringToFile(www + "/1m.bin", PseudoRandom(kBinarySize)) &&
            WriteStringToFile(www + "/index.html", "<!doctype html><p>netstack nginx fixture\n");
  for (int i = 0; ok && i < kResources; ++i) {
    const std::string name = "/res/" + std::to_string(i) + ".txt";
    ok = WriteStringToFile(www + name, Text(200 + 300 * i, "res" + std::to_string(i)));
    page += "<a href=\"" + name + "\">" + name + "</a>\n";
  }
  page += "</body></html>\n";
  ok = ok && WriteStringToFile(www + "/page.html", page);
  for (const auto& [url_path, content] : extra_files_) {
    if (!ok) break;
    for (size_t slash = url_path.find('/', 1); slash != std::string::npos;
         slash = url_path.find('/', slash + 1)) {
      ::mkdir((www + url_path.substr(0, slash)).c_str(), 0755);
    }
    ok = WriteStringToFile(www + url_path, content);
  }
  extra_files_.clear();  // large test files need not stay in memory once on disk
  if (!ok) *error = "cannot write the docroot under " + www;
  return ok;
}

std::string NginxFixture::MakeConfig() const {
  const std::string d = dir_.path();
  std::ostringstream c;
  // Running as root, nginx would switch its worker to `nobody`; every file it reads is world-
  // readable (TempDir is 0755), and the logs are opened by the master, so that is fine.
  c << "daemon off;\n"
    << "master_process on;\n"
    << "worker_processes 1;\n"
    << "pid " << d << "/nginx.pid;\n"
    << "error_log " << d << "/logs/error.log info;\n"
    << "events { worker_connections 1024; }\n"
    << "http {\n"
    << "  types { text/html html; text/plain txt; application/octet-stream bin; }\n"
    << "  default_type application/octet-stream;\n"
    << "  log_format netstack '$connection\\t$connection_requests\\t$status\\t$request_uri\\t"
       "$host\\t$server_port\\t$ssl_protocol\\t$ssl_session_reused\\t$bytes_sent\\t"
       "$http_accept_encoding\\t$server_protocol';\n"
    << "  access_log " << d << "/logs/access.log netstack;\n"
    << "  client_body_temp_path " << d << "/tmp/body;\n"
    << "  proxy_temp_path " << d << "/tmp/proxy;\n"
    << "  fastcgi_temp_path " << d << "/tmp/fastcgi;\n"
    << "  uwsgi_temp_path " << d << "/tmp/uwsgi;\n"
    << "  scgi_temp_path " << d << "/tmp/scgi;\n"
    << "  sendfile on;\n"
    << "  server_tokens off;\n"
    << "  keepalive_requests 10000;\n"
    << "  keepalive_timeout 120s;\n"
    << "  gzip on;\n"
    << "  gzip_min_length 0;\n"
    << "  gzip_types *;\n"
    // Relative Location headers for `return 30x /path`, so clients must resolve them.
    << "  absolute_redirect off;\n"
    << "  ssl_certificate " << certs_.server_cert() << ";\n"
    << "  ssl_certificate_key " << certs_.server_key() << ";\n"
    << "  ssl_session_timeout 10m;\n"
    << "  ssl_session_tickets on;\n";
  const std::string locations =
      "    root " + d +
      "/www;\n"
      "    location = /redirect/3 { return 301 /redirect/2; }\n"
      "    location = /redirect/2 { return 302 $scheme://$http_host/redirect/1; }\n"
      "    location = /redirect/1 { return 301 /small.txt; }\n"
      "    location = /loop { return 302 /loop; }\n" +
      extra_config_;
  // nginx 1.22 (Debian bookworm) turns HTTP/2 on per listen socket.
  const std::string ssl = http2_ ? " ssl http2;\n" : " ssl;\n";
  if (http2_ && http2_max_concurrent_streams_ > 0) {
    c << "  http2_max_concurrent_streams " << http2_max_concurrent_streams_ << ";\n";
  }
  c << "  server {\n"
    << "    listen 127.0.0.1:" << http_port_ << ";\n"
    << "    listen 127.0.0.1:" << https_port_ << ssl;
  if (listen_ipv6_) {
    c << "    listen [::1]:" << http_port_ << ";\n"
      << "    listen [::1]:" << https_port_ << ssl;
  }
  c << "    server_name _;\n"
    << "    ssl_protocols TLSv1.2 TLSv1.3;\n"
    << "    ssl_session_cache shared:netstack_any:1m;\n"
    << locations << "  }\n"
    << "  server {\n"
    << "    listen 127.0.0.1:" << https12_port_ << ssl << "    server_name _;\n"
    << "    ssl_protocols TLSv1.2;\n"
    << "    ssl_session_cache shared:netstack_tls12:1m;\n"
    << locations << "  }\n"
    << "}\n";
  return c.str();
}

bool NginxFixture::TryStart(std::string* error) {
  http_port_ = PickFreePort();
  https_port_ = PickFreePort();
  https12_port_ = PickFreePort();
  if (!http_port_ || !https_port_ || !https12_port_ || http_port_ == https_port_ ||
      https_port_ == https12_port_ || http_port_ == https12_port_) {
    *error = "could not pick three free ports";
    return false;
  }
  const std::string conf = dir_.Join("nginx.conf");
  if (!WriteStringToFile(conf, MakeConfig())) {
    *error = "cannot write " + conf;
    return false;
  }
  const std::string log = dir_.Join("logs/error.log");
  if (!nginx_.Start({nginx_path_, "-p", dir_.path() + "/", "-c", conf, "-e", log},
                    dir_.Join("logs/stdout.log"), dir_.Join("logs/stderr.log"), error)) {
    return false;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (int port : {http_port_, https_port_, https12_port_}) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!nginx_.IsRunning() || !WaitForTcpPort(port, left)) {
      nginx_.Stop(SIGKILL);
      std::string err_log, stderr_log;
      ReadFileToString(log, &err_log);
      ReadFileToString(dir_.Join("logs/stderr.log"), &stderr_log);
      *error = "nginx did not start serving on port " + std::to_string(port) +
               "\n--- error.log ---\n" + err_log + "\n--- stderr ---\n" + stderr_log;
      return false;
    }
  }
  return true;
}

bool NginxFixture::Start() {
  if (dir_.path().empty()) {
    message_ = "cannot create a temp dir";
    return false;
  }
  std::string why;
  nginx_path_ = EnsureProgram("nginx", "nginx-light", &why);
  if (nginx_path_.empty()) {
    skipped_ = true;
    message_ = why;
    return false;
  }
  std::string error;
  if (!certs_.Create(dir_.path(), TestCertificates::DefaultNames(), &error)) {
    skipped_ = FindExecutable("openssl").empty();
    message_ = error;
    return false;
  }
  if (!MakeDocroot(&error)) {
    message_ = error;
    return false;
  }
  // A port picked free may be taken by the time nginx binds it, and two picks may give the same
  // port (each probe socket is closed before the next pick): retry with fresh ports.
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (TryStart(&error)) return true;
    if (error.find("Address already in use") == std::string::npos &&
        error != "could not pick three free ports") {
      break;
    }
  }
  message_ = error;
  return false;
}

void NginxFixture::Stop() { nginx_.Stop(SIGTERM); }

std::string NginxFixture::HttpUrl(const std::string& path, const std::string& host) const {
  return "http://" + host + ":" + std::to_string(http_port_) + path;
}

std::string NginxFixture::HttpsUrl(const std::string& path, const std::string& host) const {
  return "https://" + host + ":" + std::to_string(https_port_) + path;
}

std::string NginxFixture::Https12Url(const std::string& path, const std::string& host) const {
  return "https://" + host + ":" + std::to_string(https12_port_) + path;
}

std::string NginxFixture::DocPath(const std::string& url_path) const {
  return dir_.Join("www") + url_path;
}

long NginxFixture::FileSize(const std::string& url_path) const {
  struct stat st;
  if (::stat(DocPath(url_path).c_str(), &st) != 0) return -1;
  return static_cast<long>(st.st_size);
}

std::vector<NginxLogEntry> NginxFixture::ReadAccessLog(size_t wait_for) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  std::vector<NginxLogEntry> entries = ParseAccessLog();
  while (entries.size() < wait_for && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    entries = ParseAccessLog();
  }
  return entries;
}

std::vector<NginxLogEntry> NginxFixture::ParseAccessLog() const {
  std::vector<NginxLogEntry> entries;
  std::string text;
  if (!ReadFileToString(dir_.Join("logs/access.log"), &text)) return entries;
  for (const std::string& line : Split(text, '\n')) {
    std::vector<std::string> f = Split(line, '\t');
    if (f.size() < 9) continue;
    NginxLogEntry e;
    e.connection = ToU64(f[0]);
    e.connection_requests = ToU64(f[1]);
    e.status = std::atoi(f[2].c_str());
    e.request_uri = f[3];
    e.host = f[4];
    e.server_port = std::atoi(f[5].c_str());
    e.ssl_protocol = f[6];
    e.ssl_session_reused = f[7];
    e.bytes_sent = ToU64(f[8]);
    if (f.size() > 9) e.accept_encoding = f[9];
    if (f.size() > 10) e.server_protocol = f[10];
    entries.push_back(e);
  }
  return entries;
}

std::string NginxFixture::ReadErrorLog() const {
  std::string text;
  ReadFileToString(dir_.Join("logs/error.log"), &text);
  return text;
}

}  // namespace netstack::test
