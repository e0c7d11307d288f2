#include "predictor/action_log.h"

#include "net/base/memory_usage_estimator.h"
#include "net/base/net_error.h"

namespace netstack {

ActionLog::ActionLog() = default;
ActionLog::~ActionLog() = default;

void ActionLog::OnStarted(uint64_t id, TimeTicks time, const Hint& hint, const State& state) {
  OriginRecord& record = RecordFor(hint.origin);
  if (hint.action == SpeculativeAction::kPreresolve) record.preresolved = true;
  if (hint.action == SpeculativeAction::kFetchAhead) ++record.fetched_ahead;
  recent_.push_back({id, time, hint, state});
  while (recent_.size() > kRecentActions) recent_.pop_front();
}

void ActionLog::Update(uint64_t id, const State& state) {
  // The newest entries change most: search from the back.
  for (auto it = recent_.rbegin(); it != recent_.rend(); ++it) {
    if (it->id != id) continue;
    it->state = state;
    return;
  }
}

void ActionLog::OnPreconnectSocket(const SchemeHostPort& origin) {
  ++RecordFor(origin).preconnected;
}

void ActionLog::OnDecided(const SchemeHostPort& origin, const char* outcome) {
  RecordFor(origin).outcome = outcome;
}

nlohmann::json ActionLog::RecentToJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const RecentEntry& e : recent_) {
    nlohmann::json j = {
        {"time_ms", ToMilliseconds(e.time)},
        {"motivation", HintMotivationName(e.hint.motivation)},
        {"action", SpeculativeActionName(e.hint.action)},
        {"origin", e.hint.origin.ToString()},
        {"url", e.hint.action == SpeculativeAction::kFetchAhead ? nlohmann::json(e.hint.url.spec())
                                                                : nlohmann::json(nullptr)},
        {"likelihood", e.hint.likelihood},
        {"page", e.hint.page},
        {"outcome", e.state.outcome},
    };
    if (e.hint.action == SpeculativeAction::kPreconnect) {
      j["sockets"] = {{"taken", e.state.jobs},
                      {"used", e.state.used},
                      {"late", e.state.late},
                      {"wasted", e.state.wasted}};
    }
    if (e.state.error != OK) j["error"] = ErrorToString(e.state.error);
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json ActionLog::SpeculativeFor(const SchemeHostPort& origin) const {
  auto it = origin_index_.find(origin);
  if (it == origin_index_.end()) {
    return {
        {"preresolved", false}, {"preconnected", 0}, {"fetched_ahead", 0}, {"outcome", nullptr}};
  }
  const OriginRecord& r = it->second->second;
  return {{"preresolved", r.preresolved},
          {"preconnected", r.preconnected},
          {"fetched_ahead", r.fetched_ahead},
          {"outcome", r.outcome ? nlohmann::json(r.outcome) : nlohmann::json(nullptr)}};
}

ActionLog::OriginRecord& ActionLog::RecordFor(const SchemeHostPort& origin) {
  auto it = origin_index_.find(origin);
  if (it != origin_index_.end()) {
    origins_.splice(origins_.begin(), origins_, it->second);
    return origins_.front().second;
  }
  origins_.emplace_front(origin, OriginRecord{});
  origin_index_[origin] = origins_.begin();
  while (origins_.size() > kMaxOrigins) {
    origin_index_.erase(origins_.back().first);
    origins_.pop_back();
  }
  return origins_.front().second;
}

size_t ActionLog::EstimateMemoryUsage() const {
  const auto hint_bytes = [](const Hint& hint) {
    return netstack::EstimateMemoryUsage(hint.origin) + netstack::EstimateMemoryUsage(hint.url) +
           netstack::EstimateMemoryUsage(hint.page);
  };
  size_t bytes = recent_.size() * sizeof(RecentEntry) + (recent_.empty() ? 0 : 512);
  for (const RecentEntry& entry : recent_) bytes += hint_bytes(entry.hint);
  bytes += origins_.size() * (ListNodeBytes<OriginList::value_type>() +
                              TreeNodeBytes<decltype(origin_index_)::value_type>());
  for (const auto& [origin, record] : origins_) bytes += 2 * netstack::EstimateMemoryUsage(origin);
  return bytes;
}

}  // namespace netstack
