// UvHttpConnection: one accepted connection of UvHttpServer (uv_http_server.h). Internal to the
// server: only uv_http_server.cc creates or uses it; everything else goes through UvHttpServer.
//
// It owns its libuv handles (the socket, and a zero-delay timer that resumes input after a late
// answer) and one deadline timer on the server's Scheduler (so tests drive its time), reads
// bytes into HttpRequestReader, dispatches each complete request to the handler (one in flight
// at a time), writes the answers in order, and closes gracefully (last answer written, write
// side shut down, unread input drained for up to 2 s). A malformed, oversized or late request
// is answered by the connection itself (400/413/431/505/408) and the connection closed after
// it; Reject() answers a connection the server has no room for (503) the same way.
//
// Deadlines (absolute: reads never move them), one phase at a time:
//   - head: from accept (the first request) or from the first byte of a later request, until
//     the end of the request head: 408;
//   - body: from the end of the head until the end of the body: 408;
//   - keep-alive: from the moment an answer is written (nothing of the next request read yet):
//     the connection is closed;
//   - none while the handler works on an answer;
// and, whatever the phase, no write progress for send_timeout_ms while an answer is queued
// closes the connection, as does the end of the linger after the last answer.
//
// What it shares with the other connections (the handler, the read buffer, the counts, the
// progress stamps and loop epochs used for eviction, and the bytes queued across all
// connections) it reaches through its Delegate, the server. The per-connection limits are
// enforced here; the server-wide write bound is asked of the Delegate.
//
// Lifetime: the object deletes itself once the close callbacks of all its handles have run
// (after Close(), from the loop). Once closing it never calls its Delegate again and its
// deadline timer is stopped, so the server (and its Scheduler) may be destroyed while its
// connections' close, write or shutdown callbacks are still pending (the loop must then run once
// more so that they run and free the memory).
#ifndef NET_SERVER_UV_HTTP_CONNECTION_H_
#define NET_SERVER_UV_HTTP_CONNECTION_H_

#include <uv.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "net/base/scheduler.h"
#include "net/server/http_request_reader.h"
#include "net/server/http_server_message.h"
#include "net/server/uv_http_server.h"

namespace netstack {

class UvHttpConnection {
 public:
  // Which deadline passed, for the server's counts.
  enum class Deadline { kHead, kBody, kKeepAlive, kSend };
  // What closing this connection to make room for a new one costs (see eviction_class()).
  enum class EvictionClass {
    kNever,     // a request awaits its answer, an answer is being written, a complete request
                // is buffered, or it is closing
    kTooNew,    // accepted in the current or previous loop epoch: not read yet, so not judged
    kFinished,  // its last answer is written (lingering): closed at once
    kIdle,      // keep-alive between requests, nothing of the next read: closed at once
    kWaiting,   // its request head (or body) is still arriving, or nothing arrived since
                // accept: answered 503 (Reject) and closed
  };

  // The server side of a connection. Every method is called on the loop thread, from one of
  // the connection's libuv callbacks or from a Respond, and only while the connection is open:
  // after Close() begins (including from within OnConnectionClosing) none is called again.
  class Delegate {
   public:
    // Runs the server's handler for `request`. An exception it throws propagates to the
    // connection, which catches it (and answers 500 if `respond` had not been called).
    virtual void HandleRequest(const HttpServerRequest& request, UvHttpServer::Respond respond) = 0;
    // A buffer to read into, shared by every connection: the connection consumes (copies) what
    // was read inside the read callback, before any other connection reads.
    virtual uv_buf_t ReadBuffer() = 0;
    // A request was answered (any status, including the connection's own error answers).
    virtual void OnRequestAnswered() = 0;
    // A stamp larger than every earlier one, marking progress (accepted, a request answered);
    // the server evicts the connection with the smallest stamp first.
    virtual uint64_t NextProgressStamp() = 0;
    // The server's loop epoch: a count of loop iterations (see eviction_class()).
    virtual uint64_t LoopEpoch() const = 0;
    // A deadline passed (counted in the server's stats); the connection acts on it itself.
    virtual void OnDeadline(Deadline deadline) = 0;
    // Whether `bytes` more may be queued for writing without passing the server-wide bound.
    // False: the connection closes itself (the bound is an eviction, never growth).
    virtual bool HasRoomToQueueWrite(size_t bytes) const = 0;
    // Bytes queued for writing on this connection: added once libuv took the write, removed
    // when it completes, and what remains removed when the connection closes.
    virtual void AddQueuedWriteBytes(size_t bytes) = 0;
    virtual void RemoveQueuedWriteBytes(size_t bytes) = 0;
    // The connection is closing (its queued bytes already removed): forget it. Called once,
    // from inside Close(); the Delegate must not call back into `connection` except Close()
    // (which then does nothing).
    virtual void OnConnectionClosing(UvHttpConnection* connection) = 0;

   protected:
    ~Delegate() = default;
  };

  // Creates a connection with its handles initialized on `loop` and not yet accepted; nullptr
  // if the socket handle cannot be initialized. `delegate` must stay valid until the
  // connection closes (it is never used afterwards). May throw std::bad_alloc (nothing leaks).
  // The caller then uv_accept()s into stream() and either calls Start() or Close().
  static UvHttpConnection* Create(uv_loop_t* loop, Scheduler& scheduler, Delegate* delegate,
                                  const UvHttpServer::Limits& limits);
  UvHttpConnection(const UvHttpConnection&) = delete;
  UvHttpConnection& operator=(const UvHttpConnection&) = delete;

