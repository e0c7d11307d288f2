#include "net/socket/tls_client_engine.h"

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <climits>

#include "net/base/ip_address.h"
#include "net/socket/ssl_client_context.h"

namespace netstack {

namespace {

// Chrome's mapping of X.509 verification failures to its certificate errors.
int MapVerifyResult(long result) {
  switch (result) {
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
    case X509_V_ERR_EMAIL_MISMATCH:
      return ERR_CERT_COMMON_NAME_INVALID;
    case X509_V_ERR_CERT_NOT_YET_VALID:
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD:
    case X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD:
      return ERR_CERT_DATE_INVALID;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_UNTRUSTED:
    case X509_V_ERR_CERT_REJECTED:
      return ERR_CERT_AUTHORITY_INVALID;
    default:
      return ERR_CERT_INVALID;
  }
}

// Handshake failures that mean "no common version or cipher" rather than a broken peer.
bool IsVersionOrCipherMismatch(unsigned long error) {
  if (ERR_GET_LIB(error) != ERR_LIB_SSL) return false;
  switch (ERR_GET_REASON(error)) {
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_NO_PROTOCOLS_AVAILABLE:
    case SSL_R_TLSV1_ALERT_PROTOCOL_VERSION:
    case SSL_R_WRONG_SSL_VERSION:
    case SSL_R_VERSION_TOO_LOW:
    case SSL_R_VERSION_TOO_HIGH:
    case SSL_R_NO_SHARED_CIPHER:
    case SSL_R_NO_CIPHERS_AVAILABLE:
    case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
      return true;
    default:
      return false;
  }
}

}  // namespace

TlsClientEngine::TlsClientEngine(SslClientContext* context, const std::string& host, uint16_t port)
    : context_(context), session_key_(SslSessionCacheKey(host, port)) {
  std::string name = host;
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']') {
    name = name.substr(1, name.size() - 2);
  }
  SSL_CTX* ctx = context_->ssl_ctx();  // Made at the first connection.
  if (!ctx) {
    // No context (or no trust anchors: no certificate could verify): fail before the
    // handshake, saying what failed.
    init_result_ = context_->ssl_ctx_error();
    last_error_detail_ = context_->ssl_ctx_error_detail();
    return;
  }
  ssl_ = SSL_new(ctx);
  BIO* internal_bio = nullptr;
  if (!ssl_ || BIO_new_bio_pair(&internal_bio, kBufferSize, &network_bio_, kBufferSize) != 1) {
    init_result_ = ERR_OUT_OF_MEMORY;
    ERR_clear_error();
    return;
  }
  SSL_set_bio(ssl_, internal_bio, internal_bio);  // One reference, used for both directions.
  SSL_set_connect_state(ssl_);
  SslClientContext::SetSessionKey(ssl_, &session_key_);

  const bool is_ip = IPAddress::Parse(name).has_value();
  // SNI carries host names only (RFC 6066 section 3).
  if (!is_ip) SSL_set_tlsext_host_name(ssl_, name.c_str());
  if (context_->config().verify_peer) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str())
                   : X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size());
    if (ok != 1) {
      init_result_ = ERR_INVALID_ARGUMENT;
      last_error_detail_ = "invalid host name for verification: " + name;
      ERR_clear_error();
      return;
    }
  }
  if (SslSessionPtr session = context_->LookupSession(session_key_)) {
    SSL_set_session(ssl_, session.get());  // Takes its own reference.
  }
}

TlsClientEngine::~TlsClientEngine() {
  // OpenSSL marks the session unresumable when an SSL is freed without close_notify, as TLS 1.0
  // required. Since TLS 1.1 an unclean close need not prevent resumption, and HTTP clients close
  // without close_notify routinely (Chrome does): only a fatal error should cost the session.
  if (ssl_ && handshake_done_ && !fatal_error_) {
    SSL_set_shutdown(ssl_, SSL_get_shutdown(ssl_) | SSL_SENT_SHUTDOWN);
  }
  SSL_free(ssl_);  // Frees the internal BIO too.
  BIO_free(network_bio_);
}

int TlsClientEngine::Handshake() {
  if (init_result_ != OK) return init_result_;
  if (handshake_done_) return OK;
  ERR_clear_error();
  int rv = SSL_do_handshake(ssl_);
  if (rv == 1) {
    handshake_done_ = true;
    want_ = Want::kNothing;
    return OK;
  }
  int result = MapError(SSL_get_error(ssl_, rv), /*in_handshake=*/true);
  if (result != ERR_IO_PENDING) context_->RemoveSession(session_key_);
  return result;
}

int TlsClientEngine::Read(char* buf, int len) {
  if (init_result_ != OK) return init_result_;
  ERR_clear_error();
  int rv = SSL_read(ssl_, buf, len);
  if (rv > 0) {
    want_ = Want::kNothing;
    return rv;
  }
  return MapError(SSL_get_error(ssl_, rv), /*in_handshake=*/false);
}

