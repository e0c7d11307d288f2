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

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return text;
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

bool IsPrintableText(std::string_view body) {
  size_t i = 0;
  while (i < body.size()) {
    unsigned char c = static_cast<unsigned char>(body[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return false;
      ++i;
      continue;
    }
    // UTF-8: the lead byte gives the length; reject overlongs, surrogates and > U+10FFFF.
    int len;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > body.size()) return false;
    for (int k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(body[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
      return false;
    }
    // C1 controls are not text either.
    if (cp >= 0x80 && cp < 0xa0) return false;
    i += static_cast<size_t>(len);
  }
  return true;
}

std::string HexDump(std::string_view data) {
  std::string out;
  out.reserve((data.size() / 16 + 1) * 78);
  char buf[32];
  for (size_t line = 0; line < data.size(); line += 16) {
    std::snprintf(buf, sizeof(buf), "%08zx: ", line);
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
  std::string line = l.entry.key + "  " + FormatSize(l.entry.total_size()) + "  ";
  line += l.entry.last_used == Time{} ? std::string("never used")
                                      : "used " + FormatDuration(now - l.entry.last_used) + " ago";
  line += "  " + std::to_string(l.entry.use_count) + (l.entry.use_count == 1 ? " use" : " uses");
  line += "  " + (l.parsed ? FreshnessLabel(l.freshness) : "unreadable: " + l.parse_error);
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
