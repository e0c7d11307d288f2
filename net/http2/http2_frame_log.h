// The NetLog events of HTTP/2 frames, in Chrome's names and shapes (net_log_event_type_list.h,
// "HTTP/2"), so the netlog viewer's HTTP/2 tab and the events view read them as Chrome's.
#ifndef NET_HTTP2_HTTP2_FRAME_LOG_H_
#define NET_HTTP2_HTTP2_FRAME_LOG_H_

#include <nghttp2/nghttp2.h>

#include "net/base/net_log.h"

namespace netstack {

// Adds the event for `frame` (sent or received) to `net_log`, if the frame type has one
// (CONTINUATION and PRIORITY have none; their content is in the HEADERS event). Cheap when the
// NetLog is not capturing.
void LogHttp2Frame(const NetLogWithSource& net_log, bool sent, const nghttp2_frame& frame);

}  // namespace netstack

#endif  // NET_HTTP2_HTTP2_FRAME_LOG_H_
