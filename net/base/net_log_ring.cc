#include "net/base/net_log_ring.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include "net/base/net_log_file_writer.h"
#include "net/base/string_util.h"

namespace netstack {
namespace {

constexpr size_t kMaxLimit = 5000;
constexpr size_t kMaxSourceEvents = 5000;
// libstdc++'s std::string keeps up to 15 characters inside itself.
constexpr size_t kStringInlineCapacity = 15;
// The stored entry's narrow type fields hold every value.
static_assert(static_cast<int>(NetLogEventType::kCount) <= UINT16_MAX);
static_assert(static_cast<int>(NetLogSourceType::kCount) <= UINT8_MAX);

// Never throws on bad UTF-8 (params may hold bytes from the network): such bytes become U+FFFD.
std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Kept params text back as json (for the page's answers, built as json): the same values, and
// dumped again the same text. Never throws; text that does not parse (it always does: the
// NetLog wrote it) becomes its string.
nlohmann::json ParseParams(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? nlohmann::json(text) : j;
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

size_t StringHeapBytes(const std::string& s) {
  return s.capacity() > kStringInlineCapacity ? s.capacity() + 1 : 0;
}

// Milliseconds of a TimeTicks microsecond count, truncated as NetLogEntryToJson's are.
long long Ms(int64_t us) {
  return static_cast<long long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(TimeDelta(us)).count());
}

// Appends `value` in decimal (what snprintf's %d/%llu and nlohmann's dump write).
template <typename Integer>
void AppendNumber(Integer value, std::string* out) {
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof(digits), value);
  out->append(digits, static_cast<size_t>(result.ptr - digits));
}

const char* EventName(uint16_t type) {
  return NetLogEventTypeToString(static_cast<NetLogEventType>(type));
}

const char* SourceName(uint8_t type) {
  return NetLogSourceTypeToString(static_cast<NetLogSourceType>(type));
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

NetLogRing::Stored NetLogRing::MakeStored(const NetLogEntry& entry) {
  Stored stored;
  stored.seq = next_seq_++;
  stored.time_us = entry.time.time_since_epoch().count();
  stored.source_start_us = entry.source.start_time.time_since_epoch().count();
  stored.pass = pass_;
  stored.source_id = entry.source.id;
  stored.bytes = 0;
  stored.type = static_cast<uint16_t>(entry.type);
  stored.source_type = static_cast<uint8_t>(entry.source.type);
  stored.phase = static_cast<uint8_t>(entry.phase);
  return stored;
}

void NetLogRing::OnAddEntry(const NetLogEntry& entry) {
  Stored stored = MakeStored(entry);
  if (!entry.params_text.empty()) {
    if (entry.params_text != "{}") stored.params.assign(entry.params_text);
  } else if (!entry.params.is_null() && !entry.params.empty()) {
    stored.params = Dump(entry.params);  // an entry handed in directly, not through a NetLog
  }
  Keep(std::move(stored));
}

void NetLogRing::Keep(Stored stored) {
  const size_t bytes = sizeof(Stored) + StringHeapBytes(stored.params);
  if (bytes > limits_.max_bytes || limits_.max_entries == 0) {
    ++dropped_;
    return;
  }
  stored.bytes = static_cast<uint32_t>(bytes);  // <= max_bytes, which a uint32 holds in practice
  bytes_ += stored.bytes;
  entries_.push_back(std::move(stored));
  while (entries_.size() > limits_.max_entries || bytes_ > limits_.max_bytes) EvictOldest();
}

void NetLogRing::EvictOldest() {
  bytes_ -= entries_.front().bytes;
  entries_.pop_front();
  ++dropped_;
}

bool NetLogRing::Matches(const Stored& stored, const std::string& lower_filter, bool id_filter,
                         uint32_t filter_id) const {
  if (lower_filter.empty()) return true;
  if (id_filter) return stored.source_id == filter_id;
  if (ContainsCaseInsensitiveAscii(EventName(stored.type), lower_filter) ||
      ContainsCaseInsensitiveAscii(SourceName(stored.source_type), lower_filter)) {
    return true;
  }
  // The params' text, as the export writes it.
  return ContainsCaseInsensitiveAscii(stored.params, lower_filter);
}

nlohmann::json NetLogRing::ToJson(const Stored& stored) {
  nlohmann::json j = {
      {"phase", stored.phase},
      {"seq", stored.seq},
      {"source",
       {{"id", stored.source_id},
        {"start_time", std::to_string(Ms(stored.source_start_us))},
        {"type", stored.source_type}}},
      {"source_type_name", SourceName(stored.source_type)},
      {"time", std::to_string(Ms(stored.time_us))},
      {"type", stored.type},
      {"type_name", EventName(stored.type)},
  };
  if (!stored.params.empty()) j["params"] = ParseParams(stored.params);
  return j;
}

nlohmann::json NetLogRing::EventsAfter(uint64_t after, size_t limit,
                                       const std::string& filter) const {
  limit = std::clamp<size_t>(limit, 1, kMaxLimit);
  const std::string lower = ToLowerAscii(filter);
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
    events.push_back(ToJson(*it));
  }
  return {{"first_seq", entries_.empty() ? next_seq_ : entries_.front().seq},
          {"next_seq", next_seq},
          {"dropped", dropped_},
          {"more", more},
          {"events", std::move(events)}};
}

nlohmann::json NetLogRing::SourceEvents(uint32_t source_id) const {
  // The newest pass that holds the id: scanning backwards finds it first.
  uint32_t pass = 0;
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
      nlohmann::json j = ToJson(stored);
      j["offset_ms"] = static_cast<double>(stored.time_us - first_us) / 1000.0;
      events.push_back(std::move(j));
    }
  }
  return {{"source_id", source_id}, {"events", std::move(events)}, {"truncated", truncated}};
}

