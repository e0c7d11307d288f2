// ReplayReport: `netstack replay --report FILE.html`. An observer of a replay that writes one
// self-contained HTML page (inline CSS and SVG, no script, nothing fetched): a summary of the
// totals, the configuration, a comparison of two configurations when given (--compare), the
// distributions of page load time and of every request phase (histograms), and a waterfall per
// page as WebPageTest draws them.
//
// Memory is bounded whatever the trace's length: full waterfalls are kept for the first
// `max_waterfall_pages` pages seen (100 by default; the report says how many more there were),
// at most kMaxRowsPerPage requests each; everything else goes into fixed-size histograms and
// counters. Output is a function of the results only (no dates, no addresses), so the same
// replay gives the same bytes.
#ifndef TOOLS_REPLAY_REPORT_REPORT_HTML_H_
#define TOOLS_REPLAY_REPORT_REPORT_HTML_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/replay/replay_result.h"
#include "tools/replay/report/replay_compare.h"
#include "tools/replay/report/report_histogram.h"
#include "tools/replay/report/report_waterfall.h"

namespace netstack {

class ReplayReport : public ReplayObserver {
 public:
  static constexpr size_t kDefaultMaxWaterfallPages = 100;
  static constexpr size_t kMaxRowsPerPage = 1000;
  // Distinct cache outcomes and resource types counted by name; the rest count as "other".
  static constexpr size_t kMaxNamedCounters = 16;

  // `title` heads the page (escaped), e.g. the trace's name.
  explicit ReplayReport(std::string title);
  ~ReplayReport() override;
  ReplayReport(const ReplayReport&) = delete;
  ReplayReport& operator=(const ReplayReport&) = delete;

  // The configuration the replay ran with (ReplayConfig::ToJson()), shown as a table of
  // dotted keys. Optional; call any time before Write.
  void SetConfig(const nlohmann::json& config);
  // How many pages get a full waterfall (default 100; 0 keeps none). Call before the replay.
  void SetMaxWaterfallPages(size_t pages);

  // --compare A B: the labels of the two configurations, then one call per page with its
  // result under each (the same page of the same trace, paired by the caller). The report adds
  // a paired summary (mean and approximate median of each, mean difference, how many pages got
  // faster or slower), the distribution of per-page differences, and a table of the first
  // `max_waterfall_pages` pairs. Bounded like the rest. The waterfalls show whichever run this
  // observer was attached to.
  void SetComparison(std::string label_a, std::string label_b);
  void AddComparedPage(const PageResult& a, const PageResult& b);
  // The comparison's statistics as `--json`'s "compare" and the text summary give them
  // (CompareSummary, after SetCeiling), and A's predictor policy: the comparison section then
  // has the oracle ceiling (total, per navigation, relative to off or to A), what B saved, and
  // the share of the ceiling B took. Without this call the section has no ceiling.
  void SetCompareSummary(const CompareSummary& summary, const std::string& a_policy);

  // ReplayObserver. Requests of a page may interleave with other pages' (pages in flight at
  // the same time); each page's requests come before its OnPage.
  void OnRequest(const RequestRecord& request) override;
  void OnPage(const PageResult& page) override;

  // Writes the page to `path` (replacing it). False with a one-line `error` ("cannot write
  // out.html: No such file or directory") when it cannot be created or written.
  bool Write(const std::string& path, const ReplayTotals& totals, std::string* error);
  // The page as a string (what Write writes), for tests.
  std::string Render(const ReplayTotals& totals) const;

  // What was kept, for tests and the caller's messages.
  size_t waterfall_pages() const { return kept_.size(); }
  uint64_t pages_without_waterfall() const { return pages_not_kept_; }

 private:
  struct Comparison;
  // Each appends one section of the page.
  void AppendHead(std::string* out) const;
  void AppendSummary(const ReplayTotals& totals, std::string* out) const;
  void AppendConfig(std::string* out) const;
  void AppendComparison(std::string* out) const;
  void AppendCeiling(std::string* out) const;
  void AppendDistributions(std::string* out) const;
  void AppendPagesTable(std::string* out) const;
  void AppendWaterfalls(std::string* out) const;
  template <typename Sink>
  void Emit(const ReplayTotals& totals, Sink&& sink) const;

  std::string title_;
  nlohmann::json config_;
  size_t max_pages_ = kDefaultMaxWaterfallPages;

  // Pages with a waterfall: finished ones in `kept_` (by page index), in flight in `pending_`.
  std::map<uint64_t, WaterfallPage> kept_;
  std::map<uint64_t, WaterfallPage> pending_;
  uint64_t pages_not_kept_ = 0;

  // "onLoad; 12 of 12 pages" or "last request's end": which figure page_load_ holds.
  std::string PageLoadFigure() const;

  uint64_t pages_ = 0, requests_ = 0, onload_pages_ = 0;
  ReportHistogram page_load_{1, 6};
  ReportHistogram recorded_load_{1, 6};
  ReportHistogram queued_{0.1, 6}, dns_{0.1, 6}, connect_{0.1, 6}, tls_{0.1, 6}, ttfb_{0.1, 6},
      receive_{0.1, 6}, duration_{0.1, 6};
  ReportHistogram bytes_{100, 6};
  std::map<std::string, uint64_t> cache_outcomes_, resource_types_;

  std::unique_ptr<Comparison> comparison_;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPORT_HTML_H_
