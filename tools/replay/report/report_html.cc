#include "tools/replay/report/report_html.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "tools/replay/report/report_svg.h"
#include "tools/replay/report/report_text.h"

namespace netstack {

namespace {

constexpr char kStyle[] = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;max-width:1100px}
h1{font-size:20px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}
h3{font-size:14px;margin:18px 0 4px}
table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 10px;border-bottom:1px solid #eee;
text-align:left;vertical-align:top}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#666}.grid2{display:flex;flex-wrap:wrap;gap:8px 28px}.grid2>div{min-width:300px}
.legend{margin:6px 0 10px}.key{margin-right:12px;white-space:nowrap;font-size:12px}
.sw{display:inline-block;width:14px;height:10px;margin-right:3px;vertical-align:middle}
svg text{font:11px system-ui,sans-serif;fill:#222}svg .tick{text-anchor:middle;fill:#555}
svg .count{text-anchor:middle;font-size:10px}svg .note.end{text-anchor:end}
svg .new{font-weight:bold}svg .grid{stroke:#ddd;stroke-width:1}svg .bar{fill:#6a9fd8}
svg .axis{fill:#666;font-size:10px}svg.wf{display:block;border:1px solid #ccc;margin-bottom:4px}
)css";

void AppendRow(std::string* out, const std::string& key, const std::string& value,
               bool numeric = true) {
  *out += "<tr><th>" + HtmlEscape(key) + "</th><td" + (numeric ? " class=\"n\"" : "") + ">" +
          HtmlEscape(value) + "</td></tr>\n";
}

// Dotted keys for nested objects ("network.defaults.rtt_ms"); arrays and scalars as JSON.
void FlattenJson(const nlohmann::json& value, const std::string& prefix,
                 std::vector<std::pair<std::string, std::string>>* out) {
  if (value.is_object() && !value.empty()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      FlattenJson(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    }
    return;
  }
  std::string text = value.is_string()
                         ? value.get<std::string>()
                         : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out->emplace_back(prefix, std::move(text));
}

void CountNamed(std::map<std::string, uint64_t>* counters, const std::string& name) {
  std::string key = name.empty() ? "(none)" : name;
  auto it = counters->find(key);
  if (it != counters->end()) {
    ++it->second;
  } else if (counters->size() + 1 < ReplayReport::kMaxNamedCounters) {
    (*counters)[key] = 1;
  } else {
    ++(*counters)["(other)"];
  }
}

std::string Percent(uint64_t part, uint64_t whole) {
  if (whole == 0) return "";
  return " (" + FormatFixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) +
         " %)";
}

void AppendHistogramBlock(const std::string& title, const ReportHistogram& h, bool bytes,
                          std::string* out) {
  auto fmt = [&](double v) {
    return bytes ? FormatBytes(static_cast<int64_t>(std::llround(v))) : FormatMs(v);
  };
  *out += "<div><h3>" + std::string(title) + "</h3><p class=\"note\">";
  if (h.total() == 0) {
    *out += "no values</p>";
  } else {
    *out += FormatCount(h.total()) + " values; mean " + fmt(h.mean()) + ", median \xE2\x89\x88" +
            fmt(h.ApproxQuantile(0.5)) + ", p90 \xE2\x89\x88" + fmt(h.ApproxQuantile(0.9)) +
            ", p99 \xE2\x89\x88" + fmt(h.ApproxQuantile(0.99)) + ", max " + fmt(h.max());
    if (h.count(0) > 0) *out += "; " + FormatCount(h.count(0)) + " zero";
    *out += "</p>";
  }
  AppendHistogramSvg(h, bytes, out);
  *out += "</div>\n";
}

}  // namespace

struct ReplayReport::Comparison {
  struct Pair {
    uint64_t page_index;
    std::string id, url;
    double a, b;
  };
  std::string label_a, label_b;
  // SetCompareSummary's: the figures the JSON and the text give, and A's policy.
  bool has_summary = false;
  CompareSummary summary;
  std::string a_policy;
  ReportHistogram load_a{1, 6}, load_b{1, 6};
  ReportHistogram faster{0.1, 7}, slower{0.1, 7};  // |b - a| where b < a, b > a
  uint64_t pages = 0, equal = 0, percent_pages = 0;
  uint64_t onload_pages = 0;  // pairs compared on onLoad (both sides had one)
  double sum_a = 0, sum_b = 0, sum_percent = 0;
  std::vector<Pair> pairs;  // the first max_pages_
};

