#include "net/base/net_log.h"

#include <algorithm>

namespace netstack {

const char* NetLogEventTypeToString(NetLogEventType type) {
  static const char* kNames[] = {
#define EVENT_TYPE(name) #name,
#include "net/base/net_log_event_type_list.h"
#undef EVENT_TYPE
  };
  int i = static_cast<int>(type);
  return i >= 0 && i < static_cast<int>(NetLogEventType::kCount) ? kNames[i] : "UNKNOWN";
}

const char* NetLogSourceTypeToString(NetLogSourceType type) {
  static const char* kNames[] = {
#define SOURCE_TYPE(name) #name,
#include "net/base/net_log_source_type_list.h"
#undef SOURCE_TYPE
  };
  int i = static_cast<int>(type);
  return i >= 0 && i < static_cast<int>(NetLogSourceType::kCount) ? kNames[i] : "UNKNOWN";
}

nlohmann::json NetLogSource::ToJson() const {
  return {{"type", static_cast<int>(type)}, {"id", id}};
}

void NetLog::AddObserver(Observer* observer) { observers_.push_back(observer); }

void NetLog::RemoveObserver(Observer* observer) {
  observers_.erase(std::remove(observers_.begin(), observers_.end(), observer), observers_.end());
}

void NetLog::AddEntry(NetLogEventType type, const NetLogSource& source, NetLogEventPhase phase,
                      const NetLogParamsCallback& params) {
  if (observers_.empty()) return;
  NetLogEntry entry{type, source, phase, clock_.Now(), params ? params() : nlohmann::json()};
  const size_t last = observers_.size() - 1;
  for (size_t i = 0; i < last; ++i) observers_[i]->OnAddEntry(entry);
  observers_[last]->OnAddEntryAsLast(entry);
}

NetLogWithSource NetLogWithSource::Make(NetLog* net_log, NetLogSourceType type) {
  NetLogWithSource result;
  if (!net_log) return result;
  result.net_log_ = net_log;
  result.source_ = NetLogSource{type, net_log->NextID(), net_log->Now()};
  return result;
}

void NetLogWithSource::BeginEvent(NetLogEventType type, const NetLogParamsCallback& params) const {
  if (net_log_) net_log_->AddEntry(type, source_, NetLogEventPhase::BEGIN, params);
}

void NetLogWithSource::EndEvent(NetLogEventType type, const NetLogParamsCallback& params) const {
  if (net_log_) net_log_->AddEntry(type, source_, NetLogEventPhase::END, params);
}

void NetLogWithSource::AddEvent(NetLogEventType type, const NetLogParamsCallback& params) const {
  if (net_log_) net_log_->AddEntry(type, source_, NetLogEventPhase::NONE, params);
}

void NetLogWithSource::EndEventWithNetErrorCode(NetLogEventType type, int error) const {
  if (error < 0) {
    EndEvent(type, [error] { return nlohmann::json{{"net_error", error}}; });
  } else {
    EndEvent(type);
  }
}

void NetLogWithSource::AddEventReferencingSource(NetLogEventType type,
                                                 const NetLogSource& other) const {
  AddEvent(type, [&other] { return nlohmann::json{{"source_dependency", other.ToJson()}}; });
}

}  // namespace netstack
