// The internals page's Cache view (docs/internals.md, /api/cache*): the HTTP cache's entries
// with search and paging, and one entry's stored response and body, inspected without counting
// a use (CacheBackend::PeekEntry), so looking never changes what eviction sees.
#ifndef TOOLS_INTERNALS_CACHE_VIEW_H_
#define TOOLS_INTERNALS_CACHE_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "net/base/scheduler.h"
#include "tools/internals/internals_host.h"

namespace netstack {

class HttpCache;

// GET /api/cache's parameters.
struct CacheListQuery {
  static constexpr size_t kDefaultLimit = 100;
  static constexpr size_t kMaxLimit = 500;
  std::string q;  // substring of the key, ASCII case-insensitive; "" matches everything
  size_t offset = 0;
  size_t limit = kDefaultLimit;  // 1..kMaxLimit
};

// Reads "q", "offset" and "limit" from a request's decoded query. Returns false with a one-line
// `error` ("offset: not a number") for a value that is not a decimal number; a limit of 0 or
// above kMaxLimit is clamped into range.
bool ParseCacheListQuery(const std::map<std::string, std::string>& query, CacheListQuery* out,
                         std::string* error);

// GET /api/cache: {"stats": CacheStats::ToJson() or null without a cache, "total": entries,
// "matched": entries matching q, "offset", "limit", "entries": [matched entries, most recently
// used first, [offset, offset + limit): {"key", "headers_size", "body_size", "created",
// "last_used" (ms since the Unix epoch), "use_count"}]}. Reads the backend's in-memory index
// only.
nlohmann::json CacheListJson(const HttpCache* cache, const CacheListQuery& query);

// GET /api/cache/entry's body bounds: at most this many body bytes are shown.
inline constexpr size_t kCacheEntryDefaultMaxBytes = 64 * 1024;
inline constexpr size_t kCacheEntryMaxBytesCap = 1024 * 1024;
// How long a body read that the backend answered ERR_IO_PENDING may take before the answer is
// 504 (a backend that was destroyed meanwhile never completes it).
inline constexpr int64_t kCacheEntryReadTimeoutMs = 30'000;

// GET /api/cache/entry: opens `key` with PeekEntry, reads up to `max_bytes` of its body and
// calls `done` exactly once: synchronously when the backend answers synchronously (the memory
// backend), else later from the loop (the disk backend). Answers:
//  200 {"key", "info": the index's metadata (as CacheListJson's entries) or null,
//       "response": {"status_line", "status", "headers": [[name, value]], "url",
//                    "request_time", "response_time" (ms since the Unix epoch), "vary"}
//                   or null, "response_error": null or why stream 0 did not parse,
//       "body": BodyJson(...)};
//  404 for an absent key; 500 when the body read failed; 504 when it did not complete within
//  kCacheEntryReadTimeoutMs of `scheduler`'s time; 503 if `scheduler` drops the pending read
//  (it is destroyed first). A pending read keeps its entry and buffer alive on its own (the
//  caller may go away); the backend's callbacks only hold weak references, so nothing that must
//  be destroyed on the loop thread is owned by a task the cache thread may drop.
// `scheduler` must be the loop's (the context's) scheduler. `cache` null: 404.
void ReadCacheEntry(HttpCache* cache, Scheduler& scheduler, const std::string& key,
                    size_t max_bytes, std::function<void(InternalsResult)> done);

// The text-or-hex rule for a shown body: true if `data` is valid UTF-8 without control
// characters (C0 but tab, CR and LF; DEL; C1 U+0080..U+009F). With `complete` false (`data` is
// a prefix of a longer body) a UTF-8 sequence cut at the end is allowed, and `*text_length`
// (may be null) gets the length without it.
bool IsDisplayableText(std::string_view data, bool complete, size_t* text_length);

// Hex lines: 16 bytes per line as two lowercase digits separated by spaces, lines joined by
// '\n' (no trailing newline). "" for no data.
std::string HexLines(std::string_view data);

// {"size": body_size, "shown": bytes in data, "encoding": "text"|"hex", "data", "truncated":
// shown < size}: `shown` is the first bytes of a body of `body_size` bytes.
nlohmann::json BodyJson(std::string_view shown, int64_t body_size);

}  // namespace netstack

#endif  // TOOLS_INTERNALS_CACHE_VIEW_H_
