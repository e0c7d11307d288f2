#include "tests/integration/netlog_file.h"

#include <catch2/catch.hpp>

#include "tests/integration/netstack_cli.h"
#include "tests/integration/temp_dir.h"

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
