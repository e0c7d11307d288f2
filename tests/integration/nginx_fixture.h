// A real nginx on 127.0.0.1 for integration tests: HTTP, HTTPS (TLS 1.2 and 1.3) and
// HTTPS with TLS 1.2 only, on free ports, with a test CA made at start, generated static files,
// gzip for everything, redirect chains, optionally HTTP/2 on the HTTPS ports, and an access log
// that records the connection serial number and protocol of every request (so tests can count
// connections and reuse per protocol; all streams of one HTTP/2 connection share $connection).
//
// Everything lives in one temp dir: config, pid file, logs, temp paths, certificates, docroot.
// nginx runs in the foreground (daemon off) as a child process and is stopped by the destructor.
#ifndef TESTS_INTEGRATION_NGINX_FIXTURE_H_
#define TESTS_INTEGRATION_NGINX_FIXTURE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/process_runner.h"
#include "tests/integration/test_certificates.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {

// One line of the access log.
struct NginxLogEntry {
  uint64_t connection = 0;           // $connection: the connection serial number
  uint64_t connection_requests = 0;  // $connection_requests: nth request on that connection
  int status = 0;                    // $status
  std::string request_uri;           // $request_uri
  std::string host;                  // $host
  int server_port = 0;               // $server_port
  std::string ssl_protocol;          // $ssl_protocol, "-" over plain HTTP
  std::string ssl_session_reused;    // $ssl_session_reused: "r" if resumed, "." if not
  uint64_t bytes_sent = 0;           // $bytes_sent (headers + body as sent)
  std::string accept_encoding;       // $http_accept_encoding
  std::string server_protocol;       // $server_protocol: "HTTP/2.0" or "HTTP/1.1"
};

class NginxFixture {
 public:
  // Paths served (under the docroot):
  //   /small.txt   612 bytes of text
  //   /text.txt    100 KiB of repetitive text (gzip shrinks it a lot)
  //   /1m.bin      1 MiB of pseudo-random bytes
  //   /page.html   an HTML page linking /res/0.txt ... /res/9.txt (small text files)
  //   /redirect/3  301 -> /redirect/2 (relative Location)
  //   /redirect/2  302 -> http(s)://host:port/redirect/1 (absolute Location)
  //   /redirect/1  301 -> /small.txt
  //   /loop        302 -> /loop
  static constexpr int kRedirectChainLength = 3;

  NginxFixture();
  ~NginxFixture();
  NginxFixture(const NginxFixture&) = delete;
  NginxFixture& operator=(const NginxFixture&) = delete;

  // Makes the certificates, files and config and starts nginx, waiting until all ports accept.
  // Returns true when it is serving. Otherwise skipped() tells whether the test should be
  // skipped (nginx or openssl missing and not installable) rather than fail, and message()
  // says why (with nginx's error log).
  // Before Start(): nginx also listens on [::1] on the HTTP and HTTPS ports (the same port
  // numbers as on 127.0.0.1). The caller checks HasIpv6Loopback() first.
  void set_listen_ipv6(bool on) { listen_ipv6_ = on; }

  // Before Start(): the HTTPS ports (both, and [::1]'s) also speak HTTP/2, chosen by ALPN
  // (`listen ... ssl http2`); HTTP/1.1 clients still get HTTP/1.1. Off by default. With
  // http2_max_concurrent_streams > 0, the servers advertise that SETTINGS_MAX_CONCURRENT_STREAMS
  // (nginx's default is 128). nginx refuses with REFUSED_STREAM the streams beyond it, and
  // those beyond twice it that arrive in one read (a client that sent its requests before the
  // SETTINGS reached it), logging "concurrent streams exceeded" or "client sent too many streams
  // at once" at info level in the error log.
  void set_http2(bool on) { http2_ = on; }
  void set_http2_max_concurrent_streams(int n) { http2_max_concurrent_streams_ = n; }

  // Before Start(): a file to serve at `url_path` (parent directories are made), and extra
  // nginx directives for both servers' `server` blocks (e.g. a `location` with `expires`,
  // `add_header Cache-Control ...` or `gzip off`), so a test states the headers it needs.
  void AddFile(const std::string& url_path, std::string content);
  void AddServerConfig(const std::string& directives) { extra_config_ += directives + "\n"; }

  bool Start();
  bool skipped() const { return skipped_; }
  const std::string& message() const { return message_; }

  // Stops nginx (SIGTERM, then SIGKILL). Called by the destructor.
  void Stop();

  int http_port() const { return http_port_; }
  int https_port() const { return https_port_; }
  // HTTPS that offers only TLS 1.2 (where session resumption saves a round trip).
  int https12_port() const { return https12_port_; }

  // "http://host:http_port" + path, and the same for the HTTPS ports.
  std::string HttpUrl(const std::string& path, const std::string& host = "127.0.0.1") const;
  std::string HttpsUrl(const std::string& path, const std::string& host = "localhost") const;
  std::string Https12Url(const std::string& path, const std::string& host = "localhost") const;

  // The test CA's certificate (PEM), for --cacert.
  const std::string& ca_cert() const { return certs_.ca_cert(); }
  // The absolute path of a served file (e.g. "/small.txt"), to compare bodies and sizes.
  std::string DocPath(const std::string& url_path) const;
  // The size of a served file, or -1.
  long FileSize(const std::string& url_path) const;

  // Parses the access log written so far (nginx writes each line when a request finishes).
  // With wait_for > 0 it first waits (up to 2 s) until that many lines are there: nginx logs
  // a request after sending its response, so a client that exits at once can be ahead of it.
  // Returns what is there when the wait ends; the caller's size check reports a shortfall.
  std::vector<NginxLogEntry> ReadAccessLog(size_t wait_for = 0) const;
  std::string ReadErrorLog() const;

  const std::string& dir() const { return dir_.path(); }

 private:
  std::vector<NginxLogEntry> ParseAccessLog() const;
  bool MakeDocroot(std::string* error);
  std::string MakeConfig() const;
  bool TryStart(std::string* error);

  TempDir dir_;
  TestCertificates certs_;
  ChildProcess nginx_;
  std::string nginx_path_;
  int http_port_ = 0;
  int https_port_ = 0;
  int https12_port_ = 0;
  bool listen_ipv6_ = false;
  bool http2_ = false;
  int http2_max_concurrent_streams_ = 0;
  std::vector<std::pair<std::string, std::string>> extra_files_;
  std::string extra_config_;
  bool skipped_ = false;
  std::string message_;
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_NGINX_FIXTURE_H_
