// A connected byte stream (TCP, TLS over TCP, or a modelled/scripted one). The transport seam:
// the pool, HTTP streams and tests see only this.
//
// Asynchronous contract (Chrome's): each operation returns a result synchronously (bytes, OK or
// a net error) or ERR_IO_PENDING. Only after ERR_IO_PENDING does the callback run, later, on the
// loop, never inside the call. At most one Read and one Write are pending at a time. Destroying
// the socket cancels pending operations: their callbacks never run, and the caller's buffers are
// no longer referenced after the destructor returns.
#ifndef NET_SOCKET_STREAM_SOCKET_H_
#define NET_SOCKET_STREAM_SOCKET_H_

#include <cstdint>
#include <string>

#include "net/base/ip_address.h"
#include "net/base/net_error.h"
#include "net/base/net_log.h"

namespace netstack {

class StreamSocket {
 public:
  virtual ~StreamSocket() = default;

  // Connects (for TLS: TCP is already connected, this runs the handshake).
  virtual int Connect(CompletionCallback callback) = 0;

  // Reads up to `len` bytes into `buf`. Returns bytes read (> 0), 0 at end of stream, or an error.
  virtual int Read(char* buf, int len, CompletionCallback callback) = 0;

  // Writes up to `len` bytes; returns bytes written (> 0, possibly fewer than len) or an error.
  // The caller keeps `data` alive until the write completes.
  virtual int Write(const char* data, int len, CompletionCallback callback) = 0;

  // Closes the connection. Pending callbacks will not run. Safe to call more than once.
  virtual void Disconnect() = 0;

  virtual bool IsConnected() const = 0;
  // Connected, with no unread data and no EOF seen: safe to hand to a new request.
  virtual bool IsConnectedAndIdle() const = 0;

  // True once any application data was read or written (a used socket, as opposed to a
  // preconnected, never-used one).
  virtual bool WasEverUsed() const = 0;

  virtual int GetPeerAddress(IPEndPoint* address) const = 0;

  // The source this socket logs to (SOCKET_ALIVE ... ).
  virtual const NetLogWithSource& NetLog() const = 0;

  // TLS only: whether the handshake resumed a session, and the negotiated version
  // ("TLSv1.3"); defaults for plain sockets.
  virtual bool WasSessionResumed() const { return false; }
  virtual std::string TlsVersion() const { return {}; }
  // The protocol ALPN chose ("h2", "http/1.1"); empty for plain sockets and when the server
  // chose none (then HTTP/1.1 is spoken).
  virtual std::string NegotiatedProtocol() const { return {}; }
  // TLS only: the server's certificate covers `host` too (for HTTP/2 coalescing); false for
  // plain sockets.
  virtual bool CertificateCoversHost(const std::string& host) const { return false; }

  // A sentence about the last failure when the transport knows more than the error code (for
  // TLS, the certificate verification error); empty otherwise.
  virtual std::string GetErrorDetail() const { return {}; }
};

}  // namespace netstack

#endif  // NET_SOCKET_STREAM_SOCKET_H_