ReplayReport::ReplayReport(std::string title) : title_(std::move(title)) {}

std::string ReplayReport::PageLoadFigure() const {
  if (onload_pages_ == 0) return "last request's end";
  return "onLoad; " + FormatCount(onload_pages_) + " of " + FormatCount(pages_) + " pages" +
         (onload_pages_ < pages_ ? ", last request's end for the others" : "");
}
ReplayReport::~ReplayReport() = default;

void ReplayReport::SetConfig(const nlohmann::json& config) { config_ = config; }
void ReplayReport::SetMaxWaterfallPages(size_t pages) { max_pages_ = pages; }

void ReplayReport::SetComparison(std::string label_a, std::string label_b) {
  if (!comparison_) comparison_ = std::make_unique<Comparison>();
  comparison_->label_a = std::move(label_a);
  comparison_->label_b = std::move(label_b);
}

void ReplayReport::SetCompareSummary(const CompareSummary& summary, const std::string& a_policy) {
  if (!comparison_) SetComparison("A", "B");
  comparison_->has_summary = true;
  comparison_->summary = summary;
  comparison_->a_policy = a_policy;
}

void ReplayReport::AddComparedPage(const PageResult& a, const PageResult& b) {
  if (!comparison_) SetComparison("A", "B");
  Comparison& c = *comparison_;
  ++c.pages;
  // The same figure on both sides: onLoad when both have one, else the last request's end.
  const bool onload = a.has_onload() && b.has_onload();
  const double load_a = onload ? a.onload_ms : a.load_ms;
  const double load_b = onload ? b.onload_ms : b.load_ms;
  if (onload) ++c.onload_pages;
  c.load_a.Add(load_a);
  c.load_b.Add(load_b);
  c.sum_a += load_a;
  c.sum_b += load_b;
  double diff = load_b - load_a;
  if (diff < 0) {
    c.faster.Add(-diff);
  } else if (diff > 0) {
    c.slower.Add(diff);
  } else {
    ++c.equal;
  }
  if (load_a > 0) {
    c.sum_percent += diff / load_a * 100;
    ++c.percent_pages;
  }
  if (c.pairs.size() < max_pages_) {
    c.pairs.push_back({a.page_index, a.id, a.url, load_a, load_b});
  }
}

void ReplayReport::OnRequest(const RequestRecord& r) {
  const LoadTimingPhases& p = r.phases;
  ++requests_;
  queued_.Add(p.queued_ms);
  dns_.Add(p.dns_ms);
  connect_.Add(p.connect_ms);
  tls_.Add(p.tls_ms);
  ttfb_.Add(p.send_ms + p.ttfb_ms);
  receive_.Add(p.receive_ms);
  duration_.Add(r.end_ms() - r.start_ms());
  bytes_.Add(static_cast<double>(r.transfer_bytes));
  CountNamed(&cache_outcomes_, r.cache_name());
  CountNamed(&resource_types_, r.placement ? r.placement->type : std::string());

  const uint64_t page_index = r.entry ? r.entry->page : 0;
  auto it = pending_.find(page_index);
  if (it == pending_.end()) {
    if (kept_.count(page_index) || kept_.size() + pending_.size() >= max_pages_) return;
    it = pending_.emplace(page_index, WaterfallPage{}).first;
  }
  WaterfallPage& page = it->second;
  if (page.requests.size() < kMaxRowsPerPage) {
    page.requests.push_back(r);
  } else {
    ++page.requests_not_kept;
  }
}

