#include "net/socket/ssl_client_context.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "net/base/net_error.h"

namespace netstack {

namespace {

// ex_data slots: the SslClientContext on the SSL_CTX, the session key on each SSL.
int ContextIndex() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

int KeyIndex() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

std::string LastOpenSslError() {
  unsigned long e = ERR_peek_last_error();
  char buf[256] = {};
  if (e != 0) ERR_error_string_n(e, buf, sizeof(buf));
  ERR_clear_error();
  return buf;
}

// ALPN wire format: each protocol name prefixed with its length.
std::string AlpnWireFormat(const std::vector<std::string>& protocols) {
  std::string wire;
  for (const std::string& p : protocols) {
    if (p.empty() || p.size() > 255) continue;
    wire += static_cast<char>(p.size());
    wire += p;
  }
  return wire;
}

// Where the system store is, as SSL_CTX_set_default_verify_paths defines it: the bundle file
// SSL_CERT_FILE names (`*file`, empty if unset) and the hashed certificate directory (`*dir`,
// empty if it is not a directory). Nothing is parsed here. Returns false (errno set) when
// SSL_CERT_FILE names a file that cannot be read: the user's environment is wrong, which is an
// error at start, naming the file.
bool FindSystemTrustStore(std::string* file, std::string* dir) {
  const char* file_env = std::getenv(X509_get_default_cert_file_env());
  const char* dir_env = std::getenv(X509_get_default_cert_dir_env());
  const char* dir_path = dir_env ? dir_env : X509_get_default_cert_dir();
  struct stat st;
  if (stat(dir_path, &st) == 0 && S_ISDIR(st.st_mode)) *dir = dir_path;
  if (!file_env) return true;
  *file = file_env;
  return access(file_env, R_OK) == 0;
}

}  // namespace

std::unique_ptr<SslClientContext> SslClientContext::Create(const SslConfig& config,
                                                           std::string* error, size_t max_sessions,
                                                           const Clock* clock) {
  int max_version;
  if (config.max_version == "1.3") {
    max_version = TLS1_3_VERSION;
  } else if (config.max_version == "1.2") {
    max_version = TLS1_2_VERSION;
  } else {
    *error = "unsupported TLS version \"" + config.max_version + "\" (use 1.2 or 1.3)";
    return nullptr;
  }
  auto context = std::unique_ptr<SslClientContext>(
      new SslClientContext(config, max_version, max_sessions, clock));

  if (!config.verify_peer) return context;  // Nothing to load: the SSL_CTX waits.
  if (config.ca_file.empty()) {
    if (!FindSystemTrustStore(&context->trust_file_, &context->trust_dir_)) {
      *error = "cannot read the CA bundle SSL_CERT_FILE names (" + context->trust_file_ +
               "): " + std::strerror(errno);
      return nullptr;
    }
    return context;  // Parsed with the SSL_CTX, at the first TLS connection.
  }
  // The user named the file: it is read now, so a bad one stops the run before any request.
  std::string failure = context->NewSslCtx();
  if (!failure.empty()) {
    *error = failure;
    return nullptr;
  }
  if (SSL_CTX_load_verify_locations(context->ctx_, config.ca_file.c_str(), nullptr) != 1) {
    *error = "cannot load CA file " + config.ca_file + ": " + LastOpenSslError();
    return nullptr;  // The destructor frees ctx_.
  }
  return context;
}

std::string SslClientContext::NewSslCtx() {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) return "cannot create a TLS context: " + LastOpenSslError();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(ctx, max_version_);
  // Partial writes let SslClientSocket::Write return after one record; the moving buffer lets a
  // retried SSL_write come from the same bytes at another address (the contract allows it).
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_verify(ctx, config_.verify_peer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
  const std::string alpn = AlpnWireFormat(config_.alpn);
  // 0 is success here.
  if (SSL_CTX_set_alpn_protos(ctx, reinterpret_cast<const unsigned char*>(alpn.data()),
                              static_cast<unsigned>(alpn.size())) != 0) {
    std::string failure = "cannot set ALPN: " + LastOpenSslError();
    SSL_CTX_free(ctx);
    return failure;
  }
  // Sessions are stored by our callback only (keyed by host:port), never in OpenSSL's internal
  // cache, which would key them by session id.
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
  SSL_CTX_sess_set_new_cb(ctx, &SslClientContext::OnNewSession);
  SSL_CTX_set_ex_data(ctx, ContextIndex(), this);
  ctx_ = ctx;
  return std::string();
}

SSL_CTX* SslClientContext::ssl_ctx() {
  if (!ctx_ && ssl_ctx_error_ == OK) CreateDeferredSslCtx();
  return ssl_ctx_error_ == OK ? ctx_ : nullptr;
}

void SslClientContext::CreateDeferredSslCtx() {
  std::string failure = NewSslCtx();
  if (!failure.empty()) {
    ssl_ctx_error_ = ERR_FAILED;
    ssl_ctx_error_detail_ = std::move(failure);
    return;
  }
  if (!config_.verify_peer) return;
  // The directory is looked up lazily, per issuer; the bundle is parsed now (about 60 ms for
  // Debian's 140 CAs). Without either, OpenSSL's built-in defaults.
  bool ok = true;
  std::string what;
  if (trust_dir_.empty() && trust_file_.empty()) {
    ok = SSL_CTX_set_default_verify_paths(ctx_) == 1;
    what = "OpenSSL's default paths";
  }
  if (ok && !trust_dir_.empty()) {
    ok = SSL_CTX_load_verify_dir(ctx_, trust_dir_.c_str()) == 1;
    what = trust_dir_;
  }
  if (ok && !trust_file_.empty()) {
    ok = SSL_CTX_load_verify_file(ctx_, trust_file_.c_str()) == 1;
    what = trust_file_;
  }
  if (!ok) {
    // Without its trust anchors no certificate can verify.
    ssl_ctx_error_ = ERR_CERT_AUTHORITY_INVALID;
    ssl_ctx_error_detail_ = "cannot load the system CA store: " + what + ": " + LastOpenSslError();
  }
}

SslClientContext::SslClientContext(const SslConfig& config, int max_version, size_t max_sessions,
                                   const Clock* clock)
    : config_(config),
      max_version_(max_version),
      sessions_(clock ? *clock : system_clock_, max_sessions) {}

SslClientContext::~SslClientContext() {
  if (!ctx_) return;
  // Live SSL objects may still hold the SSL_CTX: make their session callbacks find no cache.
  SSL_CTX_set_ex_data(ctx_, ContextIndex(), nullptr);
  SSL_CTX_free(ctx_);
}

void SslClientContext::SetSessionKey(SSL* ssl, const std::string* key) {
  SSL_set_ex_data(ssl, KeyIndex(), const_cast<std::string*>(key));
}

int SslClientContext::OnNewSession(SSL* ssl, SSL_SESSION* session) {
  auto* context =
      static_cast<SslClientContext*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ContextIndex()));
  auto* key = static_cast<const std::string*>(SSL_get_ex_data(ssl, KeyIndex()));
  if (!context || !key || !context->config_.enable_session_cache) return 0;
  if (!SSL_SESSION_is_resumable(session)) return 0;
  // Returning 1 hands us the callback's reference.
  context->InsertSession(*key, SslSessionPtr(session));
  return 1;
}

