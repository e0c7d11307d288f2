// Small helpers shared by the StreamSocket implementations of net/socket.
#ifndef NET_SOCKET_SOCKET_CALLBACK_UTIL_H_
#define NET_SOCKET_SOCKET_CALLBACK_UTIL_H_

#include <utility>

#include "net/base/net_error.h"

namespace netstack {

// Runs the completion callback stored in `member` with `result`, taking it out of the member
// first: the callback may destroy the object that owns `member` (Chrome's contract allows a
// socket's owner to delete it from a callback), or start another operation that stores a new
// callback there. The caller must not touch its object after this returns. An empty member
// (the operation was cancelled) runs nothing.
inline void RunCallback(CompletionCallback& member, int result) {
  CompletionCallback callback = std::exchange(member, nullptr);
  if (callback) callback(result);
}

}  // namespace netstack

#endif  // NET_SOCKET_SOCKET_CALLBACK_UTIL_H_
