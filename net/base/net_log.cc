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

int NetLog::ParamsNeed(NetLogEventType type) const {
  int need = kNetLogParamsNone;
  for (const Observer* observer : observers_) need |= observer->ParamsNeed(type);
  return need;
}

void NetLog::Dispatch(const NetLogEntry& entry) {
  for (Observer* observer : observers_) observer->OnAddEntry(entry);
}

void NetLog::AddEntry(NetLogEventType type, const NetLogSource& source, NetLogEventPhase phase,
                      const NetLogParamsCallback& params) {
  if (observers_.empty()) return;
  NetLogEntry entry{type, source, phase, clock_.Now(), nlohmann::json()};
  const int need = params ? ParamsNeed(type) : kNetLogParamsNone;
  if (need == kNetLogParamsNone) return Dispatch(entry);
  entry.params = params();
  if ((need & kNetLogParamsText) && !entry.params.is_null() && !entry.params.empty()) {
    // Dumped once here for every text observer (an entry logged by an observer gets its own).
    std::string local;
    std::string& text = writing_ ? local : text_;
    const bool was_writing = writing_;
    writing_ = true;
    text.clear();
    NetLogParams::AppendJson(entry.params, &text);
    entry.params_text = text;
    Dispatch(entry);
    writing_ = was_writing;
    return;
  }
  Dispatch(entry);
}

void NetLog::AddEntry(NetLogEventType type, const NetLogSource& source, NetLogEventPhase phase,
                      NetLogParamsWriterRef write) {
  if (observers_.empty()) return;
  NetLogEntry entry{type, source, phase, clock_.Now(), nlohmann::json()};
  const int need = ParamsNeed(type);
  if (need == kNetLogParamsNone) return Dispatch(entry);
  NetLogParams local;
  NetLogParams& params = writing_ ? local : params_;
  const bool was_writing = writing_;
  writing_ = true;
  params.Clear();
  write(params);
  const std::string& text = params.Finish();
  if (!params.empty()) {
    if (need & kNetLogParamsText) entry.params_text = text;
    // Observers that read values (tests, the histograms) get the text parsed back: the same
    // values a json callback would have given, as a NetLog file read back has them.
    if (need & kNetLogParamsJson) {
      entry.params = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (entry.params.is_discarded()) entry.params = nullptr;
    }
  }
  Dispatch(entry);
  writing_ = was_writing;
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
    EndEvent(type, [error](NetLogParams& p) { p.Add("net_error", error); });
  } else {
    EndEvent(type);
  }
}

void NetLogWithSource::AddEventReferencingSource(NetLogEventType type,
                                                 const NetLogSource& other) const {
  AddEvent(type, [&other](NetLogParams& p) { p.AddSource("source_dependency", other); });
}

}  // namespace netstack
