// The TLS client protocol with no I/O of its own (in the style of nghttp2's session): OpenSSL
// runs over a bounded BIO pair, the owner feeds it ciphertext that arrived (FeedInput) and sends
// the ciphertext it produced (TakeOutput). SslClientSocket drives it over a StreamSocket; tests
// drive it against an in-memory server without any socket.
#ifndef NET_SOCKET_TLS_CLIENT_ENGINE_H_
#define NET_SOCKET_TLS_CLIENT_ENGINE_H_

#include <openssl/ssl.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "net/base/net_error.h"

namespace netstack {

class SslClientContext;

class TlsClientEngine {
 public:
  // What an operation that returned ERR_IO_PENDING waits for.
  enum class Want {
    kNothing,
    kInput,        // More ciphertext from the peer (FeedInput).
    kOutputSpace,  // The outgoing buffer is full: TakeOutput and send it first.
  };

  // Each direction buffers at most this much ciphertext (one TLS record and a bit).
  static constexpr size_t kBufferSize = 17 * 1024;

  // A client for `host` (a DNS name, or an IP literal with or without brackets: then no SNI and
  // the certificate must carry the IP) on `port` (with `host`, the session cache key). Offers the
  // cached session for that key if any. `context` must outlive the engine.
  TlsClientEngine(SslClientContext* context, const std::string& host, uint16_t port);
  ~TlsClientEngine();

  TlsClientEngine(const TlsClientEngine&) = delete;
  TlsClientEngine& operator=(const TlsClientEngine&) = delete;

  // OK once the engine could be created; an error means it is unusable and last_error_detail()
  // says why: the context's ssl_ctx_error() when its deferred SSL_CTX or trust store could not be
  // made (ERR_CERT_AUTHORITY_INVALID, ERR_FAILED), ERR_OUT_OF_MEMORY, ERR_INVALID_ARGUMENT.
  int init_result() const { return init_result_; }

  // Advances the handshake. OK when done; ERR_IO_PENDING when blocked (see want()); otherwise a
  // net error: ERR_CERT_* for a verification failure, ERR_SSL_VERSION_OR_CIPHER_MISMATCH,
  // ERR_SSL_PROTOCOL_ERROR; last_error_detail() then says why. A failed handshake also forgets
  // the cached session for this server.
  int Handshake();
  // Decrypts up to `len` bytes: the count, 0 after the peer's close_notify, ERR_IO_PENDING
  // (see want()) or ERR_SSL_PROTOCOL_ERROR.
  int Read(char* buf, int len);
  // Processes received records without consuming application data (post-handshake messages
  // such as TLS 1.3 session tickets are handled here): 1 if plaintext is waiting, 0 after the
  // peer's close_notify, ERR_IO_PENDING (see want()) or ERR_SSL_PROTOCOL_ERROR.
  int Peek();
  // Encrypts up to `len` bytes: the count consumed (at least one record's worth when > 0),
  // ERR_IO_PENDING (see want(); retry with the same bytes) or ERR_SSL_PROTOCOL_ERROR.
  int Write(const char* data, int len);
  Want want() const { return want_; }

  // Ciphertext plumbing. FeedInput copies at most InputSpace() bytes and returns the count.
  // InputSpace() decreases only through FeedInput (the engine's own processing only frees
  // space), so a caller that reads at most InputSpace() bytes and feeds nothing else in
  // between can always feed all of them (SslClientSocket relies on this).
  size_t InputSpace() const;
  size_t FeedInput(const char* data, size_t len);
  // Bytes waiting to be sent, and a way to take them (returns the count copied).
  size_t OutputPending() const;
  size_t TakeOutput(char* buf, size_t len);
  // True while received bytes (ciphertext or decrypted plaintext) have not been read out.
  bool HasBufferedInput() const;

  bool handshake_done() const { return handshake_done_; }
  bool session_resumed() const;
  std::string version() const;              // "TLSv1.3"; empty before the handshake.
  std::string cipher() const;               // "TLS_AES_128_GCM_SHA256"
  std::string negotiated_protocol() const;  // ALPN: "h2", "http/1.1" or empty.
  // The server's certificate (verified, when the context verifies) names `host` (a DNS name,
  // wildcards as RFC 6125 allows, or an IP literal): whether a connection made for another name
  // may carry `host`'s requests too (HTTP/2 coalescing). False before the handshake, and when
  // verification is off (an unverified certificate proves nothing).
  bool CertificateCoversHost(const std::string& host) const;
  const std::string& session_key() const { return session_key_; }
  // Why the last operation failed: the X.509 verification error string or OpenSSL's reason.
  const std::string& last_error_detail() const { return last_error_detail_; }

 private:
  // Maps a failed operation (SSL_get_error code) to a net error and fills last_error_detail_.
  int MapError(int ssl_error, bool in_handshake);

  SslClientContext* const context_;
  const std::string session_key_;  // Referenced by the SSL's ex_data: declared before ssl_.
  SSL* ssl_ = nullptr;
  BIO* network_bio_ = nullptr;  // Our end of the BIO pair; the SSL owns the other end.
  int init_result_ = OK;
  Want want_ = Want::kNothing;
  bool handshake_done_ = false;
  bool fatal_error_ = false;  // The session must not be resumed.
  std::string last_error_detail_;
};

}  // namespace netstack

#endif  // NET_SOCKET_TLS_CLIENT_ENGINE_H_
