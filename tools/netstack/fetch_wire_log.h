// What `fetch -v` prints and `-w %{size_request}` counts, read from the stack's NetLog as the
// requests run: the events already carry every connection attempt, TLS handshake and head
// sent or received, so nothing in net/ is asked for more. -v prints them as curl does, on
// stderr: "* " connection and TLS lines, "> " the request head, "< " the response head.
//
// Sensitive request values (Authorization, Cookie) are what the NetLog keeps of them: "[N bytes
// were stripped]" (docs/fetch.md "-v").
#ifndef TOOLS_NETSTACK_FETCH_WIRE_LOG_H_
#define TOOLS_NETSTACK_FETCH_WIRE_LOG_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "net/base/net_log.h"

namespace netstack {

class FetchWireLog : public NetLog::Observer {
 public:
  // Observes `net_log` until destroyed. With `verbose`, writes -v's lines to `out` (stderr);
  // without, only counts request bytes. `net_log` must outlive this object.
  FetchWireLog(NetLog* net_log, bool verbose, FILE* out);
  ~FetchWireLog() override;
  FetchWireLog(const FetchWireLog&) = delete;
  FetchWireLog& operator=(const FetchWireLog&) = delete;

  // What was sent for one request (its NetLog source): the bytes of its request heads, every
  // hop's (an HTTP/2 head counted as its HTTP/1.1 text), and the body the last hop's head
  // announced (its Content-Length; 0 when none: a 303 turned a POST into a GET).
  struct Sent {
    int64_t head_bytes = 0;
    int64_t last_body_bytes = 0;
  };
  // Returns what was sent for `source_id` and forgets it; zeros when nothing was.
  Sent TakeSent(uint32_t source_id);

  // The lines -v prints for one NetLog entry (each ending in '\n'), "" for an entry it skips.
  // `addresses` keeps connect attempts' addresses by source until the connect ends. Exposed
  // for the unit tests.
  static std::string VerboseLines(const NetLogEntry& entry,
                                  std::map<uint32_t, std::string>* addresses);

  int ParamsNeed(NetLogEventType type) const override;
  void OnAddEntry(const NetLogEntry& entry) override;

 private:
  // Bounded like the fetches in flight: an entry is taken when its fetch reports, and no more
  // than kMaxTracked are kept (the oldest source dropped first) should one never report.
  static constexpr size_t kMaxTracked = 4096;

  NetLog* const net_log_;
  const bool verbose_;
  FILE* const out_;
  std::map<uint32_t, Sent> sent_;
  std::map<uint32_t, std::string> addresses_;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_FETCH_WIRE_LOG_H_
