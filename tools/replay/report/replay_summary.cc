#include "tools/replay/report/replay_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "net/base/time.h"

namespace netstack {
namespace {

constexpr size_t kFineBuckets = 100'000;   // 1 ms up to 100 s
constexpr size_t kCoarseBuckets = 99'000;  // 100 ms from 100 s up to 10,000 s
constexpr size_t kBuckets = kFineBuckets + kCoarseBuckets + 1;
static_assert(kBuckets == Distribution::kHistogramBuckets);
constexpr size_t kUrlColumns = 72;

// A URL from a trace, safe for a terminal: control bytes become '?', cut to `max` bytes.
std::string TerminalUrl(const std::string& url, size_t max) {
  std::string out;
  for (unsigned char c : url) {
    if (out.size() >= max) {
      out.resize(max - 3);
      out += "...";
      break;
    }
    out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  }
  return out;
}

std::string Percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

}  // namespace

std::string FormatThousands(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string FormatDuration(double ms) {
  char buf[64];
  if (std::fabs(ms) >= 1'000'000) {
    double s = std::round(std::fabs(ms) / 1000.0);
    return (ms < 0 ? "-" : "") + FormatThousands(static_cast<uint64_t>(s)) + " s";
  }
  if (std::fabs(ms) >= 10'000) {
    std::snprintf(buf, sizeof(buf), "%.1f s", ms / 1000.0);
    return buf;
  }
  if (std::fabs(ms) < 10 && ms != std::floor(ms)) {
    std::snprintf(buf, sizeof(buf), "%.1f ms", ms);
    return buf;
  }
  double rounded = std::round(ms);
  std::string sign = rounded < 0 ? "-" : "";
  return sign + FormatThousands(static_cast<uint64_t>(std::fabs(rounded))) + " ms";
}

size_t Distribution::Bucket(double v) {
  if (v < 0) v = 0;
  if (v < static_cast<double>(kFineBuckets)) return static_cast<size_t>(v);
  double coarse = (v - static_cast<double>(kFineBuckets)) / 100.0;
  if (coarse < static_cast<double>(kCoarseBuckets))
    return kFineBuckets + static_cast<size_t>(coarse);
  return kBuckets - 1;
}

double Distribution::BucketMid(size_t b) {
  if (b < kFineBuckets) return static_cast<double>(b) + 0.5;
  if (b < kFineBuckets + kCoarseBuckets)
    return static_cast<double>(kFineBuckets) + 100.0 * static_cast<double>(b - kFineBuckets) + 50;
  return static_cast<double>(kFineBuckets) + 100.0 * kCoarseBuckets;
}

void Distribution::ToHistogram() {
  histogram_.assign(kBuckets, 0);
  for (double v : exact_) ++histogram_[Bucket(v)];
  exact_.clear();
  exact_.shrink_to_fit();
}

void Distribution::Add(double value) {
  ++count_;
  sum_ += value;
  if (histogram_.empty() && exact_.size() < exact_limit_) {
    if (!exact_.empty() && value < exact_.back()) sorted_ = false;
    // Grown by doubling up to the limit, never past it.
    if (exact_.size() == exact_.capacity())
      exact_.reserve(std::min(exact_limit_, std::max<size_t>(16, 2 * exact_.capacity())));
    exact_.push_back(value);
    return;
  }
  if (histogram_.empty()) ToHistogram();
  ++histogram_[Bucket(value)];
}

double Distribution::Quantile(double q) {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  if (histogram_.empty()) {
    if (!sorted_) {
      std::sort(exact_.begin(), exact_.end());
      sorted_ = true;
    }
    // Linear interpolation between closest ranks (R's type 7): the median of an even count is
    // the mean of the middle two.
    double h = (static_cast<double>(exact_.size()) - 1) * q;
    size_t lo = static_cast<size_t>(std::floor(h));
    size_t hi = std::min(lo + 1, exact_.size() - 1);
    return exact_[lo] + (h - static_cast<double>(lo)) * (exact_[hi] - exact_[lo]);
  }
  uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (size_t b = 0; b < histogram_.size(); ++b) {
    seen += histogram_[b];
    if (seen >= rank) return BucketMid(b);
  }
  return BucketMid(histogram_.size() - 1);
}

std::string FormatPredictorBlock(const ReplayTotals& t) {
  const PredictorStats& p = t.predictor;
  auto n = [](uint64_t v) { return FormatThousands(v); };
  std::string out;
  out += "  predictor   " + t.predictor_policy + ": " + n(p.hints) + " hints, " +
         n(p.hints_started) + " started; dropped " + n(p.hints_expired) + " expired, " +
         n(p.hints_low_value) + " low value, " + n(p.hints_redundant) + " redundant, " +
         n(p.hints_invalid) + " invalid, " + n(p.hints_queue_full) + " queue full\n";
  static constexpr SpeculativeAction kActions[] = {SpeculativeAction::kPreresolve,
                                                   SpeculativeAction::kPreconnect,
                                                   SpeculativeAction::kFetchAhead};
  for (SpeculativeAction a : kActions) {
    const SpeculationCounts& c = p.of(a);
    char name[32];
    std::snprintf(name, sizeof(name), "%-12s", SpeculativeActionName(a));
    const uint64_t background = c.used_background + c.late_background;
    out += std::string("              ") + name + n(c.taken) + " taken, " + n(c.used) + " used, " +
           n(c.late) + " late, " +
           (background ? n(background) + " by background requests, " : std::string()) +
           n(c.wasted) + " wasted" +
           (a == SpeculativeAction::kFetchAhead && c.warmed
                ? " (" + n(c.warmed) + " only warmed a connection)"
                : std::string()) +
           (c.pending ? ", " + n(c.pending) + " pending" : std::string()) + "\n";
  }
  // Precision over the connection work (pre-resolves and preconnects), fetch-ahead's apart;
  // both and recall count critical requests only (background ones are off the critical path).
  const SpeculationCounts connect = p.ConnectionTotal();
  const SpeculationCounts& fetch = p.of(SpeculativeAction::kFetchAhead);
  out +=
      "              precision " +
      Percent(static_cast<double>(connect.used + connect.late),
              static_cast<double>(connect.taken)) +
      " (pre-resolves and preconnects used or late / taken; fetch-ahead " +
      Percent(static_cast<double>(fetch.used + fetch.late), static_cast<double>(fetch.taken)) +
      "), recall " +
      Percent(static_cast<double>(p.connections_ready), static_cast<double>(p.connections_needed)) +
      " (" + n(p.connections_ready) + " of " + n(p.connections_needed) +
      " new connections of critical requests ready, " + n(p.connections_late) + " late; " +
      n(p.connections_needed_background) + " background)\n";
  out += "              wasted " + n(p.of(SpeculativeAction::kPreresolve).wasted) + " resolves, " +
         n(p.of(SpeculativeAction::kPreconnect).wasted) + " connections, " +
         n(p.of(SpeculativeAction::kFetchAhead).wasted) + " fetches; requests waited " +
         FormatDuration(t.connect_wait_ms) + " for new connections\n";
  return out;
}

void ReplaySummary::OnPage(const PageResult& page) {
  ++pages_;
  loads_.Add(page.page_load_ms());
  if (page.has_onload()) {
    ++onload_pages_;
    last_ends_.Add(page.load_ms);
  }
  if (lines_.size() < max_page_lines_)
    lines_.push_back({page.page_index, page.url, page.page_load_ms(), page.requests, page.failed});
}

std::string ReplaySummary::PageLoadMetric() const {
  if (onload_pages_ == 0) return "last_end";
  return onload_pages_ == pages_ ? "onload" : "mixed";
}

nlohmann::json ReplaySummary::PageLoadJson() {
  return {{"median_ms", RoundMsForJson(loads_.Quantile(0.5))},
          {"p90_ms", RoundMsForJson(loads_.Quantile(0.9))},
          {"mean_ms", RoundMsForJson(loads_.mean())},
          {"metric", PageLoadMetric()},
          {"onload_pages", onload_pages_}};
}

std::string ReplaySummary::Format(const ReplayTotals& t, const ReplayConfig& config, double wall_s,
                                  double cpu_s) {
  return Format(t, config.Describe(), wall_s, cpu_s);
}

std::string ReplaySummary::Format(const ReplayTotals& t, const std::string& network, double wall_s,
                                  double cpu_s) {
  std::string out;
  char buf[512];
  if (!lines_.empty()) {
    out += "page      load  requests  url\n";
    for (const PageLine& l : lines_) {
      std::snprintf(buf, sizeof(buf), "%4llu %9s %9d  %s%s\n",
                    static_cast<unsigned long long>(l.index), FormatDuration(l.load_ms).c_str(),
                    l.requests, TerminalUrl(l.url, kUrlColumns).c_str(),
                    l.failed ? (" (" + std::to_string(l.failed) + " failed)").c_str() : "");
      out += buf;
    }
    if (pages_ > lines_.size())
      out += "... " + FormatThousands(pages_ - lines_.size()) + " more pages\n";
  }
  out += "\n" + FormatThousands(t.pages) + " pages, " + FormatThousands(t.requests) + " requests";
  out += ", " + FormatThousands(t.failed) + " failed";
  if (t.recorded_failures) out += " (" + FormatThousands(t.recorded_failures) + " as recorded)";
  if (t.skipped) {
    // By reason: "3 skipped (1 no response recorded, 2 invalid URL)".
    uint64_t no_response = t.skipped - t.skipped_not_http - t.skipped_invalid_url;
    no_response -= t.skipped_unfinished;
    std::string reasons;
    for (const auto& [count, reason] :
         {std::pair<uint64_t, const char*>{no_response, "no response recorded"},
          {t.skipped_not_http, "not http(s)"},
          {t.skipped_invalid_url, "invalid URL"},
          {t.skipped_unfinished, "unfinished"}}) {
      if (count == 0) continue;
      if (!reasons.empty()) reasons += ", ";
      reasons += FormatThousands(count) + " " + reason;
    }
    out += ", " + FormatThousands(t.skipped) + " skipped (" + reasons + ")";
  }
  if (t.unmatched) out += ", " + FormatThousands(t.unmatched) + " not in the trace (404)";
  if (t.pushed) out += ", " + FormatThousands(t.pushed) + " pushed (replayed as requests)";
  out += "\n";
  if (!t.first_invalid_url.empty())
    out += "  skipped     first invalid URL: " + TerminalUrl(t.first_invalid_url, 200) + "\n";
  out += "  page load   median " + FormatDuration(loads_.Quantile(0.5)) + ", p90 " +
         FormatDuration(loads_.Quantile(0.9));
  if (onload_pages_ > 0) {
    // Which figure: "(onLoad; 12 of 12 pages)", the others' last request's end.
    out += " (onLoad; " + FormatThousands(onload_pages_) + " of " + FormatThousands(pages_) +
           " pages" + (onload_pages_ < pages_ ? ", last request's end for the others)" : ")");
    out += "\n  last end    median " + FormatDuration(last_ends_.Quantile(0.5)) + ", p90 " +
           FormatDuration(last_ends_.Quantile(0.9)) + " (last request's end, pages with onLoad)";
  }
  out += "\n";
  const double phases =
      t.dns_ms + t.connect_ms + t.tls_ms + t.queued_ms + t.send_ms + t.ttfb_ms + t.receive_ms;
  auto phase = [&](const char* name, double ms) {
    return std::string(name) + " " + FormatDuration(ms) + " (" + Percent(ms, phases) + ")";
  };
  out += "  time in     " + phase("dns", t.dns_ms) + ", " + phase("connect", t.connect_ms) + ", " +
         phase("tls", t.tls_ms) + ", " + phase("queued", t.queued_ms) + ",\n" + "              " +
         phase("waiting", t.ttfb_ms) + ", " + phase("receiving", t.receive_ms) +
         " (summed over requests)\n";
  out += "  sockets     " + FormatThousands(t.sockets_opened) + " opened, " +
         FormatThousands(t.sockets_reused) + " reused";
  if (t.warm_connections)
    out += "; " + FormatThousands(t.warm_connections) + " connections warm at start";
  if (t.cold_runs) out += "; " + FormatThousands(t.cold_runs) + " cold runs (fresh stacks)";
  out += "\n";
  out += "  cache       " + FormatThousands(t.cache_hits) + " hits, " +
         FormatThousands(t.revalidated) + " revalidated, " + FormatThousands(t.recorded_hits) +
         " recorded hits\n";
  if (t.predictor_policy != "off") out += FormatPredictorBlock(t);
  out += "  network     " + network + "\n";
  out += "  time        virtual " + FormatDuration(t.virtual_ms);
  if (wall_s >= 0) {
    std::snprintf(buf, sizeof(buf), ", wall %.2f s, cpu %.2f s", wall_s, cpu_s);
    out += buf;
    if (cpu_s > 0) {
      out += " (" +
             FormatThousands(static_cast<uint64_t>(static_cast<double>(t.requests) / cpu_s)) +
             " requests per cpu-second)";
    }
  }
  out += "\n";
  // The simulator's unit of work: every scheduler task the replay ran (a connect, a delivery, a
  // timer, a callback posted for now). The CPU time per event is the replay-bench figure.
  out += "  events      " + FormatThousands(t.scheduler_tasks) + " simulated (scheduler tasks)";
  if (wall_s >= 0 && cpu_s > 0 && t.scheduler_tasks > 0) {
    std::snprintf(buf, sizeof(buf), ", %.0f ns of cpu per event",
                  cpu_s * 1e9 / static_cast<double>(t.scheduler_tasks));
    out += buf;
  }
  out += "\n";
  return out;
}

}  // namespace netstack
