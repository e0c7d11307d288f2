#include "tools/internals/net_log_ring.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <string_view>

#include "net/base/net_log_file_writer.h"

namespace netstack {
namespace {

constexpr size_t kMaxLimit = 5000;
constexpr size_t kMaxSourceEvents = 5000;

// Never throws on bad UTF-8 (params may hold bytes from the network): such bytes become U+FFFD.
std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Whether `haystack` contains `lower_needle` (already lowercase), ignoring ASCII case.
bool ContainsIgnoreCase(std::string_view haystack, std::string_view lower_needle) {
  if (lower_needle.empty()) return true;
  auto it =
      std::search(haystack.begin(), haystack.end(), lower_needle.begin(), lower_needle.end(),
                  [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != haystack.end();
}

// "id:N" with N a decimal source id: the exact-id filter.
bool ParseIdFilter(const std::string& lower, uint32_t* id) {
  if (lower.size() < 4 || lower.compare(0, 3, "id:") != 0) return false;
  uint64_t value = 0;
  for (size_t i = 3; i < lower.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(lower[i]))) return false;
    value = value * 10 + static_cast<uint64_t>(lower[i] - '0');
    if (value > std::numeric_limits<uint32_t>::max()) return false;
  }
  *id = static_cast<uint32_t>(value);
  return true;
}

nlohmann::json Parse(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  // Stored text is our own dump, so this only guards against a bug: an unreadable entry shows
  // as an error object rather than breaking the whole answer.
  if (j.is_discarded()) return {{"error", "unreadable stored entry"}};
  return j;
}

}  // namespace

NetLogRing::NetLogRing(Limits limits) : limits_(limits) {}

NetLogRing::~NetLogRing() { Attach(nullptr); }

void NetLogRing::Attach(NetLog* net_log) {
  if (net_log == net_log_) return;
  if (net_log_) net_log_->RemoveObserver(this);
  net_log_ = net_log;
  if (net_log_) {
    ++pass_;
    net_log_->AddObserver(this);
  }
}

void NetLogRing::OnAddEntry(const NetLogEntry& entry) {
  Stored stored;
  stored.seq = next_seq_++;
  stored.pass = pass_;
  stored.source_id = entry.source.id;
  stored.type = static_cast<int>(entry.type);
  stored.source_type = static_cast<int>(entry.source.type);
  stored.time_us = entry.time.time_since_epoch().count();

  // The same object NetLogEntryToJson gives (plus seq and the type names), written directly:
  // building a json object per entry and dumping it was most of a replay's time with the page
  // open (docs/internals.md). Keys in the order nlohmann's dump would give them.
  auto ms = [](TimeTicks t) {
    return static_cast<long long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
  };
  char head[320];
  int n = std::snprintf(
      head, sizeof(head),
      "{\"phase\":%d,\"seq\":%llu,\"source\":{\"id\":%u,\"start_time\":\"%lld\",\"type\":%d},"
      "\"source_type_name\":\"%s\",\"time\":\"%lld\",\"type\":%d,\"type_name\":\"%s\"",
      static_cast<int>(entry.phase), static_cast<unsigned long long>(stored.seq), entry.source.id,
      ms(entry.source.start_time), stored.source_type, NetLogSourceTypeToString(entry.source.type),
      ms(entry.time), stored.type, NetLogEventTypeToString(entry.type));
  stored.json.assign(head, static_cast<size_t>(std::max(0, std::min<int>(n, sizeof(head) - 1))));
  if (!entry.params.is_null() && !entry.params.empty()) {
    // Spliced in by hand so the filter can search the params' text alone.
    stored.json += ",\"params\":";
    stored.params_begin = static_cast<uint32_t>(stored.json.size());
    stored.json += Dump(entry.params);
    stored.params_end = static_cast<uint32_t>(stored.json.size());
  }
  stored.json += '}';
  if (stored.json.size() > limits_.max_bytes || limits_.max_entries == 0) {
    ++dropped_;
    return;
  }
  bytes_ += stored.json.size();
  entries_.push_back(std::move(stored));
  while (entries_.size() > limits_.max_entries || bytes_ > limits_.max_bytes) EvictOldest();
}

void NetLogRing::EvictOldest() {
  bytes_ -= entries_.front().json.size();
  entries_.pop_front();
  ++dropped_;
}

bool NetLogRing::Matches(const Stored& stored, const std::string& lower_filter, bool id_filter,
                         uint32_t filter_id) const {
  if (lower_filter.empty()) return true;
  if (id_filter) return stored.source_id == filter_id;
  if (ContainsIgnoreCase(NetLogEventTypeToString(static_cast<NetLogEventType>(stored.type)),
                         lower_filter) ||
      ContainsIgnoreCase(
          NetLogSourceTypeToString(static_cast<NetLogSourceType>(stored.source_type)),
          lower_filter)) {
    return true;
  }
  std::string_view params(stored.json);
  params = params.substr(stored.params_begin, stored.params_end - stored.params_begin);
  return ContainsIgnoreCase(params, lower_filter);
}

nlohmann::json NetLogRing::EventsAfter(uint64_t after, size_t limit,
                                       const std::string& filter) const {
  limit = std::clamp<size_t>(limit, 1, kMaxLimit);
  const std::string lower = ToLower(filter);
  uint32_t filter_id = 0;
  const bool id_filter = ParseIdFilter(lower, &filter_id);

  nlohmann::json events = nlohmann::json::array();
  // Sequence numbers increase along the deque (with gaps where oversized entries were dropped).
  auto it = std::upper_bound(entries_.begin(), entries_.end(), after,
                             [](uint64_t seq, const Stored& s) { return seq < s.seq; });
  uint64_t next_seq = next_seq_;
  bool more = false;
  for (; it != entries_.end(); ++it) {
    if (!Matches(*it, lower, id_filter, filter_id)) continue;
    if (events.size() == limit) {
      more = true;
      next_seq = it->seq;  // the first match not returned
      break;
    }
    events.push_back(Parse(it->json));
  }
  return {{"first_seq", entries_.empty() ? next_seq_ : entries_.front().seq},
          {"next_seq", next_seq},
          {"dropped", dropped_},
          {"more", more},
          {"events", std::move(events)}};
}

nlohmann::json NetLogRing::SourceEvents(uint32_t source_id) const {
  // The newest pass that holds the id: scanning backwards finds it first.
  uint64_t pass = 0;
  bool found = false;
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->source_id == source_id) {
      pass = it->pass;
      found = true;
      break;
    }
  }
  nlohmann::json events = nlohmann::json::array();
  bool truncated = false;
  if (found) {
    int64_t first_us = 0;
    for (const Stored& stored : entries_) {
      if (stored.source_id != source_id || stored.pass != pass) continue;
      if (events.size() == kMaxSourceEvents) {
        truncated = true;
        break;
      }
      if (events.empty()) first_us = stored.time_us;
      nlohmann::json j = Parse(stored.json);
      j["offset_ms"] = static_cast<double>(stored.time_us - first_us) / 1000.0;
      events.push_back(std::move(j));
    }
  }
  return {{"source_id", source_id}, {"events", std::move(events)}, {"truncated", truncated}};
}

