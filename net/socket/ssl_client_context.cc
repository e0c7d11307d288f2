#include "net/socket/ssl_client_context.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <utility>

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

// ALPN wire format: length-prefixed protocol names. HTTP/1.1 is all the stack speaks.
constexpr unsigned char kAlpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

// The system store, as SSL_CTX_set_default_verify_paths defines it, but without parsing the
// whole bundle file up front (about 60 ms for Debian's 140 CAs, paid by every process, even one
// that only speaks plain HTTP): the hashed certificate directory is looked up lazily, per
// issuer. The bundle file SSL_CERT_FILE names is only checked for readability here; its parsing
// is left in `*deferred_file` for the first TLS connection (EnsureTrustStore). When there is no
// usable directory and no SSL_CERT_FILE, OpenSSL's defaults are loaded at once. Returns 0 with
// `*deferred_file` set (and errno) when SSL_CERT_FILE cannot be read.
int LoadSystemTrustStore(SSL_CTX* ctx, std::string* deferred_file) {
  const char* file = std::getenv(X509_get_default_cert_file_env());
  const char* dir = std::getenv(X509_get_default_cert_dir_env());
  if (!dir) dir = X509_get_default_cert_dir();
  struct stat st;
  const bool dir_usable = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
  if (!dir_usable && !file) return SSL_CTX_set_default_verify_paths(ctx);
  if (file) {
    // Unreadable is an error now (naming the file), as it was when the file was parsed here.
    *deferred_file = file;
    if (access(file, R_OK) != 0) return 0;
  }
  if (dir_usable && SSL_CTX_load_verify_dir(ctx, dir) != 1) {
    deferred_file->clear();  // The failure is OpenSSL's (its error queue says why), not the file's.
    return 0;
  }
  return 1;
}

}  // namespace

std::unique_ptr<SslClientContext> SslClientContext::Create(const SslConfig& config,
                                                           std::string* error,
                                                           size_t max_sessions) {
  int max_version;
  if (config.max_version == "1.3") {
    max_version = TLS1_3_VERSION;
  } else if (config.max_version == "1.2") {
    max_version = TLS1_2_VERSION;
  } else {
    *error = "unsupported TLS version \"" + config.max_version + "\" (use 1.2 or 1.3)";
    return nullptr;
  }

  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) {
    *error = "cannot create a TLS context: " + LastOpenSslError();
    return nullptr;
  }
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(ctx, max_version);
  // Partial writes let SslClientSocket::Write return after one record; the moving buffer lets a
  // retried SSL_write come from the same bytes at another address (the contract allows it).
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);

  std::string deferred_trust_file;
  if (config.verify_peer) {
    int ok = config.ca_file.empty()
                 ? LoadSystemTrustStore(ctx, &deferred_trust_file)
                 : SSL_CTX_load_verify_locations(ctx, config.ca_file.c_str(), nullptr);
    if (ok != 1 && !deferred_trust_file.empty()) {
      *error = "cannot read the CA bundle SSL_CERT_FILE names (" + deferred_trust_file +
               "): " + std::strerror(errno);
      SSL_CTX_free(ctx);
      return nullptr;
    }
    if (ok != 1) {
      *error = config.ca_file.empty() ? "cannot load the system CA store: "
                                      : "cannot load CA file " + config.ca_file + ": ";
      *error += LastOpenSslError();
      SSL_CTX_free(ctx);
      return nullptr;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }

  if (SSL_CTX_set_alpn_protos(ctx, kAlpn, sizeof(kAlpn)) != 0) {  // 0 is success here.
    *error = "cannot set ALPN: " + LastOpenSslError();
    SSL_CTX_free(ctx);
    return nullptr;
  }

  // Sessions are stored by our callback only (keyed by host:port), never in OpenSSL's internal
  // cache, which would key them by session id.
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
  SSL_CTX_sess_set_new_cb(ctx, &SslClientContext::OnNewSession);

  auto context = std::unique_ptr<SslClientContext>(new SslClientContext(config, ctx, max_sessions));
  SSL_CTX_set_ex_data(ctx, ContextIndex(), context.get());
  context->deferred_trust_file_ = std::move(deferred_trust_file);
  return context;
}

SSL_CTX* SslClientContext::ssl_ctx() {
  EnsureTrustStore();
  return ctx_;
}

void SslClientContext::EnsureTrustStore() {
  if (deferred_trust_file_.empty()) return;
  std::string file = std::move(deferred_trust_file_);
  deferred_trust_file_.clear();
  if (SSL_CTX_load_verify_file(ctx_, file.c_str()) != 1)
    trust_store_error_ = "cannot load the system CA store: " + file + ": " + LastOpenSslError();
}

SslClientContext::SslClientContext(const SslConfig& config, SSL_CTX* ctx, size_t max_sessions)
    : config_(config), ctx_(ctx), max_sessions_(max_sessions == 0 ? 1 : max_sessions) {}

SslClientContext::~SslClientContext() {
  // Live SSL objects may still hold the SSL_CTX: make their session callbacks find no cache.
  SSL_CTX_set_ex_data(ctx_, ContextIndex(), nullptr);
  SSL_CTX_free(ctx_);
}

std::string SslClientContext::SessionKey(const std::string& host, uint16_t port) {
  bool ipv6_literal = !host.empty() && host.find(':') != std::string::npos && host.front() != '[';
  return (ipv6_literal ? "[" + host + "]" : host) + ":" + std::to_string(port);
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
  if (!config_.enable_session_cache) return nullptr;
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  SSL_SESSION* session = it->second->session.get();
  const long now = static_cast<long>(std::time(nullptr));
  const long start = static_cast<long>(SSL_SESSION_get_time(session));
  const long timeout = static_cast<long>(SSL_SESSION_get_timeout(session));
  // OpenSSL marks a session unresumable after a fatal alert on its connection.
  if (now < start || now >= start + timeout || !SSL_SESSION_is_resumable(session)) {
    RemoveSession(key);
    return nullptr;
  }
  if (SSL_SESSION_get_protocol_version(session) >= TLS1_3_VERSION) {
    SslSessionPtr taken = std::move(it->second->session);
    lru_.erase(it->second);
    index_.erase(it);
    return taken;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  SSL_SESSION_up_ref(session);
  return SslSessionPtr(session);
}

void SslClientContext::InsertSession(const std::string& key, SslSessionPtr session) {
  if (!config_.enable_session_cache || !session) return;
  auto it = index_.find(key);
  if (it != index_.end()) {
    it->second->session = std::move(session);
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.push_front(Entry{key, std::move(session)});
  index_[key] = lru_.begin();
  while (lru_.size() > max_sessions_) {
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

void SslClientContext::RemoveSession(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return;
  lru_.erase(it->second);
  index_.erase(it);
}

void SslClientContext::ClearSessionCache() {
  index_.clear();
  lru_.clear();
}

}  // namespace netstack
