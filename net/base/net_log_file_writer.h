// Writes a NetLog as Chrome's NetLog JSON file: {"constants": ..., "events": [...],
// "polledData": ...}, the layout Chrome's netlog viewer (catapult netlog_viewer) opens.
// Events are streamed to the file as they arrive, so memory stays flat however long the log.
#ifndef NET_BASE_NET_LOG_FILE_WRITER_H_
#define NET_BASE_NET_LOG_FILE_WRITER_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "net/base/net_log.h"

namespace netstack {

// The constants block: every table the viewer requires (logEventTypes, clientInfo,
// logEventPhase, logSourceType, loadFlag, netError, addressFamily, timeTickOffset,
// logFormatVersion). `time_tick_offset_ms` is the wall-clock time (ms since the Unix epoch) of
// TimeTicks zero, so viewers can show dates. Shared with the internals page's export.
nlohmann::json NetLogConstants(int64_t time_tick_offset_ms, const std::string& command_line);

// One entry as Chrome writes it: times as decimal strings of milliseconds.
nlohmann::json NetLogEntryToJson(const NetLogEntry& entry);

class NetLogFileWriter : public NetLog::Observer {
 public:
  // Opens `path`, writes the constants and starts observing `net_log`. Returns null and sets
  // `error` ("cannot write netlog FILE: reason") on failure. At most `max_events` events are
  // written; later ones are counted as dropped (reported in polledData).
  static std::unique_ptr<NetLogFileWriter> Create(const std::string& path, NetLog* net_log,
                                                  const nlohmann::json& constants,
                                                  std::string* error,
                                                  uint64_t max_events = 5'000'000);
  ~NetLogFileWriter() override;

  // Params as text: the NetLog writes them once for every text observer.
  int ParamsNeed(NetLogEventType) const override { return kNetLogParamsText; }
  void OnAddEntry(const NetLogEntry& entry) override;

  // Stops observing, writes `polled_data` (the state of the stack at the end: host cache,
  // socket pools) and closes the file. Returns false and sets `error` if a write failed. Called
  // once; the destructor finishes with empty polled data if it was not.
  bool Finish(const nlohmann::json& polled_data, std::string* error);

  uint64_t events_written() const { return events_written_; }
  uint64_t events_dropped() const { return events_dropped_; }

 private:
  NetLogFileWriter(FILE* file, std::string path, NetLog* net_log, uint64_t max_events);

  FILE* file_;
  std::string path_;
  NetLog* net_log_;
  uint64_t max_events_;
  uint64_t events_written_ = 0;
  uint64_t events_dropped_ = 0;
  bool finished_ = false;
  std::string line_;  // the entry being written, reused
};

}  // namespace netstack

#endif  // NET_BASE_NET_LOG_FILE_WRITER_H_