  // The socket, for uv_accept. Owned by the connection.
  uv_stream_t* stream() { return reinterpret_cast<uv_stream_t*>(&tcp_); }

  // Starts reading and the head deadline of an accepted connection and takes its first
  // progress stamp and loop epoch. Requests are dispatched from later libuv callbacks, never
  // inside Start().
  void Start();

  // Answers `response` (a 503 from the server) with "Connection: close" without reading a
  // request, then closes gracefully (write side shut down, input drained until EOF or the
  // linger ends). Works on a connection just accepted (not Start()ed) or on an open one whose
  // eviction_class() is kWaiting (what it read of a request is dropped). Not counted as a
  // request served. The Delegate is still called (OnConnectionClosing) when it closes.
  void Reject(HttpServerResponse response);

  // What evicting this connection would cost. A connection accepted in the current or the
  // previous loop epoch is kTooNew unless busy or finished: its first bytes may be in the
  // kernel, not yet read, and a burst of new connections must not evict it before that read.
  EvictionClass eviction_class() const;
  // Larger is more recent: when the connection was accepted or last answered a request.
  uint64_t last_progress() const { return last_progress_; }
  // Whether Reject() was called (the server counts it apart from the open connections).
  bool rejected() const { return rejected_; }

  // Stops everything at once (unwritten answers are dropped; a Respond still held does
  // nothing), tells the Delegate (OnConnectionClosing) and starts closing the handles; the
  // object is freed in their close callbacks, later from the loop, so the pointer stays valid
  // until then. Idempotent; never throws.
  void Close() noexcept;

 private:
  // What a Respond holds: the connection while it is open, and which answer it is for.
  struct Slot {
    UvHttpConnection* connection = nullptr;
    uint64_t generation = 0;  // bumped by each answer: a second call of a Respond is dropped
  };
  struct WriteRequest {
    uv_write_t req;
    std::string data;
    UvHttpConnection* connection;
  };

  // The phase whose deadline applies (see the file comment).
  enum class Phase { kHead, kBody, kKeepAlive, kHandler };

  UvHttpConnection(Scheduler& scheduler, Delegate* delegate, const UvHttpServer::Limits& limits);
  ~UvHttpConnection() = default;  // only from OnClose

  // Initializes the handles; false (and `this` deleted) on failure.
  bool Init(uv_loop_t* loop);
  void ProcessInput();
  void Dispatch(HttpServerRequest request);
  void Answer(HttpServerResponse response);
  void AnswerTimeout(Phase phase);
  // Moves to the phase the reader's state implies, setting its deadline on entry.
  void UpdatePhase();
  void EnterPhase(Phase phase, uint64_t timeout_ms);
  void OnDeadlineTimer();
  bool Write(std::string data);
  bool WritesBelowPauseMark() const {
    return queued_write_bytes_ <= limits_.pause_reading_queued_bytes;
  }
  void MaybeShutdown();
  void UpdateReadingAndTimer();

  static void OnAlloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void OnWrite(uv_write_t* req, int status);
  static void OnShutdown(uv_shutdown_t* req, int status);
  static void OnResume(uv_timer_t* timer);
  static void OnClose(uv_handle_t* handle);

  Scheduler& scheduler_;
  Delegate* delegate_;  // null once closing
  const UvHttpServer::Limits limits_;
  uv_tcp_t tcp_;
  uv_timer_t resume_timer_;  // zero-delay: input processing after a late answer
  uv_shutdown_t shutdown_req_;
  int open_handles_ = 0;
  // The one timer for every deadline: armed for the earliest that applies.
  OneShotTimer deadline_timer_;
  HttpRequestReader reader_;
  std::string input_;  // read but not yet parsed (only while an answer is awaited)
  std::shared_ptr<Slot> slot_;
  size_t queued_write_bytes_ = 0;
  uint64_t last_progress_ = 0;
  uint64_t accept_epoch_ = 0;
  uint64_t answered_ = 0;  // requests answered on this connection
  Phase phase_ = Phase::kHead;
  TimeTicks phase_deadline_{};   // for kHead, kBody, kKeepAlive
  TimeTicks send_deadline_{};    // while an answer is queued: no write progress until then
  size_t send_queue_mark_ = 0;   // libuv's write queue size when send_deadline_ was set
  TimeTicks linger_deadline_{};  // once the write side is shut down
  bool closing_ = false;
  bool processing_ = false;  // inside ProcessInput (a synchronous answer must not recurse)
  bool in_flight_ = false;   // a request awaits its answer
  bool head_ = false;        // ... and it is a HEAD
  bool keep_alive_ = false;  // ... and the connection may carry another after it
  bool finishing_ = false;   // no more requests: close once the answers are written
  bool shutdown_started_ = false;
  bool peer_eof_ = false;
  bool reading_ = false;
  bool rejected_ = false;
};

}  // namespace netstack

#endif  // NET_SERVER_UV_HTTP_CONNECTION_H_
