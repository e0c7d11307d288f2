#include "tests/socket/tls_memory_server.h"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <stdexcept>

namespace netstack::test {

namespace {

// Picks "http/1.1" when the client offers it, as a web server would.
int SelectAlpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
               unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kHttp11, sizeof(kHttp11), in, inlen) ==
      OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

TlsMemoryServerContext::TlsMemoryServerContext(const std::string& cert_pem,
                                               const std::string& key_pem, int min_version,
                                               int max_version)
    : ctx_(SSL_CTX_new(TLS_server_method())) {
  SSL_CTX_set_min_proto_version(ctx_, min_version);
  SSL_CTX_set_max_proto_version(ctx_, max_version);
  static const unsigned char kContext[] = "netstack-memory";
  SSL_CTX_set_session_id_context(ctx_, kContext, sizeof(kContext) - 1);
  SSL_CTX_set_alpn_select_cb(ctx_, &SelectAlpn, nullptr);
  BIO* bio = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  bio = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (!cert || !key || SSL_CTX_use_certificate(ctx_, cert) != 1 ||
      SSL_CTX_use_PrivateKey(ctx_, key) != 1) {
    throw std::runtime_error("bad server certificate");
  }
  X509_free(cert);
  EVP_PKEY_free(key);
}

TlsMemoryServerContext::~TlsMemoryServerContext() { SSL_CTX_free(ctx_); }

TlsMemoryServer::TlsMemoryServer(const TlsMemoryServerContext& context)
    : ssl_(SSL_new(context.get())), in_(BIO_new(BIO_s_mem())), out_(BIO_new(BIO_s_mem())) {
  SSL_set_bio(ssl_, in_, out_);
  SSL_set_accept_state(ssl_);
}

TlsMemoryServer::~TlsMemoryServer() { SSL_free(ssl_); }

void TlsMemoryServer::Feed(const std::string& ciphertext) {
  if (!ciphertext.empty()) BIO_write(in_, ciphertext.data(), static_cast<int>(ciphertext.size()));
}

std::string TlsMemoryServer::TakeOutput() {
  std::string out;
  char buf[4096];
  int n;
  while ((n = BIO_read(out_, buf, sizeof(buf))) > 0) out.append(buf, n);
  return out;
}

int TlsMemoryServer::Handshake() {
  ERR_clear_error();
  int rv = SSL_do_handshake(ssl_);
  if (rv == 1) return 1;
  int error = SSL_get_error(ssl_, rv);
  ERR_clear_error();
  return error == SSL_ERROR_WANT_READ ? 0 : -1;
}

std::string TlsMemoryServer::ReadAll() {
  std::string out;
  char buf[4096];
  int n;
  ERR_clear_error();
  while ((n = SSL_read(ssl_, buf, sizeof(buf))) > 0) out.append(buf, n);
  ERR_clear_error();
  return out;
}

void TlsMemoryServer::Write(const std::string& plaintext) {
  SSL_write(ssl_, plaintext.data(), static_cast<int>(plaintext.size()));
}

void TlsMemoryServer::SendCloseNotify() { SSL_shutdown(ssl_); }

std::string TlsMemoryServer::server_name() const {
  const char* name = SSL_get_servername(ssl_, TLSEXT_NAMETYPE_host_name);
  return name ? name : "";
}

}  // namespace netstack::test