void NetLogRing::AppendText(const Stored& stored, uint32_t id_offset, std::string* out) {
  if (id_offset != 0) {
    // An earlier pass's entry: rare (a replay's passes), so built as json, shifted and dumped.
    nlohmann::json j = ToJson(stored);
    j["source"]["id"] = stored.source_id + id_offset;
    if (j.contains("params") && j["params"].is_object()) {
      nlohmann::json& params = j["params"];
      auto dep = params.find("source_dependency");
      if (dep != params.end() && dep->is_object()) {
        auto id = dep->find("id");
        // Non-negative integers only (what a serialized entry read back has as unsigned).
        if (id != dep->end() &&
            (id->is_number_unsigned() || (id->is_number_integer() && id->get<int64_t>() >= 0))) {
          *id = static_cast<uint32_t>(id->get<uint64_t>()) + id_offset;
        }
      }
    }
    out->append(Dump(j));
    return;
  }
  // The fixed fields in sorted key order, then the params last: the text the ring has always
  // written for an entry, appended piece by piece (snprintf was most of an export's time).
  out->append("{\"phase\":");
  AppendNumber(stored.phase, out);
  out->append(",\"seq\":");
  AppendNumber(stored.seq, out);
  out->append(",\"source\":{\"id\":");
  AppendNumber(stored.source_id, out);
  out->append(",\"start_time\":\"");
  AppendNumber(Ms(stored.source_start_us), out);
  out->append("\",\"type\":");
  AppendNumber(stored.source_type, out);
  out->append("},\"source_type_name\":\"");
  out->append(SourceName(stored.source_type));
  out->append("\",\"time\":\"");
  AppendNumber(Ms(stored.time_us), out);
  out->append("\",\"type\":");
  AppendNumber(stored.type, out);
  out->append(",\"type_name\":\"");
  out->append(EventName(stored.type));
  out->push_back('"');
  if (!stored.params.empty()) {
    out->append(",\"params\":");
    out->append(stored.params);
  }
  out->push_back('}');
}

std::string NetLogRing::ExportNetLog(int64_t time_tick_offset_ms, const std::string& command_line,
                                     const nlohmann::json& polled_data) const {
  // Source ids of earlier passes are moved past the newest pass's, each pass after the last.
  std::map<uint32_t, uint32_t> max_id;  // pass -> its largest source id
  for (const Stored& stored : entries_)
    max_id[stored.pass] = std::max(max_id[stored.pass], stored.source_id);
  std::map<uint32_t, uint32_t> offset;
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
    AppendText(stored, it == offset.end() ? 0 : it->second, &out);
  }
  nlohmann::json polled = polled_data.is_object() ? polled_data : nlohmann::json::object();
  polled["dropped_events"] = dropped_;
  out += "\n],\n\"polledData\": " + Dump(polled) + "}\n";
  return out;
}

size_t NetLogRing::EstimateMemoryUsage() const {
  // bytes_ counts each entry's struct and params; the deque adds its block map (about a pointer
  // per 512-byte block).
  return sizeof(*this) + bytes_ + (entries_.size() * sizeof(Stored) / 512 + 1) * sizeof(void*);
}

}  // namespace netstack
