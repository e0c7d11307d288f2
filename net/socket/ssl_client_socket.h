// TLS over any connected StreamSocket (live: UvTcpClientSocket). The protocol itself lives in a
// TlsClientEngine (no I/O); this class only moves ciphertext between the engine and the
// transport and keeps the StreamSocket contract: a result now or ERR_IO_PENDING and a callback
// later, never a callback inside a call, nothing after destruction.
#ifndef NET_SOCKET_SSL_CLIENT_SOCKET_H_
#define NET_SOCKET_SSL_CLIENT_SOCKET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/weak_ptr.h"
#include "net/socket/stream_socket.h"
#include "net/socket/tls_client_engine.h"

namespace netstack {

class SslClientContext;

class SslClientSocket : public StreamSocket {
 public:
  // Wraps `transport` (connected; owned) for `host` (SNI and certificate name; an IP literal is
  // matched against the certificate's IP addresses) and `port` (with host, the session cache
  // key). `context` must outlive this socket. Events are logged on the transport's source; the
  // `fallback_net_log` is used only if the transport has none.
  SslClientSocket(std::unique_ptr<StreamSocket> transport, SslClientContext* context,
                  const std::string& host, uint16_t port,
                  const NetLogWithSource& fallback_net_log = NetLogWithSource());
  // Destroys the transport first (cancelling its callbacks); pending callbacks never run.
  ~SslClientSocket() override;

  SslClientSocket(const SslClientSocket&) = delete;
  SslClientSocket& operator=(const SslClientSocket&) = delete;

  // Runs the handshake, offering a cached session for host:port. OK, ERR_IO_PENDING then the
  // callback with OK or an error: ERR_CERT_AUTHORITY_INVALID / _COMMON_NAME_INVALID /
  // _DATE_INVALID / _INVALID, ERR_SSL_VERSION_OR_CIPHER_MISMATCH, ERR_SSL_PROTOCOL_ERROR,
  // ERR_CONNECTION_CLOSED (EOF mid-handshake) or the transport's error. Logs SSL_CONNECT.
  int Connect(CompletionCallback callback) override;
  // Plaintext: bytes, 0 at the end of the stream (the peer's close_notify, or a transport EOF),
  // ERR_IO_PENDING, or an error (the transport's, or ERR_SSL_PROTOCOL_ERROR).
  int Read(char* buf, int len, CompletionCallback callback) override;
  // Plaintext: returns the bytes accepted once they are encrypted and handed towards the
  // transport (sending continues in the background; a transport failure shows on the next
  // Write or Read). The caller keeps `data` alive until the write completes.
  int Write(const char* data, int len, CompletionCallback callback) override;
  // Closes the transport; pending callbacks never run. No close_notify is sent (as Chrome).
  void Disconnect() override;

  // False once a Read returned 0 or an error.
  bool IsConnected() const override;
  // Connected, nothing received waits unread (post-handshake messages such as session tickets
  // are processed in the background), and no close_notify, EOF or error was seen.
  bool IsConnectedAndIdle() const override;
  // True once application data was read or written (the handshake does not count).
  bool WasEverUsed() const override { return was_ever_used_; }
  int GetPeerAddress(IPEndPoint* address) const override;
  const NetLogWithSource& NetLog() const override { return net_log_; }

  bool WasSessionResumed() const override;
  std::string TlsVersion() const override;
  std::string Cipher() const;
  // ALPN result ("h2", "http/1.1"), empty if the server chose none.
  std::string NegotiatedProtocol() const override;
  bool CertificateCoversHost(const std::string& host) const override;
  // A one-line reason for the last failure (e.g. "unable to get local issuer certificate"),
  // empty when none; for the CLI's error message next to ErrorToMessage().
  const std::string& last_error_detail() const { return last_error_detail_; }
  std::string GetErrorDetail() const override { return last_error_detail_; }

 private:
  enum class State { kIdle, kHandshaking, kConnected, kFailed, kDisconnected };

  // Each loop runs the engine until it completes or waits on the transport.
  int DoHandshakeLoop();
  int DoPayloadReadLoop();
  int DoPayloadWriteLoop();
  int FinishHandshake(int result);
  // While no Read() is pending, keeps a transport read outstanding and lets the engine process
  // what arrives, so post-handshake messages (TLS 1.3 session tickets) do not make an idle
  // socket look busy, and a close_notify or EOF is noticed while idle (as the TCP socket does).
  // Bounded: it stops once application data is waiting.
  void DoBackgroundReadLoop();

  // Sends the engine's output: OK when all of it is handed to the transport, ERR_IO_PENDING
  // while a transport write is pending, or the (sticky) transport write error.
  int FlushOutput();
  // Reads ciphertext into the engine: bytes (> 0), 0 at EOF, ERR_IO_PENDING or an error.
  int ReadTransport();
  int HandleTransportRead(int result);
  void OnTransportReadComplete(int result);
  void OnTransportWriteComplete(int result);
  // After transport progress: resumes whichever user operations wait, running their callbacks.
  void RetryOperations();

  std::unique_ptr<StreamSocket> transport_;
  SslClientContext* const context_;
  const std::string host_;
  const uint16_t port_;
  NetLogWithSource net_log_;
  std::unique_ptr<TlsClientEngine> engine_;
  State state_ = State::kIdle;

  // Ciphertext buffers lent to the transport; they outlive it (reset in the destructor first).
  std::unique_ptr<char[]> recv_buf_;
  std::unique_ptr<char[]> send_buf_;
  size_t send_offset_ = 0;
  size_t send_length_ = 0;
  bool transport_read_pending_ = false;
  bool transport_write_pending_ = false;
  bool transport_eof_ = false;
  int transport_read_error_ = OK;
  int transport_write_error_ = OK;

  CompletionCallback connect_callback_;
  char* user_read_buf_ = nullptr;
  int user_read_len_ = 0;
  CompletionCallback read_callback_;
  const char* user_write_buf_ = nullptr;
  int user_write_len_ = 0;
  CompletionCallback write_callback_;

  bool stream_ended_ = false;   // A Read returned 0 or an error: nothing more will come.
  bool peer_finished_ = false;  // The idle peek saw close_notify or an error.
  bool was_ever_used_ = false;
  std::string last_error_detail_;
  WeakPtrFactory<SslClientSocket> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_SOCKET_SSL_CLIENT_SOCKET_H_
