// The net error a recording's failure text names: "net::ERR_ABORTED" (Chrome's HAR export,
// DevTools' Network.loadingFailed), "ERR_NAME_NOT_RESOLVED", or a bare code ("-105"). Used by
// the trace readers to fill TraceEntry::recorded_error_code.
#ifndef TOOLS_REPLAY_TRACE_RECORDED_ERROR_H_
#define TOOLS_REPLAY_TRACE_RECORDED_ERROR_H_

#include <string_view>

namespace netstack {

// The code of the net error (net/base/net_error_list.h) that `text` names: the first
// "ERR_<NAME>" in it that the list holds (case-sensitive, as Chrome writes them), else a text
// that is only a negative integer the list holds. ERR_FAILED when it names none we know (an
// empty text, "net::ERR_BLOCKED_BY_CLIENT", "status -1", "Aborted"). Never OK nor ERR_IO_PENDING
// (not a failure).
int NetErrorFromText(std::string_view text);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_RECORDED_ERROR_H_
