// NetLogRing: the internals page's Events view. A NetLog observer that keeps the most recent
// entries (bounded by count and bytes; the oldest go first and are counted as dropped), each
// with a sequence number, so the page can poll "everything after N" as a live stream, filter
// it, show one source's events as a timeline, and export the whole buffer as a NetLog file
// Chrome's viewer opens (the same constants and entry format as NetLogFileWriter).
//
// Capture is cheap: an entry is kept as a compact struct (numbers only; the type names are the
// static strings of NetLogEventTypeToString/NetLogSourceTypeToString) plus its params as the
// JSON text the NetLog wrote (ParamsNeed asks for text: call sites that write NetLogParams
// build no json at all). The entry's own fields are written only when the page asks
// (/api/events, /api/events/source, /api/netlog), the same as serializing on arrival would give.
//
// Source ids restart at 1 in every NetLog, so entries remember which attached NetLog ("pass")
// they came from: SourceEvents shows the newest pass holding the id, and the export renumbers
// the sources of earlier passes past the newest pass's ids so Chrome's viewer keeps them apart.
#ifndef NET_BASE_NET_LOG_RING_H_
#define NET_BASE_NET_LOG_RING_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>

#include "net/base/net_log.h"

namespace netstack {

class NetLogRing : public NetLog::Observer {
 public:
  struct Limits {
    size_t max_entries = 50'000;
    // Of the entries as stored: each entry's struct plus the heap its params hold
    // (StoredBytes), so the bound is on memory, not on text that is never written.
    size_t max_bytes = 32 * 1024 * 1024;
  };
  NetLogRing() : NetLogRing(Limits{}) {}
  explicit NetLogRing(Limits limits);
  ~NetLogRing() override;

  // Starts observing `net_log` (stops observing the previous one). Null just stops. The ring
  // keeps its entries across NetLogs (a replay's passes); sequence numbers keep growing.
  // Attaching the NetLog already observed does nothing. `net_log` must outlive the attachment
  // (until the next Attach or the ring's destruction, which detaches). Attach the ring after
  // the NetLog's other observers.
  void Attach(NetLog* net_log);

  // NetLog::Observer: params as text, for every event.
  int ParamsNeed(NetLogEventType) const override { return kNetLogParamsText; }
  // Stores the entry (its params_text copied; an entry with only json params, handed in
  // directly, has them dumped), then evicts the oldest while over a limit. An entry larger
  // than max_bytes by itself is dropped (counted) at once; its sequence number is used up.
  void OnAddEntry(const NetLogEntry& entry) override;

  // /api/events: {"first_seq": oldest kept, "next_seq": the next to come, "dropped": evicted so
  // far, "events": [entries with seq > `after`, oldest first, at most `limit` (clamped to
  // 1..5000), each NetLogEntryToJson plus "seq" and "type_name"/"source_type_name"], "more"}.
  // `filter` (may be empty) keeps entries whose event type name, source type name or serialized
  // params contain it, case-insensitively; a filter of the form "id:N" matches source N exactly
  // (so "id:1" does not match source 12). When `limit` entries were returned before the end,
  // "more" is true and "next_seq" is the first matching entry not returned, so polling with
  // after = next_seq - 1 continues where this answer stopped; otherwise "next_seq" is the
  // sequence number the next arriving entry will get. An `after` older than the oldest kept
  // entry starts from the oldest (first_seq > after + 1 tells the page it missed some).
  nlohmann::json EventsAfter(uint64_t after, size_t limit, const std::string& filter) const;
  // /api/events/source: {"source_id", "events": [every kept entry of that source (in the newest
  // pass that has it), oldest first, each as in EventsAfter plus "offset_ms" from the source's
  // first kept entry], "truncated"}: at most 5000 entries (the first ones), "truncated" says
  // whether more were kept. No kept entry: "events" is empty.
  nlohmann::json SourceEvents(uint32_t source_id) const;
  // /api/netlog: a complete NetLog file (Chrome's layout) of the kept entries:
  // {"constants": NetLogConstants(time_tick_offset_ms, command_line), "events": [...],
  //  "polledData": polled_data plus {"dropped_events": N}}, as text. A `polled_data` that is not
  // an object is replaced by {}. The entries carry their "seq"/"type_name" extras, which Chrome's
  // viewer ignores.
  std::string ExportNetLog(int64_t time_tick_offset_ms, const std::string& command_line,
                           const nlohmann::json& polled_data) const;

  size_t size() const { return entries_.size(); }
  // The stored bytes of the kept entries (what max_bytes bounds): each entry's struct plus the
  // heap its params text holds.
  size_t bytes() const { return bytes_; }
  uint64_t dropped() const { return dropped_; }
  // For the Memory view: the bytes the ring holds (entries, params, bookkeeping).
  size_t EstimateMemoryUsage() const;

 private:
  // One kept entry: 72 bytes plus the params' heap.
  struct Stored {
    uint64_t seq;
    int64_t time_us;          // the entry's time (TimeTicks microseconds)
    int64_t source_start_us;  // its source's start time
    uint32_t pass;            // which attached NetLog it came from (source ids restart per NetLog)
    uint32_t source_id;
    uint32_t bytes;       // this entry's share of bytes_ (sizeof(Stored) + the text's heap)
    uint16_t type;        // NetLogEventType
    uint8_t source_type;  // NetLogSourceType
    uint8_t phase;        // NetLogEventPhase
    std::string params;   // JSON text; empty when the entry has none (null or empty params)
  };
  // Fills everything but params and bytes.
  Stored MakeStored(const NetLogEntry& entry);
  // Accounts for `stored` (params in place) and keeps it, or drops it when over the budget.
  void Keep(Stored stored);
  void EvictOldest();
  bool Matches(const Stored& stored, const std::string& lower_filter, bool id_filter,
               uint32_t filter_id) const;
  // The entry as the page's JSON (NetLogEntryToJson plus seq and the type names).
  static nlohmann::json ToJson(const Stored& stored);
  // Appends the export's text of `stored` to `out`, with its source ids (the entry's, and a
  // params "source_dependency") shifted by `id_offset` (an earlier pass's entries).
  static void AppendText(const Stored& stored, uint32_t id_offset, std::string* out);

  const Limits limits_;
  NetLog* net_log_ = nullptr;
  uint32_t pass_ = 0;
  std::deque<Stored> entries_;
  size_t bytes_ = 0;
  uint64_t next_seq_ = 1;
  uint64_t dropped_ = 0;
};

}  // namespace netstack

#endif  // NET_BASE_NET_LOG_RING_H_