void ReplayReport::OnPage(const PageResult& page) {
  ++pages_;
  // The page-load figure: onLoad when the trace has one, else the last request's end.
  page_load_.Add(page.page_load_ms());
  if (page.recorded_page_load_ms() >= 0) recorded_load_.Add(page.recorded_page_load_ms());
  if (page.has_onload()) ++onload_pages_;

  auto it = pending_.find(page.page_index);
  if (it != pending_.end()) {
    WaterfallPage done = std::move(it->second);
    pending_.erase(it);
    done.page = page;
    kept_.emplace(page.page_index, std::move(done));
  } else if (!kept_.count(page.page_index) && kept_.size() + pending_.size() < max_pages_) {
    WaterfallPage done;  // a page without requests
    done.page = page;
    kept_.emplace(page.page_index, std::move(done));
  } else {
    ++pages_not_kept_;
  }
}

void ReplayReport::AppendHead(std::string* out) const {
  *out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  *out += "<meta name=\"viewport\" content=\"width=device-width\">\n";
  *out += "<title>netstack replay: " + HtmlEscape(title_) + "</title>\n";
  *out += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  *out += "<h1>netstack replay: " + HtmlEscape(title_) + "</h1>\n";
  *out +=
      "<p class=\"note\">Simulated on virtual time through the live stack's code. Sections: "
      "<a href=\"#summary\">summary</a>, <a href=\"#config\">configuration</a>, ";
  if (comparison_) *out += "<a href=\"#compare\">comparison</a>, ";
  *out +=
      "<a href=\"#distributions\">distributions</a>, <a href=\"#pages\">pages</a>, "
      "<a href=\"#waterfalls\">waterfalls</a>.</p>\n";
}

void ReplayReport::AppendSummary(const ReplayTotals& t, std::string* out) const {
  *out += "<h2 id=\"summary\">Summary</h2>\n<div class=\"grid2\"><div><table>\n";
  AppendRow(out, "pages", FormatCount(t.pages));
  AppendRow(out, "requests", FormatCount(t.requests));
  AppendRow(out, "failed", FormatCount(t.failed) + Percent(t.failed, t.requests));
  AppendRow(out, "failed as recorded (replayed without the network)",
            FormatCount(t.recorded_failures));
  AppendRow(out, "skipped (no response recorded, not http(s), invalid URL, unfinished)",
            FormatCount(t.skipped) + " (" +
                FormatCount(t.skipped - t.skipped_not_http - t.skipped_invalid_url -
                            t.skipped_unfinished) +
                " / " + FormatCount(t.skipped_not_http) + " / " +
                FormatCount(t.skipped_invalid_url) + " / " + FormatCount(t.skipped_unfinished) +
                ")");
  AppendRow(out, "sockets opened", FormatCount(t.sockets_opened));
  AppendRow(out, "sockets reused", FormatCount(t.sockets_reused));
  AppendRow(out, "connections warm at start", FormatCount(t.warm_connections));
  AppendRow(out, "cold runs (fresh stacks)", FormatCount(t.cold_runs));
  AppendRow(out, "cache hits", FormatCount(t.cache_hits) + Percent(t.cache_hits, t.requests));
  AppendRow(out, "revalidated (304)", FormatCount(t.revalidated));
  AppendRow(out, "from the browser's cache when recorded", FormatCount(t.recorded_hits));
  AppendRow(out, "not matched with the trace (404)", FormatCount(t.unmatched));
  if (t.pushed)
    AppendRow(out, "pushed when recorded (replayed as requests)", FormatCount(t.pushed));
  AppendRow(out, "bytes received", FormatBytes(t.bytes));
  AppendRow(out, "DNS lookups", FormatCount(t.dns_lookups));
  AppendRow(out, "TLS handshakes", FormatCount(t.tls_handshakes));
  AppendRow(out, "TLS resumed", FormatCount(t.tls_resumed));
  AppendRow(out, "virtual time", FormatMs(t.virtual_ms));
  AppendRow(out, "scheduler tasks", FormatCount(t.scheduler_tasks));
  AppendRow(out, "other session events", FormatCount(t.other_events));
  AppendRow(out, "page load figure", PageLoadFigure());
  AppendRow(out, "page load (mean)", FormatMs(page_load_.mean()));
  AppendRow(out, "page load (median, approx.)", FormatMs(page_load_.ApproxQuantile(0.5)));
  *out += "</table></div>\n";
  auto counters = [&](const char* title, const std::map<std::string, uint64_t>& m) {
    *out += "<div><table><tr><th>" + std::string(title) +
            "</th><th class=\"n\">requests</th>"
            "</tr>\n";
    for (const auto& [name, n] : m) {
      *out += "<tr><td>" + HtmlEscape(name) + "</td><td class=\"n\">" + FormatCount(n) +
              Percent(n, requests_) + "</td></tr>\n";
    }
    *out += "</table></div>\n";
  };
  counters("cache", cache_outcomes_);
  counters("resource type", resource_types_);
  *out += "</div>\n";
}

