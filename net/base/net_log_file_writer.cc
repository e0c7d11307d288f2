#include "net/base/net_log_file_writer.h"

#include <cerrno>
#include <cstring>

#include "net/base/net_error.h"

namespace netstack {
namespace {

std::string MsString(TimeTicks t) {
  return std::to_string(
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
}

}  // namespace

nlohmann::json NetLogConstants(int64_t time_tick_offset_ms, const std::string& command_line) {
  nlohmann::json event_types = nlohmann::json::object();
  for (int i = 0; i < static_cast<int>(NetLogEventType::kCount); ++i)
    event_types[NetLogEventTypeToString(static_cast<NetLogEventType>(i))] = i;
  nlohmann::json source_types = nlohmann::json::object();
  for (int i = 0; i < static_cast<int>(NetLogSourceType::kCount); ++i)
    source_types[NetLogSourceTypeToString(static_cast<NetLogSourceType>(i))] = i;
  nlohmann::json net_errors = nlohmann::json::object();
#define NET_ERROR(name, value, message) net_errors["ERR_" #name] = value;
#include "net/base/net_error_list.h"
#undef NET_ERROR
  return {
      {"logFormatVersion", 1},
      {"logEventTypes", event_types},
      {"logSourceType", source_types},
      {"logEventPhase", {{"PHASE_NONE", 0}, {"PHASE_BEGIN", 1}, {"PHASE_END", 2}}},
      {"netError", net_errors},
      // netstack has no load flags yet; the viewer needs the table to exist.
      {"loadFlag", {{"NORMAL", 0}, {"BYPASS_CACHE", 1 << 1}, {"DISABLE_CACHE", 1 << 3}}},
      {"addressFamily",
       {{"ADDRESS_FAMILY_UNSPECIFIED", 0}, {"ADDRESS_FAMILY_IPV4", 1}, {"ADDRESS_FAMILY_IPV6", 2}}},
      {"clientInfo",
       {{"name", "netstack"}, {"version", "0.1.0"}, {"cl", ""}, {"command_line", command_line}}},
      // Chrome writes this as a string of milliseconds.
      {"timeTickOffset", std::to_string(time_tick_offset_ms)},
  };
}

nlohmann::json NetLogEntryToJson(const NetLogEntry& entry) {
  nlohmann::json j = {
      {"time", MsString(entry.time)},
      {"type", static_cast<int>(entry.type)},
      {"source",
       {{"id", entry.source.id},
        {"type", static_cast<int>(entry.source.type)},
        {"start_time", MsString(entry.source.start_time)}}},
      {"phase", static_cast<int>(entry.phase)},
  };
  if (!entry.params.is_null() && !entry.params.empty()) j["params"] = entry.params;
  return j;
}

std::unique_ptr<NetLogFileWriter> NetLogFileWriter::Create(const std::string& path, NetLog* net_log,
                                                           const nlohmann::json& constants,
                                                           std::string* error,
                                                           uint64_t max_events) {
  FILE* file = std::fopen(path.c_str(), "w");
  if (!file) {
    *error = "cannot write netlog " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  std::string head = "{\"constants\": " + constants.dump() + ",\n\"events\": [\n";
  std::fwrite(head.data(), 1, head.size(), file);
  auto writer =
      std::unique_ptr<NetLogFileWriter>(new NetLogFileWriter(file, path, net_log, max_events));
  net_log->AddObserver(writer.get());
  return writer;
}

NetLogFileWriter::NetLogFileWriter(FILE* file, std::string path, NetLog* net_log,
                                   uint64_t max_events)
    : file_(file), path_(std::move(path)), net_log_(net_log), max_events_(max_events) {}

NetLogFileWriter::~NetLogFileWriter() {
  if (!finished_) {
    std::string ignored;
    Finish(nlohmann::json::object(), &ignored);
  }
}

void NetLogFileWriter::OnAddEntry(const NetLogEntry& entry) {
  if (events_written_ >= max_events_) {
    ++events_dropped_;
    return;
  }
  // NetLogEntryToJson's dump, written field by field in its (sorted) key order around the
  // params text the NetLog wrote: no json is built per entry.
  std::string& line = line_;
  line.clear();
  if (events_written_) line.append(",\n");
  line.append("{");
  if (!entry.params_text.empty() && entry.params_text != "{}") {
    line.append("\"params\":").append(entry.params_text).append(",");
  } else if (entry.params_text.empty() && !entry.params.is_null() && !entry.params.empty()) {
    line.append("\"params\":");
    NetLogParams::AppendJson(entry.params, &line);  // an entry handed in without text
    line.append(",");
  }
  line.append("\"phase\":").append(std::to_string(static_cast<int>(entry.phase)));
  line.append(",\"source\":{\"id\":").append(std::to_string(entry.source.id));
  line.append(",\"start_time\":\"").append(MsString(entry.source.start_time));
  line.append("\",\"type\":").append(std::to_string(static_cast<int>(entry.source.type)));
  line.append("},\"time\":\"").append(MsString(entry.time));
  line.append("\",\"type\":").append(std::to_string(static_cast<int>(entry.type)));
  line.append("}");
  std::fwrite(line.data(), 1, line.size(), file_);
  ++events_written_;
}

bool NetLogFileWriter::Finish(const nlohmann::json& polled_data, std::string* error) {
  if (finished_) return true;
  finished_ = true;
  net_log_->RemoveObserver(this);
  nlohmann::json polled = polled_data.is_object() ? polled_data : nlohmann::json::object();
  if (events_dropped_) polled["netstackEventsDropped"] = events_dropped_;
  std::string tail = "\n],\n\"polledData\": " +
                     polled.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "}\n";
  std::fwrite(tail.data(), 1, tail.size(), file_);
  bool ok = !std::ferror(file_);
  if (std::fclose(file_) != 0) ok = false;
  file_ = nullptr;
  if (!ok) *error = "cannot write netlog " + path_ + ": " + std::strerror(errno);
  return ok;
}

}  // namespace netstack
