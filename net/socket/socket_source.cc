#include "net/socket/socket_source.h"

namespace netstack {

const char* SocketSourceName(SocketSource source) {
  switch (source) {
    case SocketSource::kNone:
      return "none";
    case SocketSource::kNew:
      return "new";
    case SocketSource::kReused:
      return "reused";
    case SocketSource::kPreconnected:
      return "preconnected";
    case SocketSource::kPreconnectedLate:
      return "preconnected-late";
    case SocketSource::kUnusedIdle:
      return "unused-idle";
    case SocketSource::kHttp2Session:
      return "h2-session";
  }
  return "none";
}

}  // namespace netstack