SslSessionPtr SslClientContext::LookupSession(const std::string& key) {
  if (!config_.enable_session_cache) return SslSessionPtr();
  std::optional<SslSessionPtr> session = sessions_.Lookup(key);
  if (!session) return SslSessionPtr();
  // OpenSSL marks a session unresumable after a fatal alert on a connection that used it. A
  // TLS 1.3 ticket left the cache when it was taken, and the server's other ticket (a separate
  // session) stays; a reusable TLS 1.2 session is still stored and goes now.
  if (!SSL_SESSION_is_resumable(session->get())) {
    if (SSL_SESSION_get_protocol_version(session->get()) < TLS1_3_VERSION) sessions_.Remove(key);
    return SslSessionPtr();
  }
  return std::move(*session);
}

void SslClientContext::InsertSession(const std::string& key, SslSessionPtr session) {
  if (!config_.enable_session_cache || !session) return;
  SSL_SESSION* s = session.get();
  SslSessionValidity validity;
  validity.issued = TimeFromUnixSeconds(static_cast<int64_t>(SSL_SESSION_get_time(s)));
  validity.expires = validity.issued + Seconds(static_cast<int64_t>(SSL_SESSION_get_timeout(s)));
  validity.single_use = SSL_SESSION_get_protocol_version(s) >= TLS1_3_VERSION;
  sessions_.Insert(key, std::move(session), validity);
}

void SslClientContext::RemoveSession(const std::string& key) { sessions_.Remove(key); }

void SslClientContext::ClearSessionCache() { sessions_.Clear(); }

}  // namespace netstack
