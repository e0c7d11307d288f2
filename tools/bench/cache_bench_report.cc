#include "tools/bench/cache_bench_report.h"

#include <string>

namespace netstack {
namespace {

double Rate(double count, double s) { return s > 0 ? count / s : 0; }

// Three significant figures or so, without exponents: 123456, 1234, 12.3, 1.23, 0.012.
std::string Fmt(double v) {
  char buf[32];
  double a = v < 0 ? -v : v;
  snprintf(buf, sizeof(buf),
           a >= 100 || a == 0 ? "%.0f"
           : a >= 10          ? "%.1f"
           : a >= 1           ? "%.2f"
                              : "%.3f",
           v);
  return buf;
}

nlohmann::json Row(const std::string& metric, const std::string& unit, double backend,
                   nlohmann::json raw) {
  return {{"metric", metric}, {"unit", unit}, {"backend", backend}, {"raw", raw}};
}

}  // namespace

nlohmann::json SummaryRows(const CacheBenchReport& report) {
  const BenchResult& b = report.backend;
  const BenchResult& r = report.raw;
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&](const char* metric, const char* unit, double backend, double raw) {
    rows.push_back(Row(metric, unit, backend, raw));
  };
  auto insert_rate = [](const BenchResult& x, bool flush, bool bytes) {
    double s = flush ? x.insert.flush_s : x.insert.loop_s;
    return Rate(bytes ? x.insert.bytes / 1e6 : static_cast<double>(x.insert.entries), s);
  };
  add("insert, until flushed", "entries/s", insert_rate(b, true, false),
      insert_rate(r, true, false));
  add("insert, until flushed", "MB/s", insert_rate(b, true, true), insert_rate(r, true, true));
  add("insert, loop's view", "entries/s", insert_rate(b, false, false),
      insert_rate(r, false, false));
  add("open (fresh process)", "ms", MedianOf(b.open_ms), MedianOf(r.open_ms));
  add("hit p50", "us", b.hit_us.Median(), r.hit_us.Median());
  add("hit p99", "us", b.hit_us.Percentile(99), r.hit_us.Percentile(99));
  add("hit p50 less CPU wait", "us", b.hit_no_wait_us.Median(), r.hit_no_wait_us.Median());
  add("hit p99 less CPU wait", "us", b.hit_no_wait_us.Percentile(99),
      r.hit_no_wait_us.Percentile(99));
  add("miss p50", "us", b.miss_us.Median(), r.miss_us.Median());
  add("miss p99", "us", b.miss_us.Percentile(99), r.miss_us.Percentile(99));
  add("write: loop lag p50", "us", b.stream.lag_us.Median(), r.stream.lag_us.Median());
  add("write: loop lag p99", "us", b.stream.lag_us.Percentile(99), r.stream.lag_us.Percentile(99));
  add("write: loop lag max", "ms", b.stream.lag_us.Max() / 1000, r.stream.lag_us.Max() / 1000);
  add("write: loop blocked p99", "us", b.stream.blocked_us.Percentile(99),
      r.stream.blocked_us.Percentile(99));
  add("write: loop blocked max", "ms", b.stream.blocked_us.Max() / 1000,
      r.stream.blocked_us.Max() / 1000);
  add("write: loop's view", "s", b.stream.loop_s, r.stream.loop_s);
  add("write: until flushed", "s", b.stream.flush_s, r.stream.flush_s);
  return rows;
}

void PrintReport(const CacheBenchReport& report, FILE* out) {
  const nlohmann::json& c = report.config;
  auto mb = [&](const char* key) { return c.value(key, int64_t{0}) / 1e6; };
  fprintf(out,
          "cache_bench: %lld entries, bodies log-normal (median %.0f B, sigma %.2f, %lld B..%lld "
          "B), %.1f MB bodies + %.1f MB headers, %lld bodies in files\n",
          static_cast<long long>(c.value("entries", 0)), c.value("body_median_bytes", 0.0),
          c.value("body_sigma", 0.0), static_cast<long long>(c.value("body_min_bytes", 0)),
          static_cast<long long>(c.value("body_max_bytes", 0)), mb("total_body_bytes"),
          mb("total_headers_bytes"), static_cast<long long>(c.value("bodies_in_files", 0)));
  fprintf(out,
          "  write: %.0f MiB as %lld KiB entries in %lld KiB appends; max_bytes %.0f MB "
          "(%s); raw: %d inserts per transaction; %s backend; page cache warm\n",
          c.value("stream_bytes", 0.0) / 1048576, c.value("stream_entry_bytes", 0LL) >> 10,
          c.value("stream_chunk_bytes", 0LL) >> 10, mb("max_bytes"),
          c.value("eviction_expected", false) ? "eviction may run" : "no eviction",
          c.value("raw_batch", 0), c.value("backend", std::string()).c_str());
  fprintf(out,
          "  idle loop, 1 s: timer lateness p50 %.0f us, p99 %.0f us (libuv's ms rounding); "
          "blocked p99 %.0f us\n",
          report.baseline_lag_us.Median(), report.baseline_lag_us.Percentile(99),
          report.baseline_blocked_us.Percentile(99));
  fprintf(out, "  %-30s %-10s %12s %12s %12s\n", "metric", "unit", "backend", "raw", "backend/raw");
  for (const auto& row : SummaryRows(report)) {
    double b = row["backend"].get<double>();
    if (row["raw"].is_null()) {
      fprintf(out, "  %-30s %-10s %12s %12s %12s\n", row["metric"].get<std::string>().c_str(),
              row["unit"].get<std::string>().c_str(), Fmt(b).c_str(), "-", "-");
      continue;
    }
    double r = row["raw"].get<double>();
    fprintf(out, "  %-30s %-10s %12s %12s %12.2f\n", row["metric"].get<std::string>().c_str(),
            row["unit"].get<std::string>().c_str(), Fmt(b).c_str(), Fmt(r).c_str(),
            r > 0 ? b / r : 0.0);
  }
}

}  // namespace netstack
