// UvHttpServer: a small HTTP/1.1 server on a libuv loop, for the internals page. It accepts
// connections on one address, parses requests with HttpRequestReader (http-parser), hands each
// to the handler, and writes the answers in order (keep-alive, no pipelining beyond one request
// in flight per connection: the next request is read after the answer is queued). A HEAD
// request reaches the handler as "HEAD" (answer it as GET): the server sends the headers, with
// the GET's Content-Length, and drops the body. A malformed or oversized request is answered
// by the server itself (400/413/431/505, JSON error) without reaching the handler, and the
// connection is closed after it; so is one whose request said "Connection: close" (or was
// HTTP/1.0 without keep-alive). A connection closes gracefully: the last answer is written,
// the write side shut down, and unread input drained for up to 2 s so that the client reads
// the answer rather than a reset.
//
// The handler only ever runs from a libuv callback of the server (a read, a write completion,
// or its own zero-delay timer), never inside a Respond call: when an answer comes later (from a
// DNS lookup's or a cache read's completion), a next request already buffered is dispatched on
// the next loop iteration, not inside that component's callback.
//
// Bounds (Limits), modelled on nginx's worker_connections, client_header_timeout,
// client_body_timeout, keepalive_timeout and send_timeout:
//   - connections: at the bound, a new connection makes room by evicting, in this order, a
//     connection whose last answer is written (lingering), else the one that has waited
//     longest (accepted or last answered earliest) among the idle keep-alive connections
//     (closed) and those whose request is still arriving or has not begun (answered 503 with
//     Retry-After and closed). A connection with a request in progress (dispatched, being
//     written, or buffered) is never evicted, nor one accepted in the current or previous loop
//     iteration (its first bytes may not have been read yet). While only such new connections
//     stand in the way, the new one waits in the listener (libuv accepts nothing more, and
//     later clients wait in the kernel's backlog, in order) until they were read: a burst
//     of connections cannot push out a client before it was heard, and clients that keep
//     reconnecting queue behind it. If every connection is busy, the new one is answered 503
//     (Retry-After, Connection: close) and closed: an accepted connection never goes without
//     an answer. Connections answered 503 drain their input apart, up to
//     max_rejected_connections of them (past it the oldest is closed at once);
//   - a request's head and body sizes (431 / 413, the connection closed);
//   - deadlines per connection, absolute (reads never move them): the head (from accept, or
//     from the first byte of a later request, to the end of the head) and the body (from the
//     end of the head) answer 408 and close; keep-alive (no byte of a next request since the
//     last answer was written) closes; none runs while the handler works on an answer;
//   - bytes queued for writing per connection (past it the connection is closed; past a
//     smaller mark the next request is neither read nor dispatched until the writes drain), and
//     across all connections (the connection whose answer would pass it is closed), and the
//     send timeout (no write progress while an answer is queued: closed).
// What the bounds did is counted in stats(). Deadlines run on the Scheduler given to the
// constructor (a test passes a virtual one and advances it); every libuv handle is freed only
// in its close callback; nothing is thrown through a libuv callback.
//
// This file is the listener and what spans connections (accept, the connection bound and
// eviction, the server-wide write bound); one connection's reading, dispatch, writes, deadlines
// and close live in uv_http_connection.h, which only the server uses.
#ifndef NET_SERVER_UV_HTTP_SERVER_H_
#define NET_SERVER_UV_HTTP_SERVER_H_

#include <uv.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "net/base/scheduler.h"
#include "net/server/http_server_message.h"

namespace netstack {

class UvHttpServer {
 public:
  struct Limits {
    // Connections being served at once. The internals page derives its bound from the file
    // descriptor limit (MaxConnectionsForFdLimit).
    size_t max_connections = 256;
    // Connections answered 503 (no room, or evicted while their request was arriving) that
    // are still draining their input before the close; past it the oldest is closed at once
    // (its answer already handed to the kernel). At least 1 is used.
    size_t max_rejected_connections = 32;
    size_t max_head_bytes = 16 * 1024;
    size_t max_body_bytes = 256 * 1024;
    // Per connection: an answer that would queue more than this closes the connection.
    size_t max_queued_write_bytes = 64 * 1024 * 1024;
    // Per connection: while more than this is queued for writing (the client is slow to read),
    // the next request is neither read nor dispatched; reading resumes as the writes drain. So
    // a client that pipelines requests and never reads holds about one answer, not many.
    size_t pause_reading_queued_bytes = 64 * 1024;
    // All connections together: an answer that would queue more than this closes its
    // connection (the other connections keep theirs).
    size_t max_total_queued_write_bytes = 128 * 1024 * 1024;
    // From accept (the first request) or the first byte of a later request until the end of
    // its head: past it the server answers 408 and closes. Reads do not extend it, so a
    // client trickling bytes cannot hold a connection.
    uint64_t head_timeout_ms = 10'000;
    // From the end of the head until the end of the body: 408 and closed.
    uint64_t body_timeout_ms = 10'000;
    // Keep-alive: from the end of the last answer's write, with no byte of a next request
    // read: the connection is closed. A byte (an empty line too) starts the next head.
    uint64_t keep_alive_timeout_ms = 30'000;
    // While an answer is queued for writing, no write progress for this long (the client
    // stopped reading): the connection is closed.
    uint64_t send_timeout_ms = 30'000;
    // The Retry-After (seconds) of a 503 answered for lack of room.
    uint32_t retry_after_s = 1;
  };

