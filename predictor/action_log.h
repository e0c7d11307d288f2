// ActionLog: what the predictor shows of its speculative actions, apart from deciding their
// outcomes (ActionAccounting does that and reports here): the last kRecentActions actions with
// their current outcome (the internals page's "recent" list, `fetch --page --json`'s actions),
// and a per-origin summary of what was done for each origin (a request record's `speculative`).
// Both are bounded: the ring drops its oldest entry, the summary its least recently touched
// origin.
#ifndef PREDICTOR_ACTION_LOG_H_
#define PREDICTOR_ACTION_LOG_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "net/base/time.h"
#include "net/base/url.h"
#include "predictor/hint.h"

namespace netstack {

class ActionLog {
 public:
  static constexpr size_t kRecentActions = 100;
  static constexpr size_t kMaxOrigins = 1000;

  // An action's state as the ring shows it: its outcome ("pending", "used", "late", "wasted",
  // "none"), and for a preconnect its sockets (jobs the pool started, used, late, wasted) and
  // the pool's synchronous error (OK when none).
  struct State {
    const char* outcome = "pending";
    int jobs = 0, used = 0, late = 0, wasted = 0;
    int error = 0;
  };

  ActionLog();
  ~ActionLog();
  ActionLog(const ActionLog&) = delete;
  ActionLog& operator=(const ActionLog&) = delete;

  // Action `id` started at `time` for `hint`, in `state`: it enters the ring (the oldest entry
  // leaves past kRecentActions), and a pre-resolve or fetch ahead is noted for its origin.
  void OnStarted(uint64_t id, TimeTicks time, const Hint& hint, const State& state);
  // Action `id`'s state changed; nothing when it has left the ring.
  void Update(uint64_t id, const State& state);
  // A preconnect job started for `origin` (one socket taken).
  void OnPreconnectSocket(const SchemeHostPort& origin);
  // A unit of an action for `origin` was decided `outcome` (the origin's last outcome).
  void OnDecided(const SchemeHostPort& origin, const char* outcome);

  // The ring, oldest first: {time_ms, motivation, action, origin, url (fetch ahead; else null),
  // likelihood, page, outcome, sockets: {taken, used, late, wasted} for preconnects, error when
  // the pool refused}.
  nlohmann::json RecentToJson() const;
  // {"preresolved", "preconnected" (sockets), "fetched_ahead", "outcome" (the last decided,
  // null when none)} for `origin`; all zero / false / null for an origin not in the summary.
  nlohmann::json SpeculativeFor(const SchemeHostPort& origin) const;
  // Heap bytes of the ring and the summary (net/base/memory_usage_estimator.h), not counting
  // sizeof(ActionLog).
  size_t EstimateMemoryUsage() const;

 private:
  struct RecentEntry {
    uint64_t id = 0;
    TimeTicks time{};
    Hint hint;
    State state;
  };
  struct OriginRecord {
    bool preresolved = false;
    uint64_t preconnected = 0;  // sockets taken
    uint64_t fetched_ahead = 0;
    const char* outcome = nullptr;  // the last decided outcome
  };
  using OriginList = std::list<std::pair<SchemeHostPort, OriginRecord>>;

  // The origin's record, made the most recently used (created, evicting the least recently
  // used past kMaxOrigins, when absent).
  OriginRecord& RecordFor(const SchemeHostPort& origin);

  std::deque<RecentEntry> recent_;
  OriginList origins_;  // most recently touched first
  std::map<SchemeHostPort, OriginList::iterator> origin_index_;
};

}  // namespace netstack

#endif  // PREDICTOR_ACTION_LOG_H_
