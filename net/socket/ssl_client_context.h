// The TLS client settings of one stack: one OpenSSL SSL_CTX built from an SslConfig (versions,
// trust store, ALPN) and the client session cache, keyed by "host:port" like Chrome's
// SSLClientSessionCache, so a second connection to the same server resumes its session.
#ifndef NET_SOCKET_SSL_CLIENT_CONTEXT_H_
#define NET_SOCKET_SSL_CLIENT_CONTEXT_H_

#include <openssl/ssl.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "net/socket/ssl_config.h"

namespace netstack {

// Frees an SSL_SESSION reference.
struct SslSessionDeleter {
  void operator()(SSL_SESSION* session) const { SSL_SESSION_free(session); }
};
using SslSessionPtr = std::unique_ptr<SSL_SESSION, SslSessionDeleter>;

class SslClientContext {
 public:
  // Chrome's session cache holds 1000 entries; the least recently used one is evicted first.
  static constexpr size_t kDefaultMaxSessions = 1000;

  // Builds the SSL_CTX: TLS 1.2 minimum, `config.max_version` ("1.2" or "1.3") maximum, trust
  // from `config.ca_file` or the system store, no verification when `!config.verify_peer`,
  // ALPN "http/1.1". Returns null and sets `*error` (a one-line message) when the config cannot
  // be applied: an unknown max_version or an unreadable/invalid CA file.
  static std::unique_ptr<SslClientContext> Create(const SslConfig& config, std::string* error,
                                                  size_t max_sessions = kDefaultMaxSessions);
  // Sockets still alive keep the SSL_CTX itself (OpenSSL reference counting), but their new
  // sessions are no longer cached once the context is gone.
  ~SslClientContext();

  SslClientContext(const SslClientContext&) = delete;
  SslClientContext& operator=(const SslClientContext&) = delete;

  const SslConfig& config() const { return config_; }
  // The SSL_CTX for a new connection. The first call parses the CA bundle SSL_CERT_FILE names
  // (deferred from Create so that a process speaking only plain HTTP never pays for it); if
  // that fails, trust_store_error() says why and connections must not proceed.
  SSL_CTX* ssl_ctx();
  // Empty, or a one-line message when the deferred CA bundle could not be loaded.
  const std::string& trust_store_error() const { return trust_store_error_; }
  // Whether a CA bundle is still waiting to be parsed (for tests of the deferral).
  bool trust_store_deferred() const { return !deferred_trust_file_.empty(); }

  // The session cache key of a server: "host:port" ("[::1]:443" for IPv6 literals).
  static std::string SessionKey(const std::string& host, uint16_t port);

  // Makes new sessions negotiated on `ssl` land under `*key` (which must outlive `ssl`).
  static void SetSessionKey(SSL* ssl, const std::string* key);

  // A session to offer for `key`, or null (none, expired, or caching disabled). TLS 1.3 sessions
  // are removed on lookup (tickets are single-use, RFC 8446 C.4); the server sends fresh ones.
  SslSessionPtr LookupSession(const std::string& key);
  // Stores `session` as the latest for `key` (replacing any older one; evicting the least
  // recently used key beyond the bound). Ignored when the config disables the cache.
  void InsertSession(const std::string& key, SslSessionPtr session);
  // Forgets `key` (after a failed handshake, so it is not offered again).
  void RemoveSession(const std::string& key);
  // Forgets every session (a flush).
  void ClearSessionCache();
  size_t session_count() const { return lru_.size(); }

 private:
  struct Entry {
    std::string key;
    SslSessionPtr session;
  };

  SslClientContext(const SslConfig& config, SSL_CTX* ctx, size_t max_sessions);
  // OpenSSL's new-session callback: takes the session's reference when it stores it.
  static int OnNewSession(SSL* ssl, SSL_SESSION* session);

  const SslConfig config_;
  SSL_CTX* ctx_;  // One reference owned.
  const size_t max_sessions_;
  // Parses deferred_trust_file_ into ctx_ once.
  void EnsureTrustStore();
  std::string deferred_trust_file_;  // SSL_CERT_FILE, not parsed yet.
  std::string trust_store_error_;
  std::list<Entry> lru_;  // Front = most recently used.
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace netstack

#endif  // NET_SOCKET_SSL_CLIENT_CONTEXT_H_