int TlsClientEngine::Peek() {
  if (init_result_ != OK) return init_result_;
  ERR_clear_error();
  char byte;
  int rv = SSL_peek(ssl_, &byte, 1);
  if (rv > 0) {
    want_ = Want::kNothing;
    return 1;
  }
  return MapError(SSL_get_error(ssl_, rv), /*in_handshake=*/false);
}

int TlsClientEngine::Write(const char* data, int len) {
  if (init_result_ != OK) return init_result_;
  ERR_clear_error();
  int rv = SSL_write(ssl_, data, len);
  if (rv > 0) {
    want_ = Want::kNothing;
    return rv;
  }
  return MapError(SSL_get_error(ssl_, rv), /*in_handshake=*/false);
}

int TlsClientEngine::MapError(int ssl_error, bool in_handshake) {
  switch (ssl_error) {
    case SSL_ERROR_WANT_READ:
      want_ = Want::kInput;
      return ERR_IO_PENDING;
    case SSL_ERROR_WANT_WRITE:
      want_ = Want::kOutputSpace;
      return ERR_IO_PENDING;
    case SSL_ERROR_ZERO_RETURN:  // close_notify: a clean end of stream.
      want_ = Want::kNothing;
      if (!in_handshake) return 0;
      last_error_detail_ = "the server closed the connection during the handshake";
      return ERR_CONNECTION_CLOSED;
    default:
      break;
  }
  want_ = Want::kNothing;
  fatal_error_ = true;
  if (in_handshake && context_->config().verify_peer) {
    long verify = SSL_get_verify_result(ssl_);
    if (verify != X509_V_OK) {
      last_error_detail_ = X509_verify_cert_error_string(verify);
      ERR_clear_error();
      return MapVerifyResult(verify);
    }
  }
  // The first queued error is the cause; later ones are consequences.
  unsigned long error = ERR_peek_error();
  char buf[256] = {};
  if (error != 0) {
    ERR_error_string_n(error, buf, sizeof(buf));
    last_error_detail_ = buf;
  } else {
    last_error_detail_ = "TLS failure (SSL_get_error " + std::to_string(ssl_error) + ")";
  }
  ERR_clear_error();
  return in_handshake && IsVersionOrCipherMismatch(error) ? ERR_SSL_VERSION_OR_CIPHER_MISMATCH
                                                          : ERR_SSL_PROTOCOL_ERROR;
}

size_t TlsClientEngine::InputSpace() const {
  return network_bio_ ? BIO_ctrl_get_write_guarantee(network_bio_) : 0;
}

size_t TlsClientEngine::FeedInput(const char* data, size_t len) {
  size_t n = std::min({len, InputSpace(), static_cast<size_t>(INT_MAX)});
  if (n == 0) return 0;
  int rv = BIO_write(network_bio_, data, static_cast<int>(n));
  return rv > 0 ? static_cast<size_t>(rv) : 0;
}

size_t TlsClientEngine::OutputPending() const {
  return network_bio_ ? BIO_ctrl_pending(network_bio_) : 0;
}

size_t TlsClientEngine::TakeOutput(char* buf, size_t len) {
  if (OutputPending() == 0 || len == 0) return 0;
  int rv = BIO_read(network_bio_, buf, static_cast<int>(std::min(len, size_t{INT_MAX})));
  return rv > 0 ? static_cast<size_t>(rv) : 0;
}

bool TlsClientEngine::HasBufferedInput() const {
  if (!ssl_) return false;
  // Decrypted or partly processed records inside the SSL, or ciphertext still in the BIO pair.
  return SSL_has_pending(ssl_) || BIO_ctrl_pending(SSL_get_rbio(ssl_)) > 0;
}

bool TlsClientEngine::session_resumed() const {
  return handshake_done_ && SSL_session_reused(ssl_) == 1;
}

std::string TlsClientEngine::version() const {
  return handshake_done_ ? SSL_get_version(ssl_) : std::string();
}

std::string TlsClientEngine::cipher() const {
  const SSL_CIPHER* cipher = handshake_done_ ? SSL_get_current_cipher(ssl_) : nullptr;
  return cipher ? SSL_CIPHER_get_name(cipher) : std::string();
}

bool TlsClientEngine::CertificateCoversHost(const std::string& host) const {
  if (!ssl_ || !handshake_done_ || !context_->config().verify_peer) return false;
  X509* cert = SSL_get0_peer_certificate(ssl_);
  if (!cert) return false;
  if (IPAddress::Parse(host)) return X509_check_ip_asc(cert, host.c_str(), 0) == 1;
  return X509_check_host(cert, host.data(), host.size(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS,
                         nullptr) == 1;
}

std::string TlsClientEngine::negotiated_protocol() const {
  const unsigned char* data = nullptr;
  unsigned int len = 0;
  if (ssl_) SSL_get0_alpn_selected(ssl_, &data, &len);
  return data ? std::string(reinterpret_cast<const char*>(data), len) : std::string();
}

}  // namespace netstack
