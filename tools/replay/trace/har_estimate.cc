#include "tools/replay/trace/har_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "net/base/url.h"

namespace netstack {

namespace {

// Below these a receive measures the browser's buffers more than the link.
constexpr double kMinBusyMs = 50;
constexpr double kMinSingleEntryReceiveMs = 20;
constexpr int64_t kMinSingleEntryBytes = 16 * 1024;
constexpr double kWindowMs = 1000;
constexpr size_t kMaxPageSpanMs = 600'000;  // receives after 10 minutes are not looked at
constexpr double kMaxServerMs = 600'000;    // the server_ms key's bound (network_params)
constexpr double kMaxRttMs = 60'000;

struct HostSamples {
  std::vector<double> tcp, dns, ssl, wait;
  std::vector<TraceEntry*> entries;  // with a wait to derive server time from
  bool https = false;
  // The host's first entry in the trace (the one whose request opened the first connection).
  TraceEntry* first = nullptr;
};

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

TimeDelta FromMs(double ms) {
  return TimeDelta(static_cast<int64_t>(std::llround(std::clamp(ms, 0.0, kMaxRttMs) * 1000)));
}

std::string Ms(double ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), ms < 10 ? "%.1f ms" : "%.0f ms", ms);
  return buffer;
}

struct Throughput {
  double bps = 0;
  double bytes = 0, busy_ms = 0;
};

// The busiest second of receiving in `page` (most bytes in a 1 s window, 1 ms slots), as bytes
// over the time anything was being received in it, and the best single-entry throughput.
//
// And the delivery floor: the largest entry's bytes over its wait plus receive (at least 1 ms
// of them recorded). Whatever the server's share of the wait, the body reached the browser that
// fast, so the link is at least that fast: a recording on a fast link (a local server) whose
// receives are too short for either estimate still cannot be given a slower default link.
void PageThroughput(const TracePage& page, Throughput* window_best, Throughput* single_best,
                    Throughput* floor_best) {
  // Clamped before the casts: a page's times are bounded by the readers, but may be negative.
  size_t span = static_cast<size_t>(
      std::clamp<double>(std::ceil(page.RecordedLastEndMs()) + 1, 0.0, kMaxPageSpanMs));
  std::vector<double> bytes(span + 1, 0.0);
  std::vector<uint8_t> busy(span + 1, 0);
  bool any = false;
  for (const TraceEntry& entry : page.entries) {
    if (entry.recorded_from_cache || !entry.recorded_error.empty() ||
        entry.response_body_bytes <= 0)
      continue;
    double delivery_ms = std::max(0.0, entry.timings.wait) + std::max(0.0, entry.timings.receive);
    if (delivery_ms >= 1) {
      double bps = entry.response_body_bytes * 8.0 * 1000.0 / delivery_ms;
      if (bps > floor_best->bps)
        *floor_best = {bps, static_cast<double>(entry.response_body_bytes), delivery_ms};
    }
    // A zero receive (the body came with the headers, or the writer does not time it) says
    // nothing more about the link.
    if (entry.timings.receive <= 0) continue;
    double end = entry.RecordedEndMs();
    double start = end - entry.timings.receive;
    if (entry.timings.receive >= kMinSingleEntryReceiveMs &&
        entry.response_body_bytes >= kMinSingleEntryBytes) {
      double bps = entry.response_body_bytes * 8.0 * 1000.0 / entry.timings.receive;
      if (bps > single_best->bps) {
        *single_best = {bps, static_cast<double>(entry.response_body_bytes), entry.timings.receive};
      }
    }
    size_t first = static_cast<size_t>(std::clamp(std::floor(start), 0.0, 2.0 * kMaxPageSpanMs));
    size_t last = static_cast<size_t>(std::clamp(std::ceil(end), 0.0, 2.0 * kMaxPageSpanMs));
    if (first >= span) continue;
    last = std::min(std::max(last, first + 1), span);
    double share =
        static_cast<double>(entry.response_body_bytes) / static_cast<double>(last - first);
    for (size_t slot = first; slot < last; ++slot) {
      bytes[slot] += share;
      busy[slot] = 1;
    }
    any = true;
  }
  if (!any) return;
  size_t window = static_cast<size_t>(kWindowMs);
  double sum = 0, best_sum = -1, best_busy = 0;
  size_t busy_count = 0;
  for (size_t slot = 0; slot < span; ++slot) {
    sum += bytes[slot];
    busy_count += busy[slot];
    if (slot >= window) {
      sum -= bytes[slot - window];
      busy_count -= busy[slot - window];
    }
    if (sum > best_sum + 1e-9) {
      best_sum = sum;
      best_busy = static_cast<double>(busy_count);
    }
  }
  if (best_busy >= kMinBusyMs) {
    double bps = best_sum * 8.0 * 1000.0 / best_busy;
    if (bps > window_best->bps) *window_best = {bps, best_sum, best_busy};
  }
}

}  // namespace