void ReplayReport::AppendConfig(std::string* out) const {
  *out += "<h2 id=\"config\">Configuration</h2>\n";
  if (config_.is_null()) {
    *out += "<p class=\"note\">not recorded</p>\n";
    return;
  }
  std::vector<std::pair<std::string, std::string>> rows;
  FlattenJson(config_, "", &rows);
  *out += "<table>\n";
  for (const auto& [key, value] : rows) AppendRow(out, key, value, false);
  *out += "</table>\n";
}

void ReplayReport::AppendComparison(std::string* out) const {
  if (!comparison_) return;
  const Comparison& c = *comparison_;
  std::string a = HtmlEscape(c.label_a), b = HtmlEscape(c.label_b);
  *out += "<h2 id=\"compare\">Comparison: " + a + " vs " + b + "</h2>\n";
  if (c.pages == 0) {
    *out += "<p class=\"note\">no pages compared</p>\n";
    return;
  }
  double n = static_cast<double>(c.pages);
  *out += "<p class=\"note\">Page load: " +
          (c.onload_pages == 0 ? std::string("last request's end")
                               : "onLoad; " + FormatCount(c.onload_pages) + " of " +
                                     FormatCount(c.pages) + " pages") +
          ", the same figure on both sides.</p>\n";
  *out += "<table><tr><th></th><th class=\"n\">" + a + "</th><th class=\"n\">" + b + "</th></tr>\n";
  *out += "<tr><th>page load, mean</th><td class=\"n\">" + FormatMs(c.sum_a / n) +
          "</td><td class=\"n\">" + FormatMs(c.sum_b / n) + "</td></tr>\n";
  *out += "<tr><th>page load, median (approx.)</th><td class=\"n\">" +
          FormatMs(c.load_a.ApproxQuantile(0.5)) + "</td><td class=\"n\">" +
          FormatMs(c.load_b.ApproxQuantile(0.5)) + "</td></tr>\n</table>\n";
  std::string mean_pct = c.percent_pages ? FormatFixed(c.sum_percent / c.percent_pages, 1) : "n/a";
  *out += "<p>Paired over " + FormatCount(c.pages) + " pages: " + b + " minus " + a + " is " +
          FormatMs((c.sum_b - c.sum_a) / n) + " per page on average (" + mean_pct +
          " % per page); " + b + " was faster on " + FormatCount(c.faster.total()) +
          " pages, slower on " + FormatCount(c.slower.total()) + ", equal on " +
          FormatCount(c.equal) + ".</p>\n";
  AppendCeiling(out);
  *out += "<div class=\"grid2\">";
  AppendHistogramBlock(("pages faster under " + b + " (by how much)").c_str(), c.faster, false,
                       out);
  AppendHistogramBlock(("pages slower under " + b + " (by how much)").c_str(), c.slower, false,
                       out);
  *out += "</div>\n<table><tr><th class=\"n\">#</th><th>page</th><th class=\"n\">" + a +
          "</th><th class=\"n\">" + b + "</th><th class=\"n\">difference</th></tr>\n";
  for (const Comparison::Pair& p : c.pairs) {
    *out += "<tr><td class=\"n\">" + std::to_string(p.page_index) + "</td><td>" +
            HtmlEscape(TruncateText(p.url.empty() ? p.id : p.url, 90)) + "</td><td class=\"n\">" +
            FormatMs(p.a) + "</td><td class=\"n\">" + FormatMs(p.b) + "</td><td class=\"n\">" +
            FormatMs(p.b - p.a) + "</td></tr>\n";
  }
  *out += "</table>\n";
  if (c.pages > c.pairs.size()) {
    *out += "<p class=\"note\">" + FormatCount(c.pages - c.pairs.size()) +
            " more pairs are in the figures above but not listed.</p>\n";
  }
}

