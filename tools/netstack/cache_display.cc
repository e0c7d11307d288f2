#include "tools/netstack/cache_display.h"

#include <cstdio>
#include <ctime>

namespace netstack {
namespace {

std::string Fixed1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

}  // namespace

std::string FormatDuration(TimeDelta d) {
  int64_t s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (s < 0) s = -s;
  struct Unit {
    int64_t seconds;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}};
  std::string out;
  int shown = 0;
  for (const Unit& u : kUnits) {
    int64_t n = s / u.seconds;
    // Two units at most, adjacent ones: "3h" rather than "3h0m", "2d4h" rather than "2d4h5m".
    if (shown == 1) {
      if (n > 0) out += std::to_string(n) + u.name;
      break;
    }
    if (n > 0) {
      out += std::to_string(n) + u.name;
      s -= n * u.seconds;
      ++shown;
    }
  }
  return out.empty() ? "0s" : out;
}

std::string FormatSize(int64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  if (bytes < 1024 * 1024) return Fixed1(bytes / 1024.0) + " KiB";
  if (bytes < int64_t{1} << 30) return Fixed1(bytes / (1024.0 * 1024.0)) + " MiB";
  return Fixed1(bytes / (1024.0 * 1024.0 * 1024.0)) + " GiB";
}

std::string FormatTime(Time t) {
  if (t == Time{}) return "-";
  time_t seconds = static_cast<time_t>(ToUnixSeconds(t));
  struct tm tm;
  if (!gmtime_r(&seconds, &tm)) return "-";
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string FreshnessLabel(const FreshnessInfo& f) {
  if (f.no_cache) return "no-cache";
  if (f.is_fresh()) return "fresh " + FormatDuration(f.remaining());
  return "stale " + FormatDuration(f.remaining());
}

std::string HexDump(std::string_view data, int64_t offset) {
  std::string out;
  out.reserve((data.size() / 16 + 1) * 78);
  char buf[32];
  for (size_t line = 0; line < data.size(); line += 16) {
    std::snprintf(buf, sizeof(buf), "%08llx: ", static_cast<unsigned long long>(offset) + line);
    out += buf;
    std::string ascii;
    for (size_t i = line; i < line + 16; ++i) {
      if (i < data.size()) {
        unsigned char c = static_cast<unsigned char>(data[i]);
        std::snprintf(buf, sizeof(buf), "%02x ", c);
        out += buf;
        ascii += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '.';
      } else {
        out += "   ";
      }
      if (i == line + 7) out += ' ';
    }
    out += ' ';
    out += ascii;
    out += '\n';
  }
  return out;
}

std::string ListingLine(const CacheListing& l, Time now) {
  std::string line = TerminalSafe(l.entry.key) + "  " + FormatSize(l.entry.total_size()) + "  ";
  line += l.entry.last_used == Time{} ? std::string("never used")
                                      : "used " + FormatDuration(now - l.entry.last_used) + " ago";
  line += "  " + std::to_string(l.entry.use_count) + (l.entry.use_count == 1 ? " use" : " uses");
  line += "  " + (l.parsed ? FreshnessLabel(l.freshness)
                  : l.parse_error.starts_with("Vary index")
                      ? TerminalSafe(l.parse_error)
                      : "unreadable: " + TerminalSafe(l.parse_error));
  return line;
}

nlohmann::json ListingJson(const CacheListing& l, Time now) {
  nlohmann::json j;
  j["key"] = l.entry.key;
  j["size"] = l.entry.total_size();
  j["headers_bytes"] = l.entry.headers_size;
  j["body_bytes"] = l.entry.body_size;
  j["created"] = FormatTime(l.entry.created);
  j["last_used"] = FormatTime(l.entry.last_used);
  j["use_count"] = l.entry.use_count;
  if (l.parsed) {
    j["status"] = l.response.headers->response_code();
    j["freshness"] = FreshnessLabel(l.freshness);
    j["fresh"] = l.freshness.is_fresh();
    j["freshness_info"] = l.freshness.ToJson();
    j["error"] = nullptr;
  } else {
    j["status"] = 0;
    j["freshness"] = "unreadable";
    j["fresh"] = nullptr;
    j["freshness_info"] = nullptr;
    j["error"] = l.parse_error;
  }
  return j;
}

std::string StatsText(const CacheStats& s) {
  auto line = [](const std::string& name, const std::string& value) {
    std::string padded = name;
    padded.resize(std::max<size_t>(padded.size(), 20), ' ');
    return padded + value + "\n";
  };
  std::string out;
  out += line("type", s.type);
  if (!s.path.empty()) out += line("path", s.path);
  out += line("entries", std::to_string(s.entry_count));
  std::string size = FormatSize(s.total_bytes) + " (" + std::to_string(s.total_bytes) + " bytes)";
  if (s.max_bytes > 0) size += " of " + FormatSize(s.max_bytes);
  out += line("size", size);
  if (!s.recovery_message.empty()) out += line("recovered", s.recovery_message);
  return out;
}

}  // namespace netstack
