// NetLog: the stream of events every step of the stack emits (like Chrome's). Producers hold a
// NetLogWithSource; observers (a file writer, the internals page) see every entry. Parameters
// are built lazily: the params function runs only while someone observes.
#ifndef NET_BASE_NET_LOG_H_
#define NET_BASE_NET_LOG_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/base/scheduler.h"
#include "net/base/time.h"

namespace netstack {

enum class NetLogEventType : int {
#define EVENT_TYPE(name) name,
#include "net/base/net_log_event_type_list.h"
#undef EVENT_TYPE
  kCount
};

enum class NetLogSourceType : int {
#define SOURCE_TYPE(name) name,
#include "net/base/net_log_source_type_list.h"
#undef SOURCE_TYPE
  kCount
};

// Chrome's phases: PHASE_NONE = 0, PHASE_BEGIN = 1, PHASE_END = 2.
enum class NetLogEventPhase : int { NONE = 0, BEGIN = 1, END = 2 };

const char* NetLogEventTypeToString(NetLogEventType type);
const char* NetLogSourceTypeToString(NetLogSourceType type);

struct NetLogSource {
  NetLogSourceType type = NetLogSourceType::NONE;
  uint32_t id = 0;  // 0 = invalid
  TimeTicks start_time{};
  bool IsValid() const { return id != 0; }
  // {"type": <int>, "id": <int>} as Chrome writes a "source_dependency" parameter.
  nlohmann::json ToJson() const;
};

struct NetLogEntry {
  NetLogEventType type;
  NetLogSource source;
  NetLogEventPhase phase;
  TimeTicks time;
  nlohmann::json params;  // null when the event has none
};

using NetLogParamsCallback = std::function<nlohmann::json()>;

class NetLog {
 public:
  class Observer {
   public:
    virtual ~Observer() = default;
    // Called synchronously for every entry while registered. Must not add or remove observers.
    virtual void OnAddEntry(const NetLogEntry& entry) = 0;
    // For observers that keep entries (the internals page's ring): NetLog calls this instead of
    // OnAddEntry for the last registered observer, which no other observer follows for this
    // entry, so it may move entry.params away instead of copying them. Same rules as
    // OnAddEntry. The default calls OnAddEntry.
    virtual void OnAddEntryAsLast(NetLogEntry& entry) { OnAddEntry(entry); }
  };

  // `clock` gives event times; it must outlive the NetLog.
  explicit NetLog(const Scheduler& clock) : clock_(clock) {}

  // A new source id, unique for this NetLog's life (starts at 1).
  uint32_t NextID() { return next_id_++; }
  TimeTicks Now() const { return clock_.Now(); }

  void AddObserver(Observer* observer);
  void RemoveObserver(Observer* observer);
  bool IsCapturing() const { return !observers_.empty(); }

  // Builds params (if capturing) and hands the entry to each observer in registration order
  // (the last one through OnAddEntryAsLast). Without observers it returns at once: params are
  // never built.
  void AddEntry(NetLogEventType type, const NetLogSource& source, NetLogEventPhase phase,
                const NetLogParamsCallback& params = {});

 private:
  const Scheduler& clock_;
  uint32_t next_id_ = 1;
  std::vector<Observer*> observers_;
};

// A NetLog plus the source a producer logs as. Cheap to copy; a default-constructed one (no
// NetLog) drops everything, so code never checks for null.
class NetLogWithSource {
 public:
  NetLogWithSource() = default;
  static NetLogWithSource Make(NetLog* net_log, NetLogSourceType type);

  void BeginEvent(NetLogEventType type, const NetLogParamsCallback& params = {}) const;
  void EndEvent(NetLogEventType type, const NetLogParamsCallback& params = {}) const;
  void AddEvent(NetLogEventType type, const NetLogParamsCallback& params = {}) const;
  // Ends with {"net_error": error} when error < 0, and no params otherwise.
  void EndEventWithNetErrorCode(NetLogEventType type, int error) const;
  // A PHASE_NONE event with {"source_dependency": other}.
  void AddEventReferencingSource(NetLogEventType type, const NetLogSource& other) const;

  const NetLogSource& source() const { return source_; }
  NetLog* net_log() const { return net_log_; }
  bool IsCapturing() const { return net_log_ && net_log_->IsCapturing(); }

 private:
  NetLog* net_log_ = nullptr;
  NetLogSource source_;
};

}  // namespace netstack

#endif  // NET_BASE_NET_LOG_H_