std::string NetLogRing::ExportText(const Stored& stored, uint32_t id_offset) {
  if (id_offset == 0) return stored.json;
  nlohmann::json j = Parse(stored.json);
  if (j.contains("source") && j["source"].is_object() && j["source"].contains("id"))
    j["source"]["id"] = stored.source_id + id_offset;
  if (j.contains("params") && j["params"].is_object()) {
    nlohmann::json& params = j["params"];
    if (params.contains("source_dependency") && params["source_dependency"].is_object() &&
        params["source_dependency"].contains("id") &&
        params["source_dependency"]["id"].is_number_unsigned()) {
      params["source_dependency"]["id"] =
          params["source_dependency"]["id"].get<uint32_t>() + id_offset;
    }
  }
  return Dump(j);
}

std::string NetLogRing::ExportNetLog(int64_t time_tick_offset_ms, const std::string& command_line,
                                     const nlohmann::json& polled_data) const {
  // Source ids of earlier passes are moved past the newest pass's, each pass after the last.
  std::map<uint64_t, uint32_t> max_id;  // pass -> its largest source id
  for (const Stored& stored : entries_)
    max_id[stored.pass] = std::max(max_id[stored.pass], stored.source_id);
  std::map<uint64_t, uint32_t> offset;
  if (!max_id.empty()) {
    uint64_t base = max_id.rbegin()->second;
    for (auto& [pass, largest] : max_id) {
      if (pass == max_id.rbegin()->first) continue;
      offset[pass] = static_cast<uint32_t>(std::min<uint64_t>(base, UINT32_MAX - largest));
      base += largest;
    }
  }

  std::string out = "{\"constants\": " + Dump(NetLogConstants(time_tick_offset_ms, command_line));
  out += ",\n\"events\": [\n";
  bool first = true;
  for (const Stored& stored : entries_) {
    if (!first) out += ",\n";
    first = false;
    auto it = offset.find(stored.pass);
    out += ExportText(stored, it == offset.end() ? 0 : it->second);
  }
  nlohmann::json polled = polled_data.is_object() ? polled_data : nlohmann::json::object();
  polled["dropped_events"] = dropped_;
  out += "\n],\n\"polledData\": " + Dump(polled) + "}\n";
  return out;
}

size_t NetLogRing::EstimateMemoryUsage() const {
  size_t total = sizeof(*this);
  for (const Stored& stored : entries_) total += sizeof(Stored) + stored.json.capacity();
  return total;
}

}  // namespace netstack
