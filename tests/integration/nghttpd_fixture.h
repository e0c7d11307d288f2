// nghttpd (Debian's nghttp2-server), nghttp2's own HTTP/2 server, on 127.0.0.1: h2c with prior
// knowledge (--no-tls) or h2 over TLS with the test certificates, serving a docroot.
//
// nghttpd speaks only HTTP/2 (no HTTP/1.1, no Upgrade), so it is the server for
// `--http2-prior-knowledge`. Run verbose (-v) with its output in a log, it tells how many
// connections ("[id=N]") and which requests it saw. Stopped by the destructor.
#ifndef TESTS_INTEGRATION_NGHTTPD_FIXTURE_H_
#define TESTS_INTEGRATION_NGHTTPD_FIXTURE_H_

#include <string>
#include <utility>
#include <vector>

#include "tests/integration/process_runner.h"
#include "tests/integration/test_certificates.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {

class NghttpdFixture {
 public:
  // Served (under the docroot): /small.txt (612 bytes of text), /index.html, and what
  // AddFile() added.
  static constexpr int kSmallSize = 612;

  NghttpdFixture();
  ~NghttpdFixture();
  NghttpdFixture(const NghttpdFixture&) = delete;
  NghttpdFixture& operator=(const NghttpdFixture&) = delete;

  // Before Start(): a file to serve at `url_path` (parent directories are made).
  void AddFile(const std::string& url_path, std::string content);
  // Before Start(): nghttpd's SETTINGS_MAX_CONCURRENT_STREAMS (its default is 100).
  void set_max_concurrent_streams(int n) { max_concurrent_streams_ = n; }

  // Installs nghttp2-server if nghttpd is missing, writes the docroot (and with `tls` the test
  // certificates), starts nghttpd on a free port and waits until it accepts. Returns true when
  // it serves; otherwise skipped() (nghttpd or openssl missing and not installable) and
  // message() (with nghttpd's output).
  bool Start(bool tls = false);
  bool skipped() const { return skipped_; }
  const std::string& message() const { return message_; }
  void Stop();

  int port() const { return port_; }
  bool tls() const { return tls_; }
  // "http://host:port/path" (h2c) or "https://..." with TLS.
  std::string Url(const std::string& path, const std::string& host = "127.0.0.1") const;
  // The test CA (PEM) for --cacert, with TLS.
  const std::string& ca_cert() const { return certs_.ca_cert(); }

  // nghttpd's verbose log so far.
  std::string ReadLog() const;
  // The HTTP/2 connections in the log: distinct "[id=N]" sessions that received SETTINGS.
  int Connections() const;
  // How many requests for `path` (":path: PATH" received) the log shows.
  int CountRequests(const std::string& path) const;

 private:
  bool TryStart(std::string* error);

  TempDir dir_;
  TestCertificates certs_;
  ChildProcess nghttpd_;
  std::string nghttpd_path_;
  std::vector<std::pair<std::string, std::string>> extra_files_;
  int max_concurrent_streams_ = 0;
  int port_ = 0;
  bool tls_ = false;
  bool skipped_ = false;
  std::string message_;
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_NGHTTPD_FIXTURE_H_
