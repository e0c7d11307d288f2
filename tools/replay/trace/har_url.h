// The URL a browser would request for one a HAR recorder wrote: recorders write URLs raw,
// browsers send some characters percent-encoded. Part of the HAR reader (har_reader.h).
#ifndef TOOLS_REPLAY_TRACE_HAR_URL_H_
#define TOOLS_REPLAY_TRACE_HAR_URL_H_

#include <string>

namespace netstack {

// As the URL Standard's parser and Chrome's canonicalizer treat `url`: leading and trailing C0
// controls and spaces are removed, tabs and newlines anywhere are dropped, and what browsers
// send encoded but recorders write raw ('|', '{', spaces, other control characters, non-ASCII
// bytes) is percent-encoded outside the host, and so are '[' and ']' after the host (an IPv6
// literal keeps its own), which browsers send raw but RFC 3986 (our URL parser) does not allow
// there. What still cannot be a URL (a control character or a bracket in a host name, over
// 2 MiB) is left for Url::Parse to refuse, so that the entry is skipped with that reason.
std::string EscapeRecordedUrl(const std::string& url);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_HAR_URL_H_
