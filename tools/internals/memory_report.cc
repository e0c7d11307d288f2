// The Memory view's report (memory_report.h).
//
// Every part listed in memory_report.h is always present, in that order, so the page's table
// keeps its shape. A part whose source is absent (no stack, no predictor, no event buffer) or
// whose library counter is not installed has "bytes": null and says why in
// "detail": {"unavailable": "..."}; null parts are left out of accounted_bytes (a figure not
// known is never guessed as 0 or as anything else).
#include "tools/internals/memory_report.h"

#include <malloc.h>
#include <sqlite3.h>
#include <uv.h>

#include <cstdint>
#include <string>

#include "cache/backend.h"
#include "net/base/net_log_ring.h"
#include "net/base/stack_histograms.h"
#include "net/dns/host_resolver_manager.h"
#include "net/http/http_cache.h"
#include "net/http/url_request_context.h"
#include "net/socket/client_socket_pool.h"
#include "predictor/predictor.h"
#include "tools/internals/library_memory.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NETSTACK_MEMORY_REPORT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NETSTACK_MEMORY_REPORT_ASAN 1
#endif
#if defined(NETSTACK_MEMORY_REPORT_ASAN)
// The sanitizer runtime's allocator statistics (declared in <sanitizer/allocator_interface.h>,
// which not every compiler installs).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace netstack {
namespace {

using nlohmann::json;

json Part(const char* name, const char* kind, int64_t bytes, json detail) {
  return {{"name", name}, {"kind", kind}, {"bytes", bytes}, {"detail", std::move(detail)}};
}

json Unavailable(const char* name, const char* kind, const char* why) {
  return {{"name", name}, {"kind", kind}, {"bytes", nullptr}, {"detail", {{"unavailable", why}}}};
}

json SocketPoolsPart(const UrlRequestContext* context) {
  const ClientSocketPool* pool = context ? context->socket_pool() : nullptr;
  if (!pool) return Unavailable("socket_pools", "estimate", "no stack");
  const json info = pool->GetInfoAsJson();
  const size_t groups = info.contains("groups") ? info["groups"].size() : 0;
  return Part("socket_pools", "estimate", static_cast<int64_t>(pool->EstimateMemoryUsage()),
              {{"pools", 1},
               {"groups", groups},
               {"handed_out_sockets", pool->handed_out_socket_count()},
               {"idle_sockets", pool->IdleSocketCount()},
               {"connecting_sockets", pool->connecting_socket_count()},
               {"bytes_per_socket", ClientSocketPool::kEstimatedSocketBytes},
               {"bytes_per_idle_socket", ClientSocketPool::kEstimatedIdleSocketBytes},
               {"tls_extra_bytes_per_socket", ClientSocketPool::kEstimatedTlsSocketExtraBytes}});
}

json HostCachePart(const UrlRequestContext* context) {
  const HostResolverManager* resolver = context ? context->host_resolver() : nullptr;
  if (!resolver) return Unavailable("host_cache", "estimate", "no stack");
  const HostCache& cache = resolver->GetCache();
  return Part("host_cache", "estimate", static_cast<int64_t>(cache.EstimateMemoryUsage()),
              {{"entries", cache.size()}, {"max_entries", cache.max_entries()}});
}

json CacheIndexPart(const UrlRequestContext* context) {
  const HttpCache* http_cache = context ? context->http_cache() : nullptr;
  const CacheBackend* backend = http_cache ? http_cache->backend() : nullptr;
  if (!backend) return Unavailable("http_cache_index", "estimate", "no HTTP cache");
  const CacheStats stats = backend->GetStats();
  // The memory backend's figure includes the stored headers and bodies; the disk backend's is
  // its index only (bodies are on disk; sqlite's page cache is the "sqlite" part).
  return Part("http_cache_index", "estimate", static_cast<int64_t>(backend->EstimateMemoryUsage()),
              {{"type", stats.type},
               {"entries", stats.entry_count},
               {"stored_bytes", stats.total_bytes},
               {"includes_bodies", stats.type == "memory"}});
}

json PredictorPart(const Predictor* predictor) {
  if (!predictor) return Unavailable("predictor", "estimate", "no predictor");
  const json info = predictor->GetInfoAsJson();
  json rows = json::object();
  if (info.contains("tables") && info["tables"].is_object()) {
    for (const auto& [table, value] : info["tables"].items())
      if (value.is_array() || value.is_object()) rows[table] = value.size();
  }
  return Part("predictor", "estimate", static_cast<int64_t>(predictor->EstimateMemoryUsage()),
              {{"policy", info.value("policy", "off")}, {"rows", std::move(rows)}});
}

json EventsPart(const NetLogRing* ring) {
  if (!ring) return Unavailable("internals_events", "estimate", "no event buffer");
  return Part(
      "internals_events", "estimate", static_cast<int64_t>(ring->EstimateMemoryUsage()),
      {{"events", ring->size()}, {"stored_bytes", ring->bytes()}, {"dropped", ring->dropped()}});
}

json HistogramsPart(const StackHistograms* histograms) {
  if (!histograms) return Unavailable("internals_histograms", "estimate", "no histograms");
  return Part("internals_histograms", "estimate",
              static_cast<int64_t>(histograms->EstimateMemoryUsage()), json::object());
}

json LibraryPart(const char* name, int64_t bytes) {
  if (bytes < 0) {
    return Unavailable(name, "counted",
                       "allocation counter not installed (the library allocated before "
                       "InstallLibraryAllocationCounters)");
  }
  return Part(name, "counted", bytes, {{"installed", true}});
}

// Bytes malloc has handed out and not taken back: glibc's mallinfo2 (every arena's in-use
// chunks plus the mmapped blocks). Under AddressSanitizer malloc is ASan's, which glibc's arenas
// do not see, so its own figure is used.
int64_t HeapInUse(const char** source) {
#if defined(NETSTACK_MEMORY_REPORT_ASAN)
  *source = "asan";
  return static_cast<int64_t>(__sanitizer_get_current_allocated_bytes());
#else
  *source = "mallinfo2";
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
#endif
}

}  // namespace

