// The internals page's Memory view, like about:memory: what each part of the stack holds, and
// the rest of the heap nobody accounted for.
//
// Two kinds of figure, labelled in the answer:
//  - "counted": the libraries' own allocations, counted exactly by allocation hooks installed
//    at process start (library_memory.h: OpenSSL, libuv, c-ares) or reported by the library
//    (sqlite3_memory_used);
//  - "estimate": netstack's structures (socket pools, host cache, cache index, predictor
//    tables, the page's own event buffer and histograms), from their EstimateMemoryUsage()
//    (element counts times sizes, like Chromium's base::trace_event::EstimateMemoryUsage).
// "unaccounted" is the heap in use (mallinfo2) minus everything above; "resident" is the
// process's RSS.
#ifndef TOOLS_INTERNALS_MEMORY_REPORT_H_
#define TOOLS_INTERNALS_MEMORY_REPORT_H_

#include <nlohmann/json.hpp>

namespace netstack {

class NetLogRing;
class Predictor;
class StackHistograms;
class UrlRequestContext;

struct MemorySources {
  const UrlRequestContext* context = nullptr;  // null: no stack parts
  const Predictor* predictor = nullptr;
  const NetLogRing* ring = nullptr;
  const StackHistograms* histograms = nullptr;
};

// /api/memory: {"parts": [{"name", "kind": "estimate"|"counted", "bytes", "detail": {...}}],
// "accounted_bytes", "heap_in_use_bytes", "resident_bytes", "unaccounted_bytes",
// "library_counters_installed": bool}. Parts: "socket_pools", "host_cache", "http_cache_index",
// "predictor", "internals_events", "internals_histograms", "openssl", "libuv", "c-ares",
// "sqlite".
nlohmann::json MemoryReport(const MemorySources& sources);

}  // namespace netstack

#endif  // TOOLS_INTERNALS_MEMORY_REPORT_H_