HarEstimate EstimateNetwork(std::vector<TracePage>* pages, const NetworkParams& base) {
  HarEstimate result;
  result.params = base;
  std::map<std::string, HostSamples> hosts;  // ordered: notes come out the same every run
  for (TracePage& page : *pages) {
    for (TraceEntry& entry : page.entries) {
      // Neither the browser's cache nor a recorded failure (blocked, aborted) timed the server.
      if (entry.recorded_from_cache || !entry.recorded_error.empty()) continue;
      Url url;
      std::string problem;
      if (Url::Parse(entry.url, &url, &problem) != 0) continue;
      HostSamples& samples = hosts[url.host()];
      if (samples.first == nullptr && entry.timings.wait >= 0) {
        samples.first = &entry;
        samples.https = url.is_https();
      }
      const RecordedTimings& t = entry.timings;
      if (t.connect > 0) {
        double tcp = t.connect - std::max(0.0, t.ssl);
        if (tcp > 0) samples.tcp.push_back(tcp);
      }
      if (t.dns > 0) samples.dns.push_back(t.dns);
      if (t.ssl > 0) samples.ssl.push_back(t.ssl);
      if (t.wait > 0) samples.wait.push_back(t.wait);
      if (t.wait >= 0) samples.entries.push_back(&entry);
    }
  }

  // RTTs measured by connects anywhere in the trace: the client's network, for hosts that have
  // no connect of their own.
  std::vector<double> host_rtts;
  for (const auto& [host, samples] : hosts) {
    if (!samples.tcp.empty()) host_rtts.push_back(Median(samples.tcp));
  }
  const double trace_rtt = host_rtts.empty() ? -1 : Median(host_rtts);

  for (auto& [host, samples] : hosts) {
    double rtt = 0;
    std::string rtt_note;
    if (!samples.tcp.empty()) {
      rtt = Median(samples.tcp);
      rtt_note =
          "rtt " + Ms(rtt) + " (median of " + std::to_string(samples.tcp.size()) + " connects)";
    } else if (!samples.wait.empty()) {
      // A wait is one round trip plus the server's time: only an upper bound on the RTT. When
      // other hosts' connects measured the client's round trips, their median is the better
      // estimate unless this host's waits are shorter still.
      rtt = *std::min_element(samples.wait.begin(), samples.wait.end());
      rtt_note = "rtt " + Ms(rtt) + " (smallest of " + std::to_string(samples.wait.size()) +
                 " waits, no connects)";
      if (trace_rtt >= 0 && trace_rtt < rtt) {
        rtt = trace_rtt;
        rtt_note = "rtt " + Ms(rtt) + " (median of other hosts' connects; smallest wait " +
                   Ms(*std::min_element(samples.wait.begin(), samples.wait.end())) + ")";
      }
    } else {
      result.notes.push_back(host + ": no timings, defaults kept");
      continue;
    }
    HostOverrides& overrides = result.params.trace_hosts[host];
    overrides.rtt = FromMs(rtt);
    std::string note = host + ": " + rtt_note;
    if (!samples.dns.empty()) {
      double dns = Median(samples.dns);
      overrides.dns = FromMs(dns);
      note += ", dns " + Ms(dns) + " (" + std::to_string(samples.dns.size()) + ")";
    }
    // Without connect timings (writers that do not time the connection: Firefox's zeros,
    // capture-har, some exporters), whatever connection setup the host's first request paid is
    // inside its wait. The replay models that setup (DNS, TCP, TLS), so it is taken out of the
    // first request's server time, and a DNS lookup longer than the first wait leaves room
    // for cannot have happened: the name was cached (or the connection already open).
    double setup = 0;
    if (samples.tcp.empty() && samples.first != nullptr) {
      HostParams host_params = base.ForHost(host);
      TlsVersion tls = overrides.tls ? *overrides.tls : host_params.tls;
      double handshake_rtts = 1 + (samples.https ? (tls == TlsVersion::kTls12 ? 2 : 1) : 0);
      if (samples.dns.empty()) {
        double room = samples.first->timings.wait - (handshake_rtts + 1) * rtt;
        double dns = std::clamp(room, 0.0, ToMilliseconds(host_params.dns));
        overrides.dns = FromMs(dns);
        note += ", dns " + Ms(dns) + " (what the first wait leaves)";
      }
      double dns = ToMilliseconds(overrides.dns ? *overrides.dns : host_params.dns);
      setup = dns + handshake_rtts * rtt;
    }
    if (!samples.ssl.empty()) {
      double ssl = Median(samples.ssl);
      overrides.tls = ssl < 1.5 * rtt ? TlsVersion::kTls13 : TlsVersion::kTls12;
      note += std::string(", tls ") + (*overrides.tls == TlsVersion::kTls13 ? "1.3" : "1.2") +
              " (ssl " + Ms(ssl) + ")";
    }
    std::vector<double> server;
    for (TraceEntry* entry : samples.entries) {
      double folded = entry == samples.first ? setup : 0;
      // Within the server_ms key's bound (10 minutes), so the estimate is a valid override.
      entry->server_ms = std::clamp(entry->timings.wait - rtt - folded, 0.0, kMaxServerMs);
      server.push_back(entry->server_ms);
    }
    if (!server.empty()) {
      double median = Median(server);
      overrides.server_time = FromMs(median);
      note += ", server " + Ms(median) + " (median of " + std::to_string(server.size()) + ")";
    }
    result.notes.push_back(std::move(note));
  }

  Throughput window_best, single_best, floor_best;
  for (const TracePage& page : *pages)
    PageThroughput(page, &window_best, &single_best, &floor_best);
  double bps = std::max(window_best.bps, single_best.bps);
  // The delivery floor raises an estimate, or the default link when there is none; being a
  // floor, it never lowers the default.
  if (floor_best.bps > std::max(bps, bps > 0 ? 0.0 : static_cast<double>(base.downlink_bps)))
    bps = floor_best.bps;
  if (base.user_keys.count("down_kbps")) {
    result.notes.push_back("link: downlink kept (down_kbps is the user's)");
  } else if (bps > 0) {
    result.params.downlink_bps = static_cast<int64_t>(std::llround(std::min(bps, 1e11)));
    result.params.trace_keys.insert("down_kbps");
    char note[256];
    std::snprintf(note, sizeof(note),
                  "link: downlink %.2f Mbit/s (busiest second: %.0f bytes in %.0f ms receiving; "
                  "best single entry %.2f Mbit/s; delivery floor %.2f Mbit/s)",
                  bps / 1e6, window_best.bytes, window_best.busy_ms, single_best.bps / 1e6,
                  floor_best.bps / 1e6);
    result.notes.push_back(note);
  } else {
    result.notes.push_back("link: no receive timings, downlink kept");
  }
  return result;
}

}  // namespace netstack