  // What the bounds did since the server was made (a snapshot; stats()).
  struct Stats {
    uint64_t accepted = 0;         // connections accepted
    uint64_t requests_served = 0;  // answers of any status, the server's own 4xx included
    // Made room for a new connection: idle keep-alive or lingering connections closed, and
    // connections whose request was still arriving (or not begun) answered 503 and closed.
    uint64_t evicted_idle = 0;
    uint64_t evicted_waiting = 0;
    // New connections answered 503 because no connection could be evicted.
    uint64_t rejected_full = 0;
    // Connections answered 503 closed before their drain ended (max_rejected_connections).
    uint64_t rejected_cut_short = 0;
    uint64_t head_timeouts = 0;        // 408
    uint64_t body_timeouts = 0;        // 408
    uint64_t keep_alive_timeouts = 0;  // closed idle
    uint64_t send_timeouts = 0;        // closed: the client did not read
    uint64_t accept_errors = 0;        // accept() failed (EMFILE...): nothing was taken
    size_t open = 0;                   // connections being served now
    size_t peak_open = 0;
    size_t rejected_open = 0;  // connections answered 503 still draining now
  };

  // Delivers the answer to a request. Call it once, now or later from the loop thread; calling
  // it after the connection closed is harmless (the answer is dropped). It never runs the
  // handler: a later call only queues the answer, and the next pipelined request is dispatched
  // from the loop.
  using Respond = std::function<void(HttpServerResponse)>;
  // Called on the loop thread for each complete request. It may call Respond at once or keep
  // it; it may call Close() but must not destroy the server. An exception it throws is caught
  // (the client gets 500 if it had not been answered).
  using Handler = std::function<void(const HttpServerRequest&, Respond)>;

  // `loop` must outlive the server; so must `scheduler`, which runs the connections'
  // deadlines (null: the server makes its own UvScheduler on `loop`).
  UvHttpServer(uv_loop_t* loop, Handler handler, Limits limits, Scheduler* scheduler = nullptr);
  UvHttpServer(uv_loop_t* loop, Handler handler) : UvHttpServer(loop, std::move(handler), {}) {}
  // Closes the listener and every connection (their handles are freed in close callbacks, so
  // run the loop once more after destruction; LiveStack's teardown does).
  ~UvHttpServer();
  UvHttpServer(const UvHttpServer&) = delete;
  UvHttpServer& operator=(const UvHttpServer&) = delete;

  // Binds `address` (an IPv4 or IPv6 literal) and `port` (0: any free port) and listens.
  // Returns 0, or a negative libuv error code (UV_EADDRINUSE, UV_EINVAL for a bad address) with
  // a one-line `error` ("cannot listen on 127.0.0.1:80: permission denied").
  int Listen(const std::string& address, int port, std::string* error);
  // The bound port (after a successful Listen).
  int port() const { return port_; }

  // Connections being served now (not counting those answered 503 and draining).
  size_t connection_count() const;
  // Requests answered so far (any status).
  uint64_t requests_served() const;
  // The counts of what the bounds did, and the connections open now.
  Stats stats() const;
  // The bounds the server was made with.
  const Limits& limits() const { return limits_; }

  // A connection bound for a process whose soft RLIMIT_NOFILE is `fd_limit`: a quarter of the
  // descriptors, after 256 kept for the rest of the process, go to connections (each rejected
  // one needs a descriptor too), between 16 and 1024. 1024 descriptors give 192; 4096, 960.
  static size_t MaxConnectionsForFdLimit(uint64_t fd_limit);
  // The process's soft RLIMIT_NOFILE (1024 if it cannot be read; capped at 2^20 if unlimited).
  static uint64_t FdSoftLimit();
  // Closes the listener and all connections (as the destructor does); answers still to come
  // are dropped. Safe to call more than once.
  void Close();

 private:
  class Impl;
  const Limits limits_;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace netstack

#endif  // NET_SERVER_UV_HTTP_SERVER_H_
