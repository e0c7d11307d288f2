// The live TCP transport: a StreamSocket over one libuv uv_tcp_t, for one IPEndPoint.
//
// The socket reads continuously into a bounded internal buffer (back-pressure with uv_read_stop
// when it is full), so that a peer's FIN or RST is noticed even while the socket sits idle in a
// pool: that is how IsConnectedAndIdle() answers what Chrome's peek answers. The buffer is taken
// when bytes arrive and given back once they are read, so an idle socket holds no buffer.
//
// Lifetime: the uv_tcp_t and its requests live in a heap block that only the handle's close
// callback frees. Destroying the socket (or Disconnect) closes the handle and detaches the block
// from this object, so no libuv callback ever reaches a destroyed socket, and the caller's write
// buffer is not referenced once the destructor returns (the pending uv_write is cancelled).
#ifndef NET_SOCKET_UV_TCP_CLIENT_SOCKET_H_
#define NET_SOCKET_UV_TCP_CLIENT_SOCKET_H_

#include <uv.h>

#include <cstddef>
#include <cstdint>

#include "net/base/ip_address.h"
#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/socket/stream_socket.h"

namespace netstack {

class UvTcpClientSocket : public StreamSocket {
 public:
  // Bytes read from the kernel but not yet handed to Read(). Reading pauses while it is full.
  static constexpr size_t kReadBufferSize = 64 * 1024;

  // A socket for `endpoint` on `loop` (which must outlive this object and keep running until the
  // handle's close callback has run: uv_loop_close succeeds only then). The socket creates its
  // own SOCKET source in `net_log` (may be null) and references `creator` from SOCKET_ALIVE.
  UvTcpClientSocket(uv_loop_t* loop, const IPEndPoint& endpoint, netstack::NetLog* net_log,
                    const NetLogSource& creator);
  // Closes the handle if open; pending callbacks never run.
  ~UvTcpClientSocket() override;

  UvTcpClientSocket(const UvTcpClientSocket&) = delete;
  UvTcpClientSocket& operator=(const UvTcpClientSocket&) = delete;

  // Starts a TCP connect (TCP_NODELAY on). Returns ERR_IO_PENDING and later runs `callback` with
  // OK or a mapped error (ERR_CONNECTION_REFUSED, ERR_ADDRESS_UNREACHABLE...), or returns an
  // error synchronously when the connect cannot start. OK at once if already connected.
  int Connect(CompletionCallback callback) override;

  // Copies buffered bytes synchronously if any; otherwise returns 0 after the peer's FIN, the
  // sticky error after a failure (ERR_CONNECTION_RESET...), or ERR_IO_PENDING and runs
  // `callback` with the byte count, 0 or an error when something arrives. `buf` must stay valid
  // while the read is pending (or until this object is destroyed).
  int Read(char* buf, int len, CompletionCallback callback) override;

  // Writes as much as the kernel takes at once and returns that count; if it takes nothing,
  // queues the whole buffer with uv_write, returns ERR_IO_PENDING and runs `callback` with `len`
  // (or an error) once it is written. The caller keeps `data` alive until then.
  int Write(const char* data, int len, CompletionCallback callback) override;

  // Closes the handle (memory freed later in its close callback) and drops pending callbacks and
  // buffered data. Logs SOCKET_CLOSED once. Safe to call more than once.
  void Disconnect() override;

  // Connected, and either unread data is buffered or the peer has not closed/reset.
  bool IsConnected() const override;
  // Connected, nothing buffered, no EOF and no error seen (the FIN of an idle peer is noticed
  // because the socket keeps reading while idle; the loop must run for it to arrive).
  bool IsConnectedAndIdle() const override;
  bool WasEverUsed() const override { return was_ever_used_; }
  // The endpoint given at construction once connected; ERR_SOCKET_NOT_CONNECTED before.
  int GetPeerAddress(IPEndPoint* address) const override;
  const NetLogWithSource& NetLog() const override { return net_log_; }

  // Bytes buffered and not yet read (for tests and the internals page).
  size_t buffered_bytes() const;
  // Whether the socket holds a read buffer now: only while bytes are buffered (an idle socket
  // holds none; buffers are reused through a small per-thread cache). For tests.
  bool holds_read_buffer() const;

 private:
  struct Core;  // The heap block shared with libuv; see the .cc.

  static void OnConnect(uv_connect_t* req, int status);
  static void OnAlloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void OnWrite(uv_write_t* req, int status);

  void DidConnect(int status);
  void DidRead(ssize_t nread);
  void DidWrite(int status);
  // Starts or resumes reading unless the buffer is full or the stream ended.
  void MaybeStartReading();
  // Copies up to `len` buffered bytes into `buf`; returns the count.
  int CopyBuffered(char* buf, int len);
  void LogBytes(NetLogEventType type, int count) const;
  // Detaches the core from this object and closes its handle.
  void CloseCore();

  uv_loop_t* const loop_;
  const IPEndPoint endpoint_;
  NetLogWithSource net_log_;

  Core* core_ = nullptr;  // Owned by libuv's close callback once closing.
  bool connected_ = false;
  bool reading_ = false;
  bool eof_ = false;
  int read_error_ = OK;
  bool was_ever_used_ = false;
  bool closed_logged_ = false;

  CompletionCallback connect_callback_;
  char* read_buf_ = nullptr;  // The caller's buffer while a Read is pending.
  int read_buf_len_ = 0;
  CompletionCallback read_callback_;
  int write_len_ = 0;
  CompletionCallback write_callback_;
};

}  // namespace netstack

#endif  // NET_SOCKET_UV_TCP_CLIENT_SOCKET_H_
