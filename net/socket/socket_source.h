// SocketSource: where the connection a request used came from, decided once by the socket pool
// when it hands a socket out (ClientSocketPool::HandOutSocket) and read everywhere else: the
// handle, the transaction's ConnectionInfo, the request record, replay's page counters, the
// predictor's accounting and policies. Both worlds get it from the same pool code, so a live
// page load and its replay name the same source for the same event.
//
// HTTP/2: a request that joins an existing HTTP/2 session gets no socket from this pool. Its
// source is kHttp2Session (set by the transaction when it binds a stream to a session it found);
// the request whose socket became the session keeps that socket's source (kNew,
// kPreconnected...).
#ifndef NET_SOCKET_SOCKET_SOURCE_H_
#define NET_SOCKET_SOCKET_SOURCE_H_

namespace netstack {

enum class SocketSource {
  // No socket: a cache hit, or a failure before a socket was handed out.
  kNone,
  // A connect job's socket, the job not a preconnect, whoever started it (late binding: a job
  // another request began counts as new for the request that got its socket).
  kNew,
  // An idle socket that carried an earlier request (keep-alive reuse).
  kReused,
  // A never-used idle socket a preconnect job made: ready before the request came.
  kPreconnected,
  // A preconnect job's socket, still connecting when the request took it: late, the request
  // waited for the rest of its setup.
  kPreconnectedLate,
  // A never-used idle socket a non-preconnect job left (its request went away, or another job
  // served it first).
  kUnusedIdle,
  // A stream on an HTTP/2 session that was already open (or opened for another request): no
  // setup of its own, like a reused socket.
  kHttp2Session,
};

// "new", "reused", "preconnected", "preconnected-late", "unused-idle", "h2-session"; "none" for
// kNone (JSON writes null for it).
const char* SocketSourceName(SocketSource source);

// A connect job's socket: its setup (DNS, connect, TLS) is this request's connect wait, or the
// part of it left when the request came (kNew, kPreconnectedLate).
inline bool IsConnectJobSocket(SocketSource source) {
  return source == SocketSource::kNew || source == SocketSource::kPreconnectedLate;
}

// An idle socket (reused or never used): the server may have closed it meanwhile, so a request
// that fails on it before any response byte may retry on a fresh socket.
inline bool IsIdleSocket(SocketSource source) {
  return source == SocketSource::kReused || source == SocketSource::kPreconnected ||
         source == SocketSource::kUnusedIdle;
}

// Made by a preconnect (ready or late).
inline bool IsPreconnectSocket(SocketSource source) {
  return source == SocketSource::kPreconnected || source == SocketSource::kPreconnectedLate;
}

}  // namespace netstack

#endif  // NET_SOCKET_SOCKET_SOURCE_H_
