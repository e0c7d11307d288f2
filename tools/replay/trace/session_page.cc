#include "tools/replay/trace/session_page.h"

#include <algorithm>
#include <numeric>

#include "net/base/url.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

namespace {

constexpr int64_t kMaxBytes = kMaxTraceBodyBytes;  // 1 GiB: a response, or a request body
constexpr double kMaxMs = 3'600'000;               // one hour: server time, gaps
constexpr double kMaxStartMs = 1e10;

bool IsTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// Headers as an object {"Name": "value"} or a list [["Name", "value"], ...].
bool ReadHeaders(JsonFields& fields, const char* key, HeaderList* out, std::string* error) {
  const nlohmann::json* headers = fields.Get(key);
  if (!headers) return fields.ok() || (*error = fields.error(), false);
  std::string path = fields.PathOf(key);
  if (headers->size() > kMaxSessionHeaders) {
    *error = path + ": " + std::to_string(headers->size()) + " headers, more than the limit of " +
             std::to_string(kMaxSessionHeaders);
    return false;
  }
  if (headers->is_object()) {
    for (const auto& [name, value] : headers->items()) {
      if (!value.is_string()) {
        *error = path + "." + name + ": expected a string, got " + JsonTypeName(value);
        return false;
      }
      out->emplace_back(name, value.get<std::string>());
    }
    return true;
  }
  if (headers->is_array()) {
    for (size_t i = 0; i < headers->size(); ++i) {
      const nlohmann::json& pair = (*headers)[i];
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) {
        *error = path + "[" + std::to_string(i) + "]: expected [\"name\", \"value\"]";
        return false;
      }
      out->emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
    }
    return true;
  }
  *error = path + ": expected an object or a list of [name, value], got " + JsonTypeName(*headers);
  return false;
}

const std::vector<std::string_view>& EntryFields() {
  static const std::vector<std::string_view> fields = {
      "url",     "method",          "status",    "type",     "bytes", "request_bytes",
      "headers", "request_headers", "server_ms", "start_ms", "after", "gap_ms"};
  return fields;
}

// Entry `index` of the list at `list_path` (parents must come earlier).
bool ReadEntry(const nlohmann::json& json, const std::string& list_path, size_t index,
               SessionUrlCheck* urls, std::vector<TraceEntry>& entries, std::string* error) {
  JsonFields fields(json, list_path, index);
  std::string unknown;
  if (!CheckSessionFields(json, EntryFields(), &unknown)) {
    *error = UnknownFieldMessage(unknown, fields.path());
    return false;
  }
  TraceEntry entry;
  fields.String("url", &entry.url, /*required=*/true);
  fields.String("method", &entry.method);
  int64_t status = 200;
  fields.Integer("status", 100, 599, &status);
  entry.status = static_cast<int>(status);
  entry.resource_type = index == 0 ? "document" : "other";
  fields.String("type", &entry.resource_type);
  fields.Integer("bytes", 0, kMaxBytes, &entry.response_body_bytes);
  fields.Integer("request_bytes", 0, kMaxBytes, &entry.request_body_bytes);
  fields.NumberIn("server_ms", 0, kMaxMs, &entry.server_ms);
  bool has_start = fields.NumberIn("start_ms", 0, kMaxStartMs, &entry.start_ms);
  int64_t after = index == 0 ? -1 : 0;
  bool has_after = fields.Integer("after", -1, kMaxSessionPageEntries, &after);
  fields.NumberIn("gap_ms", 0, kMaxMs, &entry.gap_ms);
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  std::string problem;
  if (!urls->Check(entry.url, &problem)) {
    *error = fields.PathOf("url") + ": " + problem;
    return false;
  }
  if (entry.method.empty() || entry.method.size() > 32 ||
      !std::all_of(entry.method.begin(), entry.method.end(), IsTokenChar)) {
    *error = fields.PathOf("method") + ": '" + entry.method.substr(0, 40) + "' is not a method";
    return false;
  }
  if (!ReadHeaders(fields, "headers", &entry.response_headers, error) ||
      !ReadHeaders(fields, "request_headers", &entry.request_headers, error)) {
    return false;
  }
  if (has_after && after >= static_cast<int64_t>(index)) {
    *error = fields.PathOf("after") + ": " +
             (index == 0 ? std::string("the first entry (the navigation) has no parent")
                         : std::to_string(after) + " is not an earlier entry (0 to " +
                               std::to_string(index - 1) + ", or -1 for none)");
    return false;
  }
  if (after >= 0) {
    const TraceEntry& parent = entries[static_cast<size_t>(after)];
    entry.parent = static_cast<int>(after);
    entry.initiator = InitiatorKind::kExplicit;
    if (!has_start) {
      entry.start_ms = parent.start_ms + entry.gap_ms;
    } else if (entry.start_ms < parent.start_ms) {
      *error = fields.PathOf("start_ms") + ": " + FormatNumber(entry.start_ms) +
               " is before its parent entries[" + std::to_string(after) + "] starts (" +
               FormatNumber(parent.start_ms) + ")";
      return false;
    }
  } else if (entry.gap_ms != 0) {
    *error = fields.PathOf("gap_ms") + ": needs \"after\"";
    return false;
  }
  if (index > 0 && entry.start_ms < entries[0].start_ms) {
    *error = fields.PathOf("start_ms") + ": " + FormatNumber(entry.start_ms) +
             " is before the first entry (the navigation) starts";
    return false;
  }
  entries.push_back(std::move(entry));
  return true;
}

}  // namespace

