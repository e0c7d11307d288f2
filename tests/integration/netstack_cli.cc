#include "tests/integration/netstack_cli.h"

#include <cstdlib>
#include <sstream>

namespace netstack::test {
namespace {

const nlohmann::json* Find(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* cur = &j;
  std::istringstream in(path);
  std::string key;
  while (std::getline(in, key, '/')) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

}  // namespace

std::string NetstackBinary() {
  const char* env = std::getenv("NETSTACK_BIN");
  if (env && *env) return env;
#ifdef NETSTACK_BIN
  return NETSTACK_BIN;
#else
  return "";
#endif
}

std::vector<std::string> NetstackRun::StderrLines() const {
  std::vector<std::string> lines;
  std::istringstream in(process.err);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::set<int64_t> NetstackRun::SocketIds() const {
  std::set<int64_t> ids;
  for (const nlohmann::json& r : records) {
    int64_t id = JsonInt(r, "socket/id");
    if (id >= 0) ids.insert(id);
  }
  return ids;
}

int NetstackRun::ReusedCount() const {
  int n = 0;
  for (const nlohmann::json& r : records) n += JsonBool(r, "socket/reused") ? 1 : 0;
  return n;
}

NetstackRun RunNetstack(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                        const std::vector<std::string>& env) {
  NetstackRun run;
  std::vector<std::string> argv = {NetstackBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  run.process = RunProcess(argv, timeout, 64 << 20, env);
  std::istringstream in(run.process.out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) {
      run.records.push_back(std::move(j));
    } else {
      run.other_lines.push_back(line);
    }
  }
  return run;
}

NetstackRun RunFetchJson(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                         const std::vector<std::string>& env) {
  std::vector<std::string> full = {"fetch", "--json"};
  full.insert(full.end(), args.begin(), args.end());
  return RunNetstack(full, timeout, env);
}

int64_t JsonInt(const nlohmann::json& j, const std::string& path, int64_t fallback) {
  const nlohmann::json* v = Find(j, path);
  return v && v->is_number_integer() ? v->get<int64_t>() : fallback;
}

std::string JsonString(const nlohmann::json& j, const std::string& path,
                       const std::string& fallback) {
  const nlohmann::json* v = Find(j, path);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}

bool JsonBool(const nlohmann::json& j, const std::string& path, bool fallback) {
  const nlohmann::json* v = Find(j, path);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

double JsonNumber(const nlohmann::json& j, const std::string& path, double fallback) {
  const nlohmann::json* v = Find(j, path);
  return v && v->is_number() ? v->get<double>() : fallback;
}

bool JsonIsNull(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* v = Find(j, path);
  return v && v->is_null();
}

}  // namespace netstack::test
