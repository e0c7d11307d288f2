#include "tests/integration/netlog_file.h"

#include <catch2/catch.hpp>
#include <sstream>
#include <utility>

#include "tests/integration/netstack_cli.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {

std::string NetLogFile::TypeName(const nlohmann::json& event) const {
  if (!event.is_object() || !event.contains("type") || !event["type"].is_number_integer()) {
    return "";
  }
  auto it = type_names.find(event["type"].get<int64_t>());
  return it == type_names.end() ? "" : it->second;
}

int NetLogFile::Count(const std::string& name) const {
  int n = 0;
  for (const nlohmann::json& e : events()) n += TypeName(e) == name ? 1 : 0;
  return n;
}

std::string NetLogFile::UnpairedEvents() const {
  std::map<std::pair<int64_t, std::string>, int> open;
  std::ostringstream errors;
  for (const nlohmann::json& e : events()) {
    const int64_t phase = JsonInt(e, "phase");
    const std::pair<int64_t, std::string> key{JsonInt(e, "source/id"), TypeName(e)};
    if (phase == phase_begin) {
      ++open[key];
    } else if (phase == phase_end) {
      if (--open[key] < 0)
        errors << "END before BEGIN: " << key.second << " of " << key.first << "\n";
    }
  }
  for (const auto& [key, depth] : open) {
    if (depth > 0)
      errors << "BEGIN without END: " << key.second << " of source " << key.first << "\n";
  }
  return errors.str();
}

NetLogFile ReadNetLog(const std::string& path) {
  NetLogFile f;
  std::string text;
  INFO("netlog file " << path);
  REQUIRE(ReadFileToString(path, &text));
  f.json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  REQUIRE(f.json.is_object());
  REQUIRE(f.json.contains("constants"));
  REQUIRE(f.json.contains("events"));
  REQUIRE(f.json["events"].is_array());
  const nlohmann::json& c = f.json["constants"];
  if (c.contains("logEventTypes") && c["logEventTypes"].is_object()) {
    for (const auto& [name, value] : c["logEventTypes"].items()) {
      if (value.is_number_integer()) f.type_names[value.get<int64_t>()] = name;
    }
  }
  f.phase_begin = JsonInt(c, "logEventPhase/PHASE_BEGIN");
  f.phase_end = JsonInt(c, "logEventPhase/PHASE_END");
  return f;
}

}  // namespace netstack::test