bool SessionUrlCheck::Check(const std::string& url, std::string* problem) {
  if (good_.count(url)) return true;
  Url parsed;
  if (Url::Parse(url, &parsed, problem) != 0) return false;
  if (good_.size() >= 10'000) good_.clear();
  good_.insert(url);
  return true;
}

bool CheckSessionFields(const nlohmann::json& object, const std::vector<std::string_view>& allowed,
                        std::string* unknown) {
  if (!object.is_object()) return true;  // the caller's JsonFields reports the type
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (!key.empty() && key[0] == '_') continue;
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    *unknown = key;
    return false;
  }
  return true;
}

std::string UnknownFieldMessage(const std::string& key, const std::string& what) {
  return "unknown field '" + key.substr(0, 64) + "' in " + what +
         " (fields starting with '_' are ignored)";
}

bool ParseInlinePage(const nlohmann::json& object, const std::string& path, SessionUrlCheck* urls,
                     TracePage* out, std::string* error) {
  JsonFields fields(object, path);
  const nlohmann::json* list = fields.Array("entries", /*required=*/true);
  fields.String("title", &out->title);
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  std::string list_path = fields.PathOf("entries");
  if (list->empty()) {
    *error = list_path + ": empty (a page needs at least its document)";
    return false;
  }
  if (list->size() > kMaxSessionPageEntries) {
    *error = list_path + ": " + std::to_string(list->size()) + " entries, more than the limit of " +
             std::to_string(kMaxSessionPageEntries);
    return false;
  }
  std::vector<TraceEntry> entries;
  entries.reserve(list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    if (!ReadEntry((*list)[i], list_path, i, urls, entries, error)) {
      return false;
    }
  }
  // Recorded start order, keeping parents before children (a parent never starts later, and
  // ties keep the list order) and the first entry first (nothing starts before it).
  double origin = entries[0].start_ms;
  bool sorted = std::is_sorted(
      entries.begin(), entries.end(),
      [](const TraceEntry& a, const TraceEntry& b) { return a.start_ms < b.start_ms; });
  if (!sorted) {
    std::vector<int> order(entries.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return entries[static_cast<size_t>(a)].start_ms < entries[static_cast<size_t>(b)].start_ms;
    });
    std::vector<int> new_index(entries.size());
    for (size_t i = 0; i < order.size(); ++i)
      new_index[static_cast<size_t>(order[i])] = static_cast<int>(i);
    std::vector<TraceEntry> sorted_entries;
    sorted_entries.reserve(entries.size());
    for (int old : order) {
      sorted_entries.push_back(std::move(entries[static_cast<size_t>(old)]));
      TraceEntry& moved = sorted_entries.back();
      if (moved.parent >= 0) moved.parent = new_index[static_cast<size_t>(moved.parent)];
    }
    entries = std::move(sorted_entries);
  }
  for (TraceEntry& entry : entries) entry.start_ms -= origin;
  out->entries = std::move(entries);
  if (out->title.empty()) out->title = out->entries[0].url;
  return true;
}

}  // namespace netstack
