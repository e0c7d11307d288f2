// The TLS client settings of one stack: one OpenSSL SSL_CTX built from an SslConfig (versions,
// trust store, ALPN; made at the first TLS connection unless a CA file was named) and the
// stack's SslClientSessionCache of OpenSSL sessions, so a second connection to the same server
// resumes its session.
#ifndef NET_SOCKET_SSL_CLIENT_CONTEXT_H_
#define NET_SOCKET_SSL_CLIENT_CONTEXT_H_

#include <openssl/ssl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "net/base/clock.h"
#include "net/socket/ssl_client_session_cache.h"
#include "net/socket/ssl_config.h"

namespace netstack {

// One reference to an OpenSSL session (or none). A copy takes another reference
// (SSL_SESSION_up_ref): that is how the session cache hands out a TLS 1.2 session it keeps,
// without allocating.
class SslSessionPtr {
 public:
  SslSessionPtr() = default;
  // Adopts one reference of `session` (may be null).
  explicit SslSessionPtr(SSL_SESSION* session) : session_(session) {}
  SslSessionPtr(const SslSessionPtr& other) : session_(other.session_) {
    if (session_) SSL_SESSION_up_ref(session_);
  }
  SslSessionPtr(SslSessionPtr&& other) noexcept
      : session_(std::exchange(other.session_, nullptr)) {}
  SslSessionPtr& operator=(SslSessionPtr other) noexcept {
    std::swap(session_, other.session_);
    return *this;
  }
  ~SslSessionPtr() {
    if (session_) SSL_SESSION_free(session_);
  }

  // The session, still owned by this reference (null when empty).
  SSL_SESSION* get() const { return session_; }
  // Whether it holds a session.
  explicit operator bool() const { return session_ != nullptr; }
  bool operator==(std::nullptr_t) const { return session_ == nullptr; }

 private:
  SSL_SESSION* session_ = nullptr;
};

class SslClientContext {
 public:
  using SessionCache = SslClientSessionCache<SslSessionPtr>;
  static constexpr size_t kDefaultMaxSessions = kDefaultSslSessionCacheSize;

  // Checks `config` and prepares the SSL_CTX: TLS 1.2 minimum, `config.max_version` ("1.2" or
  // "1.3") maximum, trust from `config.ca_file` or the system store, no verification when
  // `!config.verify_peer`, ALPN `config.alpn`. Returns null and sets `*error` (a one-line message)
  // when the config cannot be applied: an unknown max_version, an unreadable/invalid CA file
  // (`ca_file`, loaded here because the user named it), or an unreadable SSL_CERT_FILE.
  // Without a `ca_file` the SSL_CTX itself is made at the first TLS connection (ssl_ctx()):
  // SSL_CTX_new and the system store cost more than the rest of a cached or plain-HTTP run.
  // Sessions are kept up to `max_sessions` and judged against `clock` (which must outlive the
  // context; null: the system clock).
  static std::unique_ptr<SslClientContext> Create(const SslConfig& config, std::string* error,
                                                  size_t max_sessions = kDefaultMaxSessions,
                                                  const Clock* clock = nullptr);
  // Sockets still alive keep the SSL_CTX itself (OpenSSL reference counting), but their new
  // sessions are no longer cached once the context is gone.
  ~SslClientContext();

  SslClientContext(const SslClientContext&) = delete;
  SslClientContext& operator=(const SslClientContext&) = delete;

  const SslConfig& config() const { return config_; }
  // The SSL_CTX for a new connection (owned by this context). The first call makes it if Create
  // did not: SSL_CTX_new, the system store's directory, and the CA bundle SSL_CERT_FILE names.
  // Returns null when that failed, then and on every later call: ssl_ctx_error() and
  // ssl_ctx_error_detail() say why, and connections must fail with them.
  SSL_CTX* ssl_ctx();
  // OK, or the net error of a failed ssl_ctx(): ERR_CERT_AUTHORITY_INVALID when the system
  // trust store could not be loaded (no certificate could verify), ERR_FAILED when OpenSSL
  // could not make the context at all.
  int ssl_ctx_error() const { return ssl_ctx_error_; }
  // Empty, or a one-line message naming what failed ("cannot load the system CA store: FILE:
  // ...", "cannot create a TLS context: ...").
  const std::string& ssl_ctx_error_detail() const { return ssl_ctx_error_detail_; }
  // Whether the SSL_CTX exists yet (for tests of the deferral).
  bool ssl_ctx_created() const { return ctx_ != nullptr; }
  // Whether a CA bundle (SSL_CERT_FILE) is still waiting to be parsed (for tests).
  bool trust_store_deferred() const { return !ctx_ && !trust_file_.empty(); }

  // Makes new sessions negotiated on `ssl` land under `*key` (an SslSessionCacheKey, which must
  // outlive `ssl`).
  static void SetSessionKey(SSL* ssl, const std::string* key);

  // A session to offer for `key`, or null (none, expired, marked unresumable by OpenSSL after a
  // fatal alert, or caching disabled). TLS 1.3 sessions are removed on lookup (tickets are
  // single-use, RFC 8446 C.4); the server sends fresh ones. A TLS 1.2 session stays cached.
  SslSessionPtr LookupSession(const std::string& key);
  // Stores `session` as the latest for `key` (see SslClientSessionCache::Insert), valid from
  // its time for its timeout (OpenSSL's, which a TLS 1.3 ticket's lifetime sets), single-use
  // from TLS 1.3 on. Ignored when the config disables the cache.
  void InsertSession(const std::string& key, SslSessionPtr session);
  // Forgets `key` (after a failed handshake, so it is not offered again).
  void RemoveSession(const std::string& key);
  // Forgets every session (a flush).
  void ClearSessionCache();
  // Servers with a session stored (SslClientSessionCache::size).
  size_t session_count() const { return sessions_.size(); }

 private:
  SslClientContext(const SslConfig& config, int max_version, size_t max_sessions,
                   const Clock* clock);
  // Makes ctx_ with every setting but trust; returns an empty string or why it failed.
  std::string NewSslCtx();
  // Makes ctx_ and loads the system store (directory, then the SSL_CERT_FILE bundle) at the
  // first ssl_ctx() call; on failure sets ssl_ctx_error_ and its detail.
  void CreateDeferredSslCtx();
  // OpenSSL's new-session callback: takes the session's reference when it stores it.
  static int OnNewSession(SSL* ssl, SSL_SESSION* session);

  const SslConfig config_;
  const int max_version_;   // TLS1_2_VERSION or TLS1_3_VERSION
  SSL_CTX* ctx_ = nullptr;  // One reference owned; null until made.
  // The system store, found at Create: the bundle SSL_CERT_FILE names (empty if unset) and the
  // hashed certificate directory (empty if none is usable).
  std::string trust_file_;
  std::string trust_dir_;
  int ssl_ctx_error_ = 0;  // OK
  std::string ssl_ctx_error_detail_;
  const SystemClock system_clock_;  // When Create was given no clock.
  SessionCache sessions_;
};

}  // namespace netstack

#endif  // NET_SOCKET_SSL_CLIENT_CONTEXT_H_
