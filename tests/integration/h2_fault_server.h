// H2FaultServer: h2_fault_server.py (an HTTP/2 server written with Debian's python3-h2 that
// misbehaves on purpose; its docstring documents the modes) run as a child process on
// 127.0.0.1, over TLS with the test certificates (ALPN h2) or as h2c with prior knowledge.
//
// The script appends one JSON object per line to an event log (connections, the client's
// SETTINGS, every request with the streams open at once, responses served, streams refused,
// GOAWAYs, floods, ...); the accessors here read it, so a test asserts on what the server saw
// rather than on what the client says. Stopped (SIGTERM) by the destructor; the script also
// exits by itself when the test process goes away.
#ifndef TESTS_INTEGRATION_H2_FAULT_SERVER_H_
#define TESTS_INTEGRATION_H2_FAULT_SERVER_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/integration/process_runner.h"
#include "tests/integration/test_certificates.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {

class H2FaultServer {
 public:
  // The Python that has python3-h2: Debian's, not whatever python3 comes first in PATH.
  static constexpr const char* kPython = "/usr/bin/python3";
  // The script: $NETSTACK_H2_FAULT_SERVER if set, else the one in the source tree.
  static std::string ScriptPath();

  H2FaultServer();
  ~H2FaultServer();
  H2FaultServer(const H2FaultServer&) = delete;
  H2FaultServer& operator=(const H2FaultServer&) = delete;

  // Before Start(): goaway-mid-page's K (streams answered before the GOAWAY; default 3) and
  // the hold of mcs1 and of goaway-mid-page's first connection (ms each response waits, so the
  // client's other requests arrive; default 50).
  void set_goaway_after(int k) { goaway_after_ = k; }
  void set_hold_ms(int ms) { hold_ms_ = ms; }

  // Installs python3-h2 if Debian's python3 cannot import h2, makes the test certificates
  // (with `tls`), starts the script in `mode` on a port the kernel picks and waits (10 s at
  // most) until it listens. Returns true when it serves; otherwise skipped() (python3-h2 or
  // openssl missing and not installable) and message() (with the script's stderr).
  bool Start(const std::string& mode, bool tls = true);
  bool skipped() const { return skipped_; }
  const std::string& message() const { return message_; }
  void Stop();

  int port() const { return port_; }
  bool tls() const { return tls_; }
  // "https://host:port/path" with TLS, else "http://...".
  std::string Url(const std::string& path, const std::string& host = "localhost") const;
  // The test CA (PEM) for --cacert.
  const std::string& ca_cert() const { return certs_.ca_cert(); }

  // Every event logged so far, in order.
  std::vector<nlohmann::json> Events() const;
  // How many events named `event` there are (with a non-empty `path`, only those for it).
  int Count(const std::string& event, const std::string& path = "") const;
  // Count(event, path) once it reaches `at_least`, or after `timeout`: the script logs an
  // event right after the bytes went out, so a client can have exited before it is written.
  int WaitForCount(const std::string& event, int at_least, const std::string& path = "",
                   std::chrono::milliseconds timeout = std::chrono::seconds(3)) const;
  // Connections accepted (a client may open some it never uses: Chrome does on first contact).
  int Connections() const { return Count("connection"); }
  // Connections on which at least one request arrived.
  int ConnectionsWithRequests() const;
  // The stream ids goaway-mid-page's GOAWAY left unprocessed (empty if it sent none).
  std::vector<int> Unprocessed() const;
  // The most streams open at once on one connection, over the requests that were not refused.
  int MaxOpenStreams() const;
  // The last client_settings event's value of `name` ("ENABLE_PUSH", ...), or -1.
  int64_t ClientSetting(const std::string& name) const;
  // The event log as text, for failure messages.
  std::string ReadEvents() const;

 private:
  bool TryStart(std::string* error);

  TempDir dir_;
  TestCertificates certs_;
  ChildProcess process_;
  std::string mode_;
  int goaway_after_ = 3;
  int hold_ms_ = 50;
  int port_ = 0;
  bool tls_ = true;
  bool skipped_ = false;
  std::string message_;
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_H2_FAULT_SERVER_H_