json MemoryReport(const MemorySources& sources) {
  const LibraryMemory libraries = GetLibraryMemory();
  json parts = json::array();
  parts.push_back(SocketPoolsPart(sources.context));
  parts.push_back(HostCachePart(sources.context));
  parts.push_back(CacheIndexPart(sources.context));
  parts.push_back(PredictorPart(sources.predictor));
  parts.push_back(EventsPart(sources.ring));
  parts.push_back(HistogramsPart(sources.histograms));
  parts.push_back(LibraryPart("openssl", libraries.openssl));
  parts.push_back(LibraryPart("libuv", libraries.libuv));
  parts.push_back(LibraryPart("c-ares", libraries.cares));
  parts.push_back(Part("sqlite", "counted", libraries.sqlite,
                       {{"highwater", sqlite3_memory_highwater(/*reset=*/0)}}));

  int64_t accounted = 0;
  for (const json& part : parts)
    if (part["bytes"].is_number()) accounted += part["bytes"].get<int64_t>();

  // Measured after the parts, so transient allocations made while building them are gone.
  const char* heap_source = "";
  const int64_t heap = HeapInUse(&heap_source);
  size_t rss = 0;
  json resident = nullptr;
  if (uv_resident_set_memory(&rss) == 0) resident = static_cast<int64_t>(rss);

  // Not clamped: a negative "unaccounted" means the estimates overshoot what the heap holds (a
  // simulated socket costs far less than the live figure the pool estimate uses; a string's
  // capacity may be shared) and is worth seeing, not hiding.
  return {{"parts", std::move(parts)},
          {"accounted_bytes", accounted},
          {"heap_in_use_bytes", heap},
          {"heap_source", heap_source},
          {"resident_bytes", std::move(resident)},
          {"unaccounted_bytes", heap - accounted},
          {"library_counters_installed",
           libraries.openssl >= 0 && libraries.libuv >= 0 && libraries.cares >= 0}};
}

}  // namespace netstack
