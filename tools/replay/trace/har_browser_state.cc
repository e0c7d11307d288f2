#include "tools/replay/trace/har_browser_state.h"

#include <set>
#include <string>
#include <tuple>

#include "net/base/url.h"

namespace netstack {

namespace {

// The URL without its fragment.
std::string WithoutFragment(const std::string& url) { return url.substr(0, url.find('#')); }

// Took the network: not the browser's cache, not a recorded failure, a response.
bool IsNetworkEntry(const TraceEntry& entry) {
  return !entry.recorded_from_cache && entry.recorded_error.empty() && entry.status > 0;
}

// No DNS and no connect recorded (absent or 0).
bool NoSetupRecorded(const TraceEntry& entry) {
  return entry.timings.dns <= 0 && entry.timings.connect <= 0;
}

using Origin = std::tuple<std::string, std::string, uint16_t>;

}  // namespace

void MarkNewRuns(std::vector<TracePage>* pages, const std::vector<HarPageState>& states) {
  for (size_t i = 0; i < pages->size(); ++i) {
    TracePage& page = (*pages)[i];
    if (i == 0) {
      page.new_run = true;
      continue;
    }
    const TracePage& previous = (*pages)[i - 1];
    int64_t run = i < states.size() ? states[i].run : -1;
    int64_t previous_run = i - 1 < states.size() ? states[i - 1].run : -1;
    if (run >= 0 && previous_run >= 0) {
      page.new_run = run != previous_run;
    } else {
      page.new_run =
          !page.entries.empty() && !previous.entries.empty() &&
          WithoutFragment(page.entries[0].url) == WithoutFragment(previous.entries[0].url);
    }
  }
}

void MarkWarmConnections(std::vector<TracePage>* pages, const std::vector<HarPageState>& states) {
  bool file_times_setup = false;
  for (const TracePage& page : *pages) {
    for (const TraceEntry& entry : page.entries) file_times_setup |= entry.timings.connect > 0;
  }
  std::set<std::string> run_ids;  // connection ids used by the current run's earlier pages
  for (size_t p = 0; p < pages->size(); ++p) {
    TracePage& page = (*pages)[p];
    if (page.new_run) run_ids.clear();
    std::set<std::string> page_ids;  // ids used earlier in this page
    std::set<Origin> page_origins;   // origins with a network entry earlier in this page
    for (size_t i = 0; i < page.entries.size(); ++i) {
      TraceEntry& entry = page.entries[i];
      if (!IsNetworkEntry(entry)) continue;
      Url url;
      std::string ignored;
      if (Url::Parse(entry.url, &url, &ignored) != 0) continue;
      bool origin_first = page_origins.emplace(url.scheme(), url.host(), url.port()).second;
      const std::string& id = entry.connection_id;
      bool id_first = !id.empty() && page_ids.insert(id).second;
      bool connection_first = id.empty() ? origin_first : id_first;
      if (!connection_first || !NoSetupRecorded(entry)) continue;
      int8_t reused = -1;
      if (p < states.size() && i < states[p].connection_reused.size())
        reused = states[p].connection_reused[i];
      if (reused >= 0) {
        entry.recorded_warm_connection = reused == 1;
      } else if (!id.empty() && run_ids.count(id)) {
        entry.recorded_warm_connection = true;
      } else {
        bool timed = entry.timings.wait >= 0 || entry.timings.receive >= 0;
        entry.recorded_warm_connection = origin_first && timed && file_times_setup;
      }
    }
    run_ids.insert(page_ids.begin(), page_ids.end());
  }
}

}  // namespace netstack