void ReplayReport::AppendCeiling(std::string* out) const {
  const Comparison& c = *comparison_;
  if (!c.has_summary) return;
  const CompareSummary& s = c.summary;
  // The same figures as --json's compare.ceiling and the text's "ceiling" line, so the three
  // outputs of one comparison never disagree.
  const std::string a = HtmlEscape(c.label_a);
  *out +=
      "<h3 id=\"ceiling\">Oracle ceiling</h3>\n<p class=\"note\">What an oracle with every "
      "connection ready in time could save: the connection setup (DNS, connect, TLS) on " +
      a + "'s critical paths over the paired pages, " +
      (s.ceiling_relative_to_a
           ? "beyond " + a + ", which ran with predictor=" + HtmlEscape(c.a_policy)
           : std::string("against predictor=off")) +
      " (docs/replay.md, &quot;The oracle ceiling&quot;).</p>\n<table>\n";
  AppendRow(out, "ceiling, total", FormatMs(s.ceiling_ms));
  AppendRow(out, "ceiling, per navigation", FormatMs(s.ceiling_per_navigation()));
  AppendRow(out, "relative to", s.ceiling_relative_to_a ? "A (" + c.label_a + ")" : "off");
  AppendRow(out, "saved by " + c.label_b + " (A - B page load), total", FormatMs(-s.total_diff));
  AppendRow(out, "saved by " + c.label_b + ", per navigation", FormatMs(-s.mean_diff));
  AppendRow(out, "share of the ceiling " + c.label_b + " took",
            s.ceiling_ms > 0 ? FormatFixed(100 * s.ceiling_share(), 1) + " %" : "-");
  *out += "</table>\n";
}

void ReplayReport::AppendDistributions(std::string* out) const {
  *out +=
      "<h2 id=\"distributions\">Distributions</h2>\n<p class=\"note\">Fixed 1-2-5 "
      "log-spaced buckets over every page and request; medians and percentiles are "
      "estimated within a bucket.</p>\n<div class=\"grid2\">";
  const std::string figure = " (" + PageLoadFigure() + ")";
  AppendHistogramBlock("page load time, simulated" + figure, page_load_, false, out);
  if (recorded_load_.total() > 0) {
    AppendHistogramBlock("page load time, recorded" + figure, recorded_load_, false, out);
  }
  AppendHistogramBlock("request duration (start to last byte)", duration_, false, out);
  AppendHistogramBlock("queued (waiting for a socket)", queued_, false, out);
  AppendHistogramBlock("DNS", dns_, false, out);
  AppendHistogramBlock("connect (TCP)", connect_, false, out);
  AppendHistogramBlock("TLS", tls_, false, out);
  AppendHistogramBlock("send + wait (TTFB)", ttfb_, false, out);
  AppendHistogramBlock("receive", receive_, false, out);
  AppendHistogramBlock("response body size", bytes_, true, out);
  *out += "</div>\n";
}

