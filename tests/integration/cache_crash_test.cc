// Crash safety (issue 3): `netstack fetch` is killed with SIGKILL at varied moments while it
// writes large bodies into the disk cache, again and again; afterwards every entry the cache
// lists is served from it byte-identical to the origin's file, and the cache still works.
#include <signal.h>

#include <chrono>
#include <cstring>
#include <set>
#include <thread>

#include "tests/integration/cache_test_util.h"
#include "tests/integration/temp_dir.h"

namespace netstack::test {
namespace {

// Sizes of the origin's large files (random bytes: nothing compresses them).
constexpr size_t kMiB = 1024 * 1024;
const size_t kSizes[] = {8 * kMiB, 12 * kMiB, 20 * kMiB, 30 * kMiB};
constexpr int kRounds = 10;

std::string RandomBytes(size_t size, uint64_t seed) {
  std::string out(size, '\0');
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (size_t i = 0; i + 8 <= size; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(&out[i], &x, 8);
  }
  return out;
}

TEST_CASE("SIGKILL during large cache writes never leaves an entry served corrupt",
          "[cache][crash]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  for (size_t i = 0; i < std::size(kSizes); ++i)
    nginx.AddFile("/big/" + std::to_string(i) + ".bin", RandomBytes(kSizes[i], i + 1));
  nginx.AddServerConfig("    location /big/ { expires 1h; gzip off; }");
  START_OR_SKIP(nginx);
  TempDir dir("cache-crash");
  const std::string profile = dir.Join("profile");

  auto start = std::chrono::steady_clock::now();
  int killed = 0;
  // The URLs of rounds that finished before the kill: all stored, and listed afterwards (no
  // later run, kill or inspection may lose them).
  std::set<std::string> completed;
  for (int round = 0; round < kRounds; ++round) {
    // New query strings each round: new keys, so every round writes (a hit writes nothing).
    std::vector<std::string> argv = {NetstackBinary(), "fetch", "--json",     "--profile", profile,
                                     "--cache-size",   "2G",    "--parallel", "4"};
    std::vector<std::string> urls;
    for (size_t i = 0; i < std::size(kSizes); ++i) {
      urls.push_back(
          nginx.HttpUrl("/big/" + std::to_string(i) + ".bin?round=" + std::to_string(round)));
    }
    argv.insert(argv.end(), urls.begin(), urls.end());
    ChildProcess child;
    std::string error;
    REQUIRE(child.Start(argv, dir.Join("round.out"), dir.Join("round.err"), &error));
    // From early (opening the database, first bytes) to late (bodies being committed): a
    // whole run takes a few hundred milliseconds.
    std::this_thread::sleep_for(std::chrono::milliseconds(10 + (round * 53) % 240));
    if (child.IsRunning()) {
      ++killed;
    } else {
      completed.insert(urls.begin(), urls.end());
    }
    child.Stop(SIGKILL, std::chrono::milliseconds(0));
  }
  std::printf("crash test: %d of %d runs killed while running (%.1f s)\n", killed, kRounds,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  CHECK(killed > 0);

  NetstackRun ls = RunCache({"ls", "--json"}, profile);
  INFO(ls.Describe());
  REQUIRE(ls.exit_code() == 0);
  CHECK_FALSE(ls.process.HasSanitizerReport());
  std::printf("crash test: %zu entries survived\n", ls.records.size());
  std::set<std::string> listed;
  for (const nlohmann::json& e : ls.records) listed.insert(JsonString(e, "key"));
  for (const std::string& url : completed) {
    INFO("stored by a run that finished: " << url);
    CHECK(listed.count(url) == 1);
  }

  // Every listed entry is served from the cache, identical to the file nginx serves.
  std::vector<std::string> args = {"--cache-size", "2G"};
  std::vector<std::string> keys;
  for (size_t i = 0; i < ls.records.size(); ++i) {
    std::string key = JsonString(ls.records[i], "key");
    keys.push_back(key);
    args.push_back("-o");
    args.push_back(dir.Join("out" + std::to_string(i)));
  }
  args.insert(args.end(), keys.begin(), keys.end());
  if (!keys.empty()) {
    NetstackRun check = FetchWithProfile(profile, args);
    CHECK_FETCH_OK(check, keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      INFO(keys[i]);
      const nlohmann::json& rec = check.records[i];
      std::string disposition = Disposition(rec);
      CHECK((disposition == "hit" || disposition == "revalidated"));
      std::string path = keys[i].substr(keys[i].find("/big/"));
      path = path.substr(0, path.find('?'));
      std::string body = ReadFile(dir.Join("out" + std::to_string(i)));
      std::string origin = ReadFile(nginx.DocPath(path));
      CHECK(body.size() == origin.size());
      CHECK(body == origin);  // no corrupt entry was served
    }
  }

  // The cache still works after all that: a new entry is stored and served.
  const std::string fresh = nginx.HttpUrl("/big/0.bin?after");
  NetstackRun store = FetchWithProfile(profile, {"--cache-size", "2G", fresh});
  CHECK_FETCH_OK(store, 1u);
  CHECK(Disposition(store.records[0]) == "miss");
  NetstackRun served =
      FetchWithProfile(profile, {"--cache-size", "2G", "-o", dir.Join("after.out"), fresh});
  CHECK_FETCH_OK(served, 1u);
  CHECK(Disposition(served.records[0]) == "hit");
  CHECK(ReadFile(dir.Join("after.out")) == ReadFile(nginx.DocPath("/big/0.bin")));
}

}  // namespace
}  // namespace netstack::test
