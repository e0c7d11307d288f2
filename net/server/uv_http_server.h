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
// Bounds (Limits): connections (at the bound, a new connection evicts the connection that has
// made no progress for longest among those with no request in progress, i.e. idle keep-alive or
// a request head still arriving; if every connection is busy the new one is closed at once), a
// request's head and body (answered 431 / 413 and the connection closed), the time a request
// may take to arrive (answered 408 and closed; reads do not extend it), bytes queued for writing
// per connection (past it the connection is closed; past a smaller mark the next request is
// neither read nor dispatched until the writes drain) and across all connections (the
// connection whose answer would pass it is closed), and an idle timeout (no bytes read or
// written for that long; it does not run while the handler works on an answer). Every libuv
// handle is freed only in its close callback; nothing is thrown through a libuv callback.
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

#include "net/server/http_server_message.h"

namespace netstack {

class UvHttpServer {
 public:
  struct Limits {
    size_t max_connections = 32;
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
    // From the first byte of a request until it is complete (head and body): past it the
    // server answers 408 and closes. Not extended by reads, so a client trickling bytes cannot
    // hold a connection; it does not run while the handler works on an answer.
    uint64_t request_timeout_ms = 10'000;
    // No byte read or written for this long (between requests, or while an answer is being
    // written): the connection is closed.
    uint64_t idle_timeout_ms = 30'000;
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

  // `loop` must outlive the server.
  UvHttpServer(uv_loop_t* loop, Handler handler, Limits limits);
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

  // Open connections now.
  size_t connection_count() const;
  // Requests answered so far (any status).
  uint64_t requests_served() const;
  // Closes the listener and all connections (as the destructor does); answers still to come
  // are dropped. Safe to call more than once.
  void Close();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace netstack

#endif  // NET_SERVER_UV_HTTP_SERVER_H_
