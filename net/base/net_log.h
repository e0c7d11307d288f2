// NetLog: the stream of events every step of the stack emits (like Chrome's). Producers hold a
// NetLogWithSource; observers (a file writer, the internals page) see every entry. Parameters
// are built lazily, as Chromium's NetLogWithSource::AddEvent(type, callback) builds them: the
// callback runs only when an observer wants this event's params (NetLog::Observer::ParamsNeed),
// and in the form observers want. A call site writes them as text (a callback taking
// NetLogParams&, the cheap way) or returns an nlohmann::json (NetLogParamsCallback).
#ifndef NET_BASE_NET_LOG_H_
#define NET_BASE_NET_LOG_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "net/base/net_log_params.h"
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
  // Null when the event has none, or when no observer asked for json params (ParamsNeed).
  nlohmann::json params;
  // The params as JSON text, exactly nlohmann's dump(-1) of `params` (error_handler replace),
  // when an observer asked for text; empty when the event has none ("{}" is none too) or no
  // observer asked. Points into the NetLog's buffer: valid only during the observer call.
  std::string_view params_text{};
};

using NetLogParamsCallback = std::function<nlohmann::json()>;

// What an observer needs of an event's params (a bit set).
enum NetLogParamsNeed : int {
  kNetLogParamsNone = 0,  // the type, phase, source and time only: params are not built
  kNetLogParamsJson = 1,  // NetLogEntry::params
  kNetLogParamsText = 2,  // NetLogEntry::params_text
};

// A non-owning reference to a call site's params writer, for the one synchronous call inside
// NetLog::AddEntry: nothing is copied or allocated, whatever the lambda captures.
class NetLogParamsWriterRef {
 public:
  template <typename F>
  explicit NetLogParamsWriterRef(F& write)
      : object_(const_cast<void*>(static_cast<const void*>(&write))),
        call_([](void* object, NetLogParams& params) { (*static_cast<F*>(object))(params); }) {}
  void operator()(NetLogParams& params) const { call_(object_, params); }

 private:
  void* object_;
  void (*call_)(void*, NetLogParams&);
};

class NetLog {
 public:
  class Observer {
   public:
    virtual ~Observer() = default;
    // What this observer needs of `type`'s params (NetLogParamsNeed bits). The NetLog builds
    // an entry's params only when some observer needs them, and only in the forms asked for.
    // The default, json, suits observers that read params as values (tests, recorders).
    virtual int ParamsNeed(NetLogEventType type) const { return kNetLogParamsJson; }
    // Called synchronously for every entry while registered. Must not add or remove observers.
    virtual void OnAddEntry(const NetLogEntry& entry) = 0;
  };

  // `clock` gives event times; it must outlive the NetLog.
  explicit NetLog(const Scheduler& clock) : clock_(clock) {}

  // A new source id, unique for this NetLog's life (starts at 1).
  uint32_t NextID() { return next_id_++; }
  TimeTicks Now() const { return clock_.Now(); }

  void AddObserver(Observer* observer);
  void RemoveObserver(Observer* observer);
  bool IsCapturing() const { return !observers_.empty(); }

  // Builds params in the forms the observers need (ParamsNeed; json params dumped when text is
  // wanted, written params parsed when json is) and hands the entry to each observer in
  // registration order. Without observers, or when none needs params, `params` never runs.
  void AddEntry(NetLogEventType type, const NetLogSource& source, NetLogEventPhase phase,
                const NetLogParamsCallback& params = {});
  void AddEntry(NetLogEventType type, const NetLogSource& source, NetLogEventPhase phase,
                NetLogParamsWriterRef write);

 private:
  // The union of the observers' ParamsNeed(type).
  int ParamsNeed(NetLogEventType type) const;
  void Dispatch(const NetLogEntry& entry);

  const Scheduler& clock_;
  uint32_t next_id_ = 1;
  std::vector<Observer*> observers_;
  // Reused for every entry's text (no allocation once grown); `writing_` while in use, so an
  // entry logged from inside an observer gets its own.
  NetLogParams params_;
  std::string text_;
  bool writing_ = false;
};

// A NetLog plus the source a producer logs as. Cheap to copy; a default-constructed one (no
// NetLog) drops everything, so code never checks for null.
class NetLogWithSource {
  template <typename Writer>
  using WhenWriter = std::enable_if_t<std::is_invocable_v<Writer&, NetLogParams&>, int>;

 public:
  NetLogWithSource() = default;
  static NetLogWithSource Make(NetLog* net_log, NetLogSourceType type);

  void BeginEvent(NetLogEventType type, const NetLogParamsCallback& params = {}) const;
  void EndEvent(NetLogEventType type, const NetLogParamsCallback& params = {}) const;
  void AddEvent(NetLogEventType type, const NetLogParamsCallback& params = {}) const;
  // The same with params written as text: `write` is a callable taking NetLogParams& (add keys
  // in sorted order, see net_log_params.h); it runs only when an observer wants the params.
  template <typename Writer, WhenWriter<Writer> = 0>
  void BeginEvent(NetLogEventType type, Writer&& write) const {
    if (IsCapturing())
      net_log_->AddEntry(type, source_, NetLogEventPhase::BEGIN, NetLogParamsWriterRef(write));
  }
  template <typename Writer, WhenWriter<Writer> = 0>
  void EndEvent(NetLogEventType type, Writer&& write) const {
    if (IsCapturing())
      net_log_->AddEntry(type, source_, NetLogEventPhase::END, NetLogParamsWriterRef(write));
  }
  template <typename Writer, WhenWriter<Writer> = 0>
  void AddEvent(NetLogEventType type, Writer&& write) const {
    if (IsCapturing())
      net_log_->AddEntry(type, source_, NetLogEventPhase::NONE, NetLogParamsWriterRef(write));
  }
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
