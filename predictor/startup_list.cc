#include "predictor/startup_list.h"

#include <algorithm>

#include "net/base/memory_usage_estimator.h"
#include "predictor/policy_util.h"

namespace netstack {

StartupList::StartupList(size_t size, TimeDelta window) : size_(size), window_(window) {}

std::vector<StartupList::Item> StartupList::Top() const {
  std::vector<const Counted*> all;
  for (const auto& [key, c] : counts_) all.push_back(&c);
  std::sort(all.begin(), all.end(), [](const Counted* a, const Counted* b) {
    return a->count != b->count ? a->count > b->count : a->first < b->first;
  });
  std::vector<Item> out;
  for (size_t i = 0; i < all.size() && i < size_; ++i) {
    out.push_back({all[i]->origin, all[i]->count});
  }
  return out;
}

std::vector<StartupList::Item> StartupList::Current() const {
  return counts_.empty() ? list_ : Top();
}

std::vector<StartupList::Item> StartupList::Start(TimeTicks now) {
  list_ = Current();
  counts_.clear();
  loaded_.clear();
  window_open_ = true;
  window_start_ = now;
  return list_;
}

void StartupList::OnUse(const SchemeHostPort& origin, TimeTicks now) {
  if (!window_open_ || now < window_start_ || now - window_start_ > window_) return;
  std::string key = OriginKey(origin);
  auto it = counts_.find(key);
  if (it == counts_.end()) {
    if (counts_.size() >= kMaxCounted) return;
    it = counts_.emplace(key, Counted{origin, 0, ++sequence_}).first;
  }
  ++it->second.count;
}

void StartupList::AppendRows(std::vector<PredictorRow>* out) const {
  std::vector<Item> list = Current();
  for (size_t i = 0; i < list.size(); ++i) {
    out->push_back(PredictorRow{
        "startup", OriginKey(list[i].origin), "", {{"count", list[i].count}, {"rank", i}}});
  }
}

bool StartupList::LoadRow(const PredictorRow& row) {
  Item item;
  uint64_t rank;
  if (!ParseOriginKey(row.key, &item.origin) || !ReadCount(row.data, "count", &item.count) ||
      !ReadCount(row.data, "rank", &rank) || rank >= size_ || loaded_.count(rank)) {
    return false;
  }
  loaded_[rank] = item;
  list_.clear();
  for (const auto& [r, i] : loaded_) list_.push_back(i);
  return true;
}

size_t StartupList::EstimateMemoryUsage() const {
  size_t bytes = counts_.size() * TreeNodeBytes<decltype(counts_)::value_type>() +
                 list_.capacity() * sizeof(Item) +
                 loaded_.size() * TreeNodeBytes<decltype(loaded_)::value_type>();
  for (const auto& [key, counted] : counts_)
    bytes += netstack::EstimateMemoryUsage(key) + netstack::EstimateMemoryUsage(counted.origin);
  for (const Item& item : list_) bytes += netstack::EstimateMemoryUsage(item.origin);
  for (const auto& [rank, item] : loaded_) bytes += netstack::EstimateMemoryUsage(item.origin);
  return bytes;
}

}  // namespace netstack
