// NetLogRing: the internals page's Events view. A NetLog observer that keeps the most recent
// entries (bounded by count and bytes; the oldest go first and are counted as dropped), each
// with a sequence number, so the page can poll "everything after N" as a live stream, filter
// it, show one source's events as a timeline, and export the whole buffer as a NetLog file
// Chrome's viewer opens (the same constants and entry format as NetLogFileWriter).
#ifndef TOOLS_INTERNALS_NET_LOG_RING_H_
#define TOOLS_INTERNALS_NET_LOG_RING_H_

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
    size_t max_bytes = 32 * 1024 * 1024;  // of the entries' serialized JSON
  };
  NetLogRing() : NetLogRing(Limits{}) {}
  explicit NetLogRing(Limits limits);
  ~NetLogRing() override;

  // Starts observing `net_log` (stops observing the previous one). Null just stops. The ring
  // keeps its entries across NetLogs (a replay's passes); sequence numbers keep growing.
  void Attach(NetLog* net_log);

  // NetLog::Observer: stores the entry (serialized once, with NetLogEntryToJson).
  void OnAddEntry(const NetLogEntry& entry) override;

  // /api/events: {"first_seq": oldest kept, "next_seq": the next to come, "dropped": evicted so
  // far, "events": [entries with seq > `after`, oldest first, at most `limit` (clamped to
  // 1..5000), each NetLogEntryToJson plus "seq" and "type_name"/"source_type_name"]}. `filter`
  // (may be empty) keeps entries whose event type name, source type name, source id (as
  // "id:N") or serialized params contain it, case-insensitively.
  nlohmann::json EventsAfter(uint64_t after, size_t limit, const std::string& filter) const;
  // /api/events/source: {"source_id", "events": [every kept entry of that source, oldest first,
  // each with "seq", "type_name", and "offset_ms" from the source's first kept entry]}.
  nlohmann::json SourceEvents(uint32_t source_id) const;
  // /api/netlog: a complete NetLog file (Chrome's layout) of the kept entries:
  // {"constants": NetLogConstants(time_tick_offset_ms, command_line), "events": [...],
  //  "polledData": polled_data plus {"dropped_events": N}}, as text.
  std::string ExportNetLog(int64_t time_tick_offset_ms, const std::string& command_line,
                           const nlohmann::json& polled_data) const;

  size_t size() const { return entries_.size(); }
  size_t bytes() const { return bytes_; }
  uint64_t dropped() const { return dropped_; }
  // For the Memory view: the bytes the ring holds (entries, strings, bookkeeping).
  size_t EstimateMemoryUsage() const;

 private:
  struct Stored {
    uint64_t seq;
    uint32_t source_id;
    std::string json;  // NetLogEntryToJson(entry).dump()
  };
  void EvictOldest();

  const Limits limits_;
  NetLog* net_log_ = nullptr;
  std::deque<Stored> entries_;
  size_t bytes_ = 0;
  uint64_t next_seq_ = 1;
  uint64_t dropped_ = 0;
};

}  // namespace netstack

#endif  // TOOLS_INTERNALS_NET_LOG_RING_H_
