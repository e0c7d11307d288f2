// How `netstack cache` shows what it finds (docs/cache.md): durations, sizes, freshness labels,
// a body as text or as a hex dump, and an entry's `ls` line and JSON object. Pure functions
// (time is passed in) so the formats are unit-tested without a cache.
#ifndef TOOLS_NETSTACK_CACHE_DISPLAY_H_
#define TOOLS_NETSTACK_CACHE_DISPLAY_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "cache/backend.h"
#include "net/base/clock.h"
#include "net/http/http_cache_policy.h"
#include "net/http/http_response_info.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {

// At most two units, largest first, rounded down: "0s", "45s", "2m10s", "3h", "3h5m", "2d4h".
// Negative durations are shown by their magnitude.
std::string FormatDuration(TimeDelta d);

// "612 B", "1.5 KiB", "80.0 MiB", "1.2 GiB".
std::string FormatSize(int64_t bytes);

// "2024-05-01T12:00:03Z" (UTC); "-" for Time{} (unknown).
std::string FormatTime(Time t);

// The freshness label of `cache ls`: "no-cache" (always validated), "fresh 2m10s" (time left),
// or "stale 3h" (stale for that long).
std::string FreshnessLabel(const FreshnessInfo& freshness);

// `xxd`-like lines: 8-digit hex offset (counted from `offset`, so a long body can be dumped in
// pieces of a multiple of 16 bytes), 16 bytes in hex (two groups of 8), and the bytes as ASCII
// ('.' for anything not printable). One '\n' after each line.
std::string HexDump(std::string_view data, int64_t offset = 0);

// One stored entry as `ls` sees it: the index's metadata and, if stream 0 parsed, the response.
struct CacheListing {
  CacheEntryInfo entry;
  bool parsed = false;
  std::string parse_error;  // why stream 0 did not parse (parsed false)
  HttpResponseInfo response;
  FreshnessInfo freshness;
};

// "KEY  SIZE  used 3m ago  2 uses  fresh 2m10s"; an entry whose stream 0 did not parse shows
// "unreadable: REASON" instead of the freshness. The key and reason are TerminalSafe.
std::string ListingLine(const CacheListing& listing, Time now);

// {"key", "size", "headers_bytes", "body_bytes", "created", "last_used" (ISO 8601 UTC),
//  "use_count", "status" (0 if unreadable), "freshness": label, "fresh": bool|null,
//  "freshness_info": FreshnessInfo::ToJson() or null, "error": null or the parse error}.
nlohmann::json ListingJson(const CacheListing& listing, Time now);

// `cache stats` without --json: "name  value" lines for what is stored (type, path, entries,
// size; the size limit only when max_bytes > 0; the recovery message if any). The counters are
// left out: they count one backend's operations since it opened, and `cache stats` opened it
// just now.
std::string StatsText(const CacheStats& stats);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_CACHE_DISPLAY_H_
