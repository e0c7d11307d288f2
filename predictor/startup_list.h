// StartupList: the chrome policy's startup list (Chrome's InitialObserver). The origins requested
// within `window` after a start are counted; the `size` most used (ties: first used first)
// become the list the next start pre-resolves. No timer: a window closes at the next start or
// when asked after it ended. Bounded: at most kMaxCounted origins counted per window, `size`
// listed.
#ifndef PREDICTOR_STARTUP_LIST_H_
#define PREDICTOR_STARTUP_LIST_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "net/base/time.h"
#include "net/base/url.h"
#include "predictor/predictor_policy.h"

namespace netstack {

class StartupList {
 public:
  static constexpr size_t kMaxCounted = 1000;

  struct Item {
    SchemeHostPort origin;
    uint64_t count = 0;
  };

  StartupList(size_t size, TimeDelta window);

  // A start at `now`: closes the previous window (its counts, if any, replace the list) and
  // returns the list to pre-resolve, most used first; a new window opens.
  std::vector<Item> Start(TimeTicks now);
  // A request to `origin` at `now`; counted if within the open window.
  void OnUse(const SchemeHostPort& origin, TimeTicks now);

  // The list the next start would use (the open window's top if it counted anything).
  std::vector<Item> Current() const;
  // Counts in the open window (for tests and the tables).
  size_t window_size() const { return counts_.size(); }

  // Persistence: table "startup", key = origin key, data {count, rank}: the Current() list.
  void AppendRows(std::vector<PredictorRow>* out) const;
  // False for a malformed row. Rows beyond `size` are skipped (false).
  bool LoadRow(const PredictorRow& row);

  // For the Memory view: an estimate of the heap bytes of the window's counts, the list and
  // rows being loaded, not counting sizeof(StartupList). See net/base/memory_usage_estimator.h.
  size_t EstimateMemoryUsage() const;

 private:
  struct Counted {
    SchemeHostPort origin;
    uint64_t count = 0;
    uint64_t first = 0;  // order of first use, for ties
  };
  std::vector<Item> Top() const;

  const size_t size_;
  const TimeDelta window_;
  bool window_open_ = false;
  TimeTicks window_start_{};
  uint64_t sequence_ = 0;
  std::map<std::string, Counted> counts_;
  std::vector<Item> list_;
  std::map<uint64_t, Item> loaded_;  // rank -> item while loading rows
};

}  // namespace netstack

#endif  // PREDICTOR_STARTUP_LIST_H_
