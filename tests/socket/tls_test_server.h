// A TLS echo server for tests: OpenSSL with blocking sockets on its own thread, listening on
// 127.0.0.1 (an ephemeral port). It serves one connection at a time: handshake, then echo every
// byte until the client closes. It records what each handshake saw (SNI, resumption, version).
#ifndef TESTS_SOCKET_TLS_TEST_SERVER_H_
#define TESTS_SOCKET_TLS_TEST_SERVER_H_

#include <openssl/ssl.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace netstack::test {

class TlsTestServer {
 public:
  struct Options {
    std::string cert_pem;
    std::string key_pem;
    int min_version = TLS1_2_VERSION;
    int max_version = TLS1_3_VERSION;
    // After echoing this many bytes (0: never), the server ends the connection itself: with a
    // close_notify first, or abruptly (TCP FIN only) when `abrupt_close`.
    size_t close_after_bytes = 0;
    bool abrupt_close = false;
  };

  // What one accepted connection's handshake looked like.
  struct Handshake {
    bool ok = false;
    std::string server_name;  // SNI; empty when the client sent none.
    bool resumed = false;
    std::string version;
    std::string error;  // OpenSSL's reason when !ok.
  };

  explicit TlsTestServer(const Options& options);
  // Stops accepting, ends the current connection and joins the thread.
  ~TlsTestServer();
  TlsTestServer(const TlsTestServer&) = delete;
  TlsTestServer& operator=(const TlsTestServer&) = delete;

  uint16_t port() const { return port_; }
  // Handshakes finished so far (successful or not), in order.
  std::vector<Handshake> handshakes() const;

 private:
  void Run();
  void Serve(int fd);
  // Waits until `fd` is readable or the server stops; false when stopping.
  bool WaitReadable(int fd) const;

  Options options_;
  SSL_CTX* ctx_ = nullptr;
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::vector<Handshake> handshakes_;
  std::thread thread_;
};

}  // namespace netstack::test

#endif  // TESTS_SOCKET_TLS_TEST_SERVER_H_
