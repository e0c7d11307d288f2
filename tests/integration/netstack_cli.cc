#include "tests/integration/netstack_cli.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "tests/support/temp_dir.h"

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
  // Without a profile of its own, a run would use (and fill) the user's ~/.cache/netstack,
  // shared by every test process running in parallel: give it a fresh, empty one instead.
  std::vector<std::string> child_env = env;
  std::unique_ptr<TempDir> cache_home;
  auto has = [&](const std::string& flag) {
    return std::find(args.begin(), args.end(), flag) != args.end();
  };
  bool env_sets_cache_home = std::any_of(env.begin(), env.end(), [](const std::string& e) {
    return e == "XDG_CACHE_HOME" || e.rfind("XDG_CACHE_HOME=", 0) == 0;
  });
  if (!has("--profile") && !has("--private") && !env_sets_cache_home) {
    cache_home = std::make_unique<TempDir>("xdg-cache");
    child_env.push_back("XDG_CACHE_HOME=" + cache_home->path());
  }
  run.process = RunProcess(argv, timeout, 64 << 20, child_env);
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