void ReplayReport::AppendPagesTable(std::string* out) const {
  *out += "<h2 id=\"pages\">Pages</h2>\n";
  if (kept_.empty()) {
    *out += "<p class=\"note\">no pages kept</p>\n";
  } else {
    *out +=
        "<table><tr><th class=\"n\">#</th><th>page</th><th class=\"n\">page load</th>"
        "<th class=\"n\">recorded</th><th class=\"n\">requests</th><th class=\"n\">failed"
        "</th><th class=\"n\">sockets new / reused</th><th class=\"n\">cache hits</th>"
        "<th class=\"n\">bytes</th></tr>\n";
    for (const auto& [index, wf] : kept_) {
      const PageResult& p = wf.page;
      std::string name = p.url.empty() ? p.id : p.url;
      *out += "<tr><td class=\"n\">" + std::to_string(index) + "</td><td><a href=\"#page-" +
              std::to_string(index) + "\">" + HtmlEscape(TruncateText(name, 80)) +
              "</a></td><td class=\"n\">" + FormatMs(p.page_load_ms()) +
              (p.has_onload() ? " (onLoad)" : "") + "</td><td class=\"n\">" +
              (p.recorded_page_load_ms() >= 0 ? FormatMs(p.recorded_page_load_ms()) : "") +
              "</td><td class=\"n\">" + std::to_string(p.requests) + "</td><td class=\"n\">" +
              std::to_string(p.failed) + "</td><td class=\"n\">" +
              std::to_string(p.sockets_opened) + " / " + std::to_string(p.sockets_reused) +
              "</td><td class=\"n\">" + std::to_string(p.cache_hits) + "</td><td class=\"n\">" +
              FormatBytes(p.bytes) + "</td></tr>\n";
    }
    *out += "</table>\n";
  }
  if (pages_not_kept_ > 0) {
    *out += "<p class=\"note\">" + FormatCount(pages_not_kept_) +
            " more pages are not listed and have no waterfall (the report keeps the first " +
            FormatCount(max_pages_) + "); they are counted in every figure above.</p>\n";
  }
}

void ReplayReport::AppendWaterfalls(std::string* out) const {
  *out += "<h2 id=\"waterfalls\">Waterfalls</h2>\n";
  AppendLegendHtml(out);
}

template <typename Sink>
void ReplayReport::Emit(const ReplayTotals& totals, Sink&& sink) const {
  std::string chunk;
  AppendHead(&chunk);
  AppendSummary(totals, &chunk);
  AppendConfig(&chunk);
  AppendComparison(&chunk);
  AppendDistributions(&chunk);
  AppendPagesTable(&chunk);
  AppendWaterfalls(&chunk);
  sink(chunk);
  // One page at a time, so a large report is never whole in memory twice.
  for (const auto& [index, wf] : kept_) {
    chunk.clear();
    const PageResult& p = wf.page;
    chunk += "<h3 id=\"page-" + std::to_string(index) + "\">" + std::to_string(index) + ". " +
             HtmlEscape(TruncateText(p.url.empty() ? p.id : p.url, 120)) + "</h3>\n";
    chunk += "<p class=\"note\">";
    if (!p.id.empty()) chunk += "id " + HtmlEscape(p.id) + " \xC2\xB7 ";
    if (!p.source.empty()) chunk += HtmlEscape(p.source) + " \xC2\xB7 ";
    if (p.has_onload()) {
      chunk += "onLoad " + FormatMs(p.onload_ms) + " (recorded " + FormatMs(p.recorded_onload_ms) +
               ") \xC2\xB7 ";
    }
    chunk += "last request's end " + FormatMs(p.load_ms);
    if (p.recorded_load_ms >= 0) chunk += " (recorded " + FormatMs(p.recorded_load_ms) + ")";
    chunk += " \xC2\xB7 " + std::to_string(p.requests) + " requests \xC2\xB7 " +
             FormatBytes(p.bytes) + "</p>\n";
    AppendWaterfallSvg(wf, &chunk);
    if (wf.requests_not_kept > 0) {
      chunk += "<p class=\"note\">" + FormatCount(wf.requests_not_kept) +
               " more requests of this page are not drawn (at most " +
               FormatCount(kMaxRowsPerPage) + " rows per page).</p>\n";
    }
    sink(chunk);
  }
  sink(std::string("</body>\n</html>\n"));
}

std::string ReplayReport::Render(const ReplayTotals& totals) const {
  std::string page;
  Emit(totals, [&](const std::string& chunk) { page += chunk; });
  return page;
}

bool ReplayReport::Write(const std::string& path, const ReplayTotals& totals, std::string* error) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = true;
  int saved_errno = 0;
  Emit(totals, [&](const std::string& chunk) {
    if (ok && std::fwrite(chunk.data(), 1, chunk.size(), file) != chunk.size()) {
      ok = false;
      saved_errno = errno;
    }
  });
  if (std::fclose(file) != 0 && ok) {
    ok = false;
    saved_errno = errno;
  }
  if (!ok) *error = "cannot write " + path + ": " + std::strerror(saved_errno);
  return ok;
}

}  // namespace netstack
