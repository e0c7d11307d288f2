// A TLS server with no sockets: OpenSSL over memory BIOs, driven by the test (bytes in, bytes
// out), to pair with TlsClientEngine or a scripted transport. Deterministic, no threads.
#ifndef TESTS_SOCKET_TLS_MEMORY_SERVER_H_
#define TESTS_SOCKET_TLS_MEMORY_SERVER_H_

#include <openssl/ssl.h>

#include <string>

namespace netstack::test {

class TlsMemoryServerContext {
 public:
  // Server settings shared by connections (and their session cache / ticket keys).
  TlsMemoryServerContext(const std::string& cert_pem, const std::string& key_pem,
                         int min_version = TLS1_2_VERSION, int max_version = TLS1_3_VERSION);
  ~TlsMemoryServerContext();
  SSL_CTX* get() const { return ctx_; }

 private:
  SSL_CTX* ctx_;
};

class TlsMemoryServer {
 public:
  explicit TlsMemoryServer(const TlsMemoryServerContext& context);
  ~TlsMemoryServer();

  // Ciphertext from the client.
  void Feed(const std::string& ciphertext);
  // Ciphertext for the client produced so far.
  std::string TakeOutput();
  // Advances the handshake: 1 done, 0 waiting for input, -1 failed.
  int Handshake();
  // Decrypted bytes available now.
  std::string ReadAll();
  void Write(const std::string& plaintext);
  void SendCloseNotify();
  bool resumed() const { return SSL_session_reused(ssl_) == 1; }
  std::string server_name() const;
  std::string version() const { return SSL_get_version(ssl_); }

 private:
  SSL* ssl_;
  BIO* in_;   // Owned by ssl_.
  BIO* out_;  // Owned by ssl_.
};

}  // namespace netstack::test

#endif  // TESTS_SOCKET_TLS_MEMORY_SERVER_H_
