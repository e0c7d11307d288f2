// A NetLog JSON file written by `netstack fetch --netlog FILE`, read back for assertions: the
// events with their type names resolved through the file's own constants block.
#ifndef TESTS_INTEGRATION_NETLOG_FILE_H_
#define TESTS_INTEGRATION_NETLOG_FILE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace netstack::test {

struct NetLogFile {
  nlohmann::json json;
  // logEventTypes, value -> name.
  std::map<int64_t, std::string> type_names;
  // constants.logEventPhase.PHASE_BEGIN / PHASE_END, or -1.
  int64_t phase_begin = -1;
  int64_t phase_end = -1;

  // The events array (REQUIREd to exist by ReadNetLog).
  const nlohmann::json& events() const { return json["events"]; }
  // The name of an event's type, or "" if unknown.
  std::string TypeName(const nlohmann::json& event) const;
  // How many events of type `name` (any phase).
  int Count(const std::string& name) const;
  // Every BEGIN without its END (same source id and type) and every END before its BEGIN, one
  // line each; "" when all are paired (fetch ends every lifetime before writing the file).
  std::string UnpairedEvents() const;
};

// Reads and parses `path`. REQUIREs (ending the test on failure) that it is a JSON object with
// a constants block and an events array.
NetLogFile ReadNetLog(const std::string& path);

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_NETLOG_FILE_H_
