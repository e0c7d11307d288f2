// Http2Session: an Http2Connection over a connected StreamSocket, on the loop's Scheduler. It
// reads whatever the socket delivers into the connection and writes whatever the connection
// produces, one Read and one Write at a time (the StreamSocket contract), with a fixed read
// buffer; so the same session runs over a live TCP/TLS socket and a simulated one.
//
// The session ends (IsClosed) when its transport fails or reaches EOF, when the connection
// fails, after a GOAWAY once no stream is left, or after `idle_timeout` with no stream open
// (Chrome closes idle sessions after the pool's used-idle timeout; it sends GOAWAY first).
// `on_closed` runs once then, from a loop callback (never inside a call to the session), and
// may destroy the session.
//
// Stream events reach each request's Http2StreamDelegate from loop callbacks (see
// http2_connection.h); a delegate must not destroy the session from inside one.
#ifndef NET_HTTP2_HTTP2_SESSION_H_
#define NET_HTTP2_HTTP2_SESSION_H_

#include <functional>
#include <memory>
#include <string>

#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/base/weak_ptr.h"
#include "net/http2/http2_connection.h"
#include "net/socket/client_socket_handle.h"
#include "net/socket/stream_socket.h"

namespace netstack {

class Http2Session {
 public:
  static constexpr int kReadBufferBytes = 16 * 1024;

  struct Params {
    // Chrome closes a session with no active stream after the pool's used-idle timeout.
    TimeDelta idle_timeout = Seconds(300);
  };

  // Takes `socket` (connected; for TLS the handshake chose h2) and starts reading; the
  // connection preface goes out at once. `scheduler` must outlive the session.
  Http2Session(Scheduler& scheduler, std::unique_ptr<StreamSocket> socket, Params params,
               std::function<void(int error)> on_closed);
  // The same over the socket `handle` holds (a socket pool's): the session keeps the handle, so
  // the socket counts as handed out in its pool group for the session's life, and goes back to
  // the pool (closed) when the session is destroyed. Events go to a new HTTP2_SESSION source in
  // `net_log` (may be null).
  Http2Session(Scheduler& scheduler, std::unique_ptr<ClientSocketHandle> handle, Params params,
               NetLog* net_log, std::function<void(int error)> on_closed);
  // Disconnects; streams still open or queued end with ERR_ABORTED (their delegates are told).
  ~Http2Session();
  Http2Session(const Http2Session&) = delete;
  Http2Session& operator=(const Http2Session&) = delete;

  // Http2Connection::Submit on this session (a request id > 0 or a net error). The frames go
  // out from a task, together with those of every other request submitted before it runs.
  int StartRequest(const Http2RequestHead& head, RequestPriority priority,
                   Http2StreamDelegate* delegate);
  // Http2Connection::CancelRequest / ConsumeData, and the writes they cause.
  void CancelRequest(int request_id);
  void ConsumeData(int request_id, size_t bytes);
  // Sends GOAWAY: open streams finish, then the session closes.
  void Shutdown();

  // Whether StartRequest can succeed.
  bool IsAvailable() const { return !closed_ && connection_.IsAvailable(); }
  bool IsClosed() const { return closed_; }
  // The error the session ended with (OK for an orderly end); meaningful once IsClosed.
  int close_error() const { return close_error_; }
  const Http2Connection& connection() const { return connection_; }
  const StreamSocket* socket() const { return socket_; }
  // The HTTP2_SESSION source (unbound when constructed without a NetLog).
  const NetLogWithSource& net_log() const { return net_log_; }
  // When the session was made, on the scheduler's clock.
  TimeTicks created() const { return created_; }
  WeakPtr<Http2Session> GetWeakPtr() { return weak_factory_.GetWeakPtr(); }

 private:
  void DoRead();
  // Handles one Read result; false once the session closed (stop reading).
  bool HandleRead(int rv);
  void DoWrite();
  bool HandleWrite(int rv);
  // After every event: the idle timer, and the end of the session if it is over.
  void Update();
  void CloseSession(int error);
  void Start();

  Scheduler& scheduler_;
  // One of the two owns the socket: a pool handle (the stack) or the session itself (tests).
  std::unique_ptr<ClientSocketHandle> handle_;
  std::unique_ptr<StreamSocket> owned_socket_;
  StreamSocket* socket_ = nullptr;
  NetLogWithSource net_log_;
  TimeTicks created_;
  Params params_;
  std::function<void(int)> on_closed_;
  Http2Connection connection_;
  std::string read_buffer_;
  bool read_pending_ = false;
  std::string write_buffer_;
  size_t write_offset_ = 0;
  bool write_pending_ = false;
  bool write_scheduled_ = false;  // a task will write what StartRequest queued
  bool closed_ = false;
  bool close_reported_ = false;
  int close_error_ = OK;
  OneShotTimer idle_timer_;
  OneShotTimer report_closed_;
  WeakPtrFactory<Http2Session> weak_factory_{this};  // last: invalidated first
};

}  // namespace netstack

#endif  // NET_HTTP2_HTTP2_SESSION_H_
