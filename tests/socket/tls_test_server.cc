#include "tests/socket/tls_test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace netstack::test {

namespace {

std::string OpenSslError() {
  char buf[256] = {};
  unsigned long e = ERR_get_error();
  if (e != 0) ERR_error_string_n(e, buf, sizeof(buf));
  ERR_clear_error();
  return buf;
}

}  // namespace

TlsTestServer::TlsTestServer(const Options& options) : options_(options) {
  // Writing to a client that already left must be an error, not a signal.
  signal(SIGPIPE, SIG_IGN);
  ctx_ = SSL_CTX_new(TLS_server_method());
  SSL_CTX_set_min_proto_version(ctx_, options.min_version);
  SSL_CTX_set_max_proto_version(ctx_, options.max_version);
  static const unsigned char kContext[] = "netstack-test";
  SSL_CTX_set_session_id_context(ctx_, kContext, sizeof(kContext) - 1);

  BIO* bio = BIO_new_mem_buf(options.cert_pem.data(), static_cast<int>(options.cert_pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  bio = BIO_new_mem_buf(options.key_pem.data(), static_cast<int>(options.key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (!cert || !key || SSL_CTX_use_certificate(ctx_, cert) != 1 ||
      SSL_CTX_use_PrivateKey(ctx_, key) != 1) {
    throw std::runtime_error("bad server certificate: " + OpenSslError());
  }
  X509_free(cert);
  EVP_PKEY_free(key);

  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      listen(listen_fd_, 16) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      pipe(wake_pipe_) != 0) {
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { Run(); });
}

TlsTestServer::~TlsTestServer() {
  char byte = 0;
  if (write(wake_pipe_[1], &byte, 1) != 1) perror("wake");
  thread_.join();
  close(listen_fd_);
  close(wake_pipe_[0]);
  close(wake_pipe_[1]);
  SSL_CTX_free(ctx_);
}

std::vector<TlsTestServer::Handshake> TlsTestServer::handshakes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return handshakes_;
}

bool TlsTestServer::WaitReadable(int fd) const {
  pollfd fds[2] = {{fd, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
  while (true) {
    int rv = poll(fds, 2, -1);
    if (rv < 0) return false;
    if (fds[1].revents) return false;
    if (fds[0].revents) return true;
  }
}

void TlsTestServer::Run() {
  while (WaitReadable(listen_fd_)) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    // A backstop so a confused client cannot wedge the thread (blocking handshake I/O).
    timeval timeout = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    Serve(fd);
    close(fd);
  }
}

void TlsTestServer::Serve(int fd) {
  SSL* ssl = SSL_new(ctx_);
  SSL_set_fd(ssl, fd);
  Handshake handshake;
  ERR_clear_error();
  if (SSL_accept(ssl) == 1) {
    handshake.ok = true;
    const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    handshake.server_name = name ? name : "";
    handshake.resumed = SSL_session_reused(ssl) == 1;
    handshake.version = SSL_get_version(ssl);
  } else {
    handshake.error = OpenSslError();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    handshakes_.push_back(handshake);
  }
  if (handshake.ok) {
    char buf[16 * 1024];
    size_t echoed = 0;
    bool abrupt = false;
    while (SSL_pending(ssl) > 0 || WaitReadable(fd)) {
      int n = SSL_read(ssl, buf, sizeof(buf));
      if (n <= 0) break;
      if (SSL_write(ssl, buf, n) != n) break;
      echoed += static_cast<size_t>(n);
      if (options_.close_after_bytes > 0 && echoed >= options_.close_after_bytes) {
        abrupt = options_.abrupt_close;
        break;
      }
    }
    if (!abrupt) SSL_shutdown(ssl);
  }
  SSL_free(ssl);
  ERR_clear_error();
}

}  // namespace netstack::test
