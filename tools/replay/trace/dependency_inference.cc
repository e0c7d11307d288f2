#include "tools/replay/trace/dependency_inference.h"

#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

namespace netstack {

namespace {

// Links `child` to `parent` (parent < child) with the gap rule of the header.
void Link(std::vector<TraceEntry>& entries, int parent, size_t child, InitiatorKind kind) {
  TraceEntry& entry = entries[child];
  const TraceEntry& from = entries[parent];
  entry.parent = parent;
  entry.initiator = kind;
  double end = from.RecordedEndMs();
  if (entry.start_ms >= end) {
    entry.gap_from = TraceEntry::GapFrom::kParentEnd;
    entry.gap_ms = entry.start_ms - end;
  } else {
    entry.gap_from = TraceEntry::GapFrom::kParentFirstByte;
    double first_byte = from.RecordedFirstByteMs();
    entry.gap_ms = entry.start_ms > first_byte ? entry.start_ms - first_byte : 0;
  }
}

}  // namespace

bool RevealsRequests(const std::string& resource_type) {
  return resource_type == "document" || resource_type == "script" || resource_type == "stylesheet";
}

void InferDependencies(std::vector<TraceEntry>* entries_ptr,
                       const std::vector<DependencyHints>& hints) {
  std::vector<TraceEntry>& entries = *entries_ptr;
  // The latest entry so far with a given URL, and the latest that redirected to a given URL.
  std::unordered_map<std::string, int> latest_with_url;
  std::unordered_map<std::string, int> latest_redirect_to;
  // Entries before the current one, by end time: popped into the "ended" trackers once they
  // ended at or before the current start. Starts are sorted, so nothing popped comes back.
  using EndAndIndex = std::pair<double, int>;
  std::priority_queue<EndAndIndex, std::vector<EndAndIndex>, std::greater<EndAndIndex>> by_end;
  int ended_latest = -1, ended_latest_revealing = -1;
  double ended_latest_end = 0, ended_latest_revealing_end = 0;
  auto ended = [&](double end, int index) {
    if (ended_latest < 0 || end >= ended_latest_end) {
      ended_latest = index;
      ended_latest_end = end;
    }
    if (RevealsRequests(entries[index].resource_type) &&
        (ended_latest_revealing < 0 || end >= ended_latest_revealing_end)) {
      ended_latest_revealing = index;
      ended_latest_revealing_end = end;
    }
  };
  // Entries that ended but started at the current start (so zero-length, all at one instant):
  // a parent must have started before its child, so they wait here, in (end, index) order, until
  // the start moves past them. Kept aside rather than pushed back into `by_end`, which made
  // many entries sharing a start quadratic.
  std::vector<EndAndIndex> same_start;

  for (size_t i = 0; i < entries.size(); ++i) {
    TraceEntry& entry = entries[i];
    entry.parent = -1;
    entry.gap_ms = 0;
    entry.gap_from = TraceEntry::GapFrom::kParentEnd;
    entry.initiator = InitiatorKind::kNone;
    if (i > 0) {
      // A parent must have started before its child: an entry that started at the same instant
      // (a zero-length recording, typically a cache read timed as nothing) was revealed by the
      // same parse, it did not reveal the child. Held back for later children.
      if (!same_start.empty() && entries[same_start.front().second].start_ms < entry.start_ms) {
        for (const auto& [end, index] : same_start) ended(end, index);
        same_start.clear();
      }
      while (!by_end.empty() && by_end.top().first <= entry.start_ms) {
        auto [end, index] = by_end.top();
        by_end.pop();
        if (entries[index].start_ms >= entry.start_ms) {
          same_start.emplace_back(end, index);
        } else {
          ended(end, index);
        }
      }
      const DependencyHints& hint = hints[i];
      auto redirect =
          hint.url.empty() ? latest_redirect_to.end() : latest_redirect_to.find(hint.url);
      auto initiator =
          hint.initiator.empty() ? latest_with_url.end() : latest_with_url.find(hint.initiator);
      if (redirect != latest_redirect_to.end()) {
        Link(entries, redirect->second, i, InitiatorKind::kRedirect);
      } else if (initiator != latest_with_url.end()) {
        Link(entries, initiator->second, i, InitiatorKind::kRecorded);
      } else {
        int parent = ended_latest_revealing >= 0 ? ended_latest_revealing
                     : ended_latest >= 0         ? ended_latest
                                                 : 0;
        Link(entries, parent, i, InitiatorKind::kInferred);
      }
    }
    if (!hints[i].url.empty()) latest_with_url[hints[i].url] = static_cast<int>(i);
    if (!hints[i].redirect_to.empty())
      latest_redirect_to[hints[i].redirect_to] = static_cast<int>(i);
    by_end.emplace(entry.RecordedEndMs(), static_cast<int>(i));
  }
}

}  // namespace netstack
