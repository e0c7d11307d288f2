#include "tools/replay/report/replay_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/replay/report/replay_summary.h"

namespace netstack {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  Distribution d(v.size());
  for (double x : v) d.Add(x);
  return d.Quantile(0.5);
}

double Round3(double x) { return std::round(x * 1000.0) / 1000.0; }

std::string Signed(double ms) { return (ms > 0 ? "+" : "") + FormatDuration(ms); }

}  // namespace

WilcoxonResult WilcoxonSignedRank(const std::vector<double>& differences, double zero) {
  WilcoxonResult r;
  std::vector<double> d;
  d.reserve(differences.size());
  for (double x : differences)
    if (std::fabs(x) > zero) d.push_back(x);
  r.n = d.size();
  if (r.n == 0) return r;
  std::sort(d.begin(), d.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
  double tie_term = 0;  // sum over tie groups of t^3 - t
  for (size_t i = 0; i < d.size();) {
    size_t j = i;
    while (j + 1 < d.size() && std::fabs(std::fabs(d[j + 1]) - std::fabs(d[i])) <= zero) ++j;
    // Ranks i+1 .. j+1 share their average.
    double rank = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2.0;
    for (size_t k = i; k <= j; ++k) (d[k] > 0 ? r.w_plus : r.w_minus) += rank;
    double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    i = j + 1;
  }
  const double n = static_cast<double>(r.n);
  const double mean = n * (n + 1) / 4.0;
  const double variance = n * (n + 1) * (2 * n + 1) / 24.0 - tie_term / 48.0;
  if (variance <= 0) return r;
  double numerator = r.w_plus - mean;
  // Continuity correction: half a rank toward zero.
  numerator = std::fabs(numerator) <= 0.5 ? 0 : numerator - std::copysign(0.5, numerator);
  r.z = numerator / std::sqrt(variance);
  r.p = std::min(1.0, std::erfc(std::fabs(r.z) / std::sqrt(2.0)));
  return r;
}

void PageLoadCollector::OnPage(const PageResult& page) {
  if (page.page_index >= max_pages_) {
    overflowed_ = true;
    return;
  }
  size_t i = static_cast<size_t>(page.page_index);
  if (loads_.size() <= i) {
    loads_.resize(i + 1, 0);
    onloads_.resize(i + 1, -1);
    oracles_.resize(i + 1, 0);
  }
  oracles_[i] = page.oracle_setup_ms;
  loads_[i] = page.load_ms;
  onloads_[i] = page.has_onload() ? page.onload_ms : -1;
  if (i < max_labels_) {
    if (labels_.size() <= i) labels_.resize(i + 1);
    labels_[i] = page.url;
  }
}

size_t PairPageLoads(const PageLoadCollector& a, const PageLoadCollector& b,
                     std::vector<double>* loads_a, std::vector<double>* loads_b) {
  size_t n = std::min(a.loads().size(), b.loads().size());
  loads_a->assign(a.loads().begin(), a.loads().begin() + n);
  loads_b->assign(b.loads().begin(), b.loads().begin() + n);
  size_t onload = 0;
  for (size_t i = 0; i < n; ++i) {
    if (a.onloads()[i] < 0 || b.onloads()[i] < 0) continue;
    (*loads_a)[i] = a.onloads()[i];
    (*loads_b)[i] = b.onloads()[i];
    ++onload;
  }
  return onload;
}

const char* CompareSummary::metric() const {
  if (onload_pages == 0) return "last_end";
  return onload_pages >= pages ? "onload" : "mixed";
}

double CompareSummary::ceiling_per_navigation() const {
  return pages ? ceiling_ms / static_cast<double>(pages) : 0;
}

double CompareSummary::ceiling_share() const {
  return ceiling_ms > 0 ? -total_diff / ceiling_ms : 0;
}

void CompareSummary::SetCeiling(const PageLoadCollector& a, const std::string& a_policy) {
  ceiling_ms = 0;
  size_t n = std::min(pages, a.oracles().size());
  for (size_t i = 0; i < n; ++i) ceiling_ms += a.oracles()[i];
  ceiling_relative_to_a = a_policy != "off";
}

nlohmann::json CompareSummary::ToJson() const {
  nlohmann::json share = nullptr;
  if (ceiling_ms > 0) share = std::round(ceiling_share() * 1e4) / 1e4;
  return {{"pages", pages},
          {"metric", metric()},
          {"onload_pages", onload_pages},
          {"median_a_ms", Round3(median_a)},
          {"median_b_ms", Round3(median_b)},
          {"median_diff_ms", Round3(median_diff)},
          {"mean_diff_ms", Round3(mean_diff)},
          {"saved_ms", {{"total", Round3(-total_diff)}, {"per_navigation", Round3(-mean_diff)}}},
          {"ceiling",
           {{"total_ms", Round3(ceiling_ms)},
            {"per_navigation_ms", Round3(ceiling_per_navigation())},
            {"share", share},
            {"relative_to", ceiling_relative_to_a ? "a" : "off"}}},
          {"b_faster", faster},
          {"b_slower", slower},
          {"same", same},
          {"wilcoxon",
           {{"n", wilcoxon.n},
            {"w_plus", wilcoxon.w_plus},
            {"w_minus", wilcoxon.w_minus},
            {"z", Round3(wilcoxon.z)},
            {"p", std::round(wilcoxon.p * 1e6) / 1e6}}}};
}

CompareSummary ComparePageLoads(const std::vector<double>& a, const std::vector<double>& b) {
  CompareSummary s;
  s.pages = std::min(a.size(), b.size());
  std::vector<double> diff(s.pages);
  double sum = 0;
  for (size_t i = 0; i < s.pages; ++i) {
    diff[i] = b[i] - a[i];
    sum += diff[i];
    if (diff[i] < -1e-9) {
      ++s.faster;
    } else if (diff[i] > 1e-9) {
      ++s.slower;
    } else {
      ++s.same;
    }
  }
  s.median_a = Median(std::vector<double>(a.begin(), a.begin() + s.pages));
  s.median_b = Median(std::vector<double>(b.begin(), b.begin() + s.pages));
  s.median_diff = Median(diff);
  s.mean_diff = s.pages ? sum / static_cast<double>(s.pages) : 0;
  s.total_diff = sum;
  s.wilcoxon = WilcoxonSignedRank(diff);
  return s;
}

std::string FormatComparison(const std::vector<double>& a, const std::vector<double>& b,
                             const std::vector<std::string>& labels, const CompareSummary& s,
                             const std::string& name_a, const std::string& name_b,
                             size_t max_lines) {
  std::string out = "A: " + name_a + "\nB: " + name_b + "\n";
  out += "page         A          B      B - A  url\n";
  char buf[512];
  size_t shown = std::min(max_lines, s.pages);
  for (size_t i = 0; i < shown; ++i) {
    std::string label = i < labels.size() ? labels[i] : "";
    for (char& c : label)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    if (label.size() > 60) label = label.substr(0, 57) + "...";
    std::snprintf(buf, sizeof(buf), "%4zu %9s  %9s  %9s  %s\n", i, FormatDuration(a[i]).c_str(),
                  FormatDuration(b[i]).c_str(), Signed(b[i] - a[i]).c_str(), label.c_str());
    out += buf;
  }
  if (s.pages > shown) out += "... " + FormatThousands(s.pages - shown) + " more pages\n";
  out += "\n" + FormatThousands(s.pages) + " pages paired: median A " + FormatDuration(s.median_a) +
         ", B " + FormatDuration(s.median_b);
  if (s.onload_pages > 0) {
    out += " (page load: onLoad; " + FormatThousands(s.onload_pages) + " of " +
           FormatThousands(s.pages) + " pages" +
           (s.onload_pages < s.pages ? ", last request's end for the others)" : ")");
  }
  out += "\n";
  out += "  B - A       median " + Signed(s.median_diff) + ", mean " + Signed(s.mean_diff) + "\n";
  out += "  pages       " + FormatThousands(s.faster) + " faster with B, " +
         FormatThousands(s.slower) + " slower, " + FormatThousands(s.same) + " the same\n";
  std::snprintf(buf, sizeof(buf),
                "  wilcoxon    signed-rank W+ %.1f, W- %.1f, n %zu, z %.3f, p %.4g%s\n",
                s.wilcoxon.w_plus, s.wilcoxon.w_minus, s.wilcoxon.n, s.wilcoxon.z, s.wilcoxon.p,
                s.wilcoxon.n == 0     ? " (no difference)"
                : s.wilcoxon.p < 0.05 ? " (significant at 5%)"
                                      : " (not significant at 5%)");
  out += buf;
  return out;
}

std::string FormatPredictorComparison(const ReplayTotals& a, const ReplayTotals& b,
                                      const CompareSummary& s) {
  if (a.predictor_policy == "off" && b.predictor_policy == "off") return "";
  auto pct = [](double part, double whole) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
    return std::string(buf);
  };
  auto side = [&](const char* name, const ReplayTotals& t) {
    const PredictorStats& p = t.predictor;
    const SpeculationCounts total = p.Total();
    return std::string("  ") + name + " " + t.predictor_policy + ": " +
           FormatThousands(total.taken) + " actions, precision " +
           pct(static_cast<double>(total.used + total.late), static_cast<double>(total.taken)) +
           ", recall " +
           pct(static_cast<double>(p.connections_ready),
               static_cast<double>(p.connections_needed)) +
           ", wasted " + FormatThousands(p.of(SpeculativeAction::kPreresolve).wasted) +
           " resolves, " + FormatThousands(p.of(SpeculativeAction::kPreconnect).wasted) +
           " connections; waited " + FormatDuration(t.connect_wait_ms) + " for new connections\n";
  };
  std::string out = "  predictor\n";
  out += side("A", a);
  out += side("B", b);
  out += "  saved by B  " + Signed(-s.total_diff) + " in total, " + Signed(-s.mean_diff) +
         " per navigation on the critical path (A - B page load, " + FormatThousands(s.pages) +
         " navigations; " +
         (s.wilcoxon.n == 0     ? "no difference"
          : s.wilcoxon.p < 0.05 ? "significant at 5%"
                                : "not significant at 5%") +
         ")\n";
  out += "  ceiling     " + FormatDuration(s.ceiling_ms) + " in total, " +
         FormatDuration(s.ceiling_per_navigation()) +
         " per navigation: connection setup on A's critical paths" +
         (s.ceiling_relative_to_a
              ? " (relative to A, which ran with predictor=" + a.predictor_policy + ")"
              : "") +
         "; B took " + (s.ceiling_ms > 0 ? pct(-s.total_diff, s.ceiling_ms) : "-") + " of it\n";
  return out;
}

}  // namespace netstack
