// Crash safety (issue 3): `netstack fetch` is killed with SIGKILL while it writes large bodies
// into the disk cache, again and again; afterwards every entry the cache lists is served from it
// byte-identical to the origin's file, no temporary body file survives the next open, and the
// cache still works.
//
// The kills are placed by observed progress, never by a fixed delay: the test watches the
// profile's cache/bodies/ directory and kills once a body is being streamed to a tmp-* file (or
// once one of the round's bodies has been renamed into place, while the larger ones still
// stream), plus a small seeded random delay. So the kills land during writes however fast or
// slow the machine (or the sanitizer) is, and what the test asserts does not depend on timing.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "tests/integration/cache_test_util.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

// Sizes of the origin's large files (random bytes: nothing compresses them). Fetched four at a
// time, so while the smaller ones are committed the larger ones are still being written.
constexpr size_t kMiB = 1024 * 1024;
const size_t kSizes[] = {8 * kMiB, 12 * kMiB, 20 * kMiB, 30 * kMiB};
// Round 0 runs to completion (the verification always has entries to check, and the killed
// rounds after it must not damage them); rounds 1..kRounds-1 are killed mid-write.
constexpr int kRounds = 7;
// A round that shows no write progress within this bound fails the test (the fetch hangs or
// the cache never writes): generous, since under ASan a whole round takes seconds.
constexpr auto kProgressBound = std::chrono::seconds(20);
// Seed of the extra delay after progress is seen (0-50 ms): fixed, so a failing run can be
// reasoned about; the delays still vary from round to round.
constexpr uint32_t kSeed = 0x5eed0003;

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

// A file in cache/bodies/ and when it was last written (ns since the epoch).
struct BodyFile {
  std::string name;
  int64_t mtime_ns = 0;
  bool temp() const { return name.rfind("tmp-", 0) == 0; }
};

// The files in cache/bodies/ at one moment (empty while it does not exist yet). A file removed
// while it is listed is skipped.
std::vector<BodyFile> ListBodies(const std::string& bodies_dir) {
  std::vector<BodyFile> files;
  DIR* d = ::opendir(bodies_dir.c_str());
  if (!d) return files;
  while (dirent* e = ::readdir(d)) {
    struct stat st;
    if (e->d_name[0] == '.' || ::fstatat(::dirfd(d), e->d_name, &st, 0) != 0) continue;
    files.push_back({e->d_name, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec});
  }
  ::closedir(d);
  return files;
}

// The latest write time among `files` (0 for none).
int64_t LastWrite(const std::vector<BodyFile>& files) {
  int64_t last = 0;
  for (const BodyFile& f : files) last = std::max(last, f.mtime_ns);
  return last;
}

// How many of `files` are tmp-* files (temp) or bodies renamed into place (!temp) written after
// `since`. By name alone a previous round's leftovers (removed only when the next process opens
// the cache) could not be told from this round's files, since entry ids may be reused; by write
// time they can, because the previous writer is dead before the next one starts.
int CountWrittenAfter(const std::vector<BodyFile>& files, int64_t since, bool temp) {
  int n = 0;
  for (const BodyFile& f : files) n += f.temp() == temp && f.mtime_ns > since;
  return n;
}

// How many of `files` are tmp-* files.
int CountTemp(const std::vector<BodyFile>& files) { return CountWrittenAfter(files, -1, true); }

// The --json records a fetch wrote to `path` (lines that are not JSON objects are skipped).
std::vector<nlohmann::json> ReadRecords(const std::string& path) {
  std::vector<nlohmann::json> records;
  std::istringstream lines(ReadFile(path));
  std::string line;
  while (std::getline(lines, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) records.push_back(std::move(j));
  }
  return records;
}

// "/big/N.bin" for a key "http://127.0.0.1:P/big/N.bin?...".
std::string OriginPath(const std::string& key) {
  size_t start = key.find("/big/");
  if (start == std::string::npos) return "";
  std::string path = key.substr(start);
  return path.substr(0, path.find('?'));
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
  const std::string bodies = profile + "/cache/bodies";

  auto start = std::chrono::steady_clock::now();
  std::mt19937 rng(kSeed);
  std::uniform_int_distribution<int> extra_delay_ms(0, 50);
  int killed_mid_write = 0;  // a tmp-* file existed at the moment of the kill
  int killed_other = 0;      // killed between writes (e.g. right after a rename)
  // The URLs of rounds that finished on their own: all stored, and listed afterwards (no later
  // run, kill or inspection may lose them).
  std::set<std::string> completed;
  for (int round = 0; round < kRounds; ++round) {
    // New query strings each round: new keys, so every round writes (a hit writes nothing).
    std::vector<std::string> urls;
    for (size_t i = 0; i < std::size(kSizes); ++i) {
      urls.push_back(
          nginx.HttpUrl("/big/" + std::to_string(i) + ".bin?round=" + std::to_string(round)));
    }
    std::vector<std::string> argv = {NetstackBinary(), "fetch", "--json",     "--profile", profile,
                                     "--cache-size",   "2G",    "--parallel", "4"};
    argv.insert(argv.end(), urls.begin(), urls.end());
    const std::string out_path = dir.Join("round" + std::to_string(round) + ".out");
    const std::string err_path = dir.Join("round" + std::to_string(round) + ".err");
    INFO("round " << round);
    ChildProcess child;
    std::string error;
    REQUIRE(child.Start(argv, out_path, err_path, &error));

    // Wait for progress: odd rounds for a body streaming to a tmp-* file, even rounds for one of
    // this round's bodies renamed into place (the larger ones then still stream, and the kill
    // may fall between the rename and the index commit). Round 0 waits for the exit.
    const int64_t since = LastWrite(ListBodies(bodies));
    const auto deadline = std::chrono::steady_clock::now() + kProgressBound;
    bool running = true;
    bool progressed = false;
    while (round > 0 && !(progressed || std::chrono::steady_clock::now() > deadline)) {
      running = child.IsRunning();
      if (!running) break;
      progressed = CountWrittenAfter(ListBodies(bodies), since, /*temp=*/round % 2 == 1) > 0;
      if (!progressed) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (round > 0 && running && !progressed) {
      child.Stop(SIGKILL, std::chrono::milliseconds(0));
      FAIL("round " << round << ": no cache body write seen in " << bodies << " within "
                    << kProgressBound.count() << " s; stderr: " << ReadFile(err_path));
    }
    if (progressed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(extra_delay_ms(rng)));
      running = child.IsRunning();
    }
    if (round > 0 && running) {
      bool writing = CountWrittenAfter(ListBodies(bodies), since, /*temp=*/true) > 0;
      child.Stop(SIGKILL, std::chrono::milliseconds(0));
      ++(writing ? killed_mid_write : killed_other);
      continue;
    }
    if (round == 0) {
      const auto bound = std::chrono::steady_clock::now() + std::chrono::seconds(120);
      while (child.IsRunning() && std::chrono::steady_clock::now() < bound)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      REQUIRE_FALSE(child.IsRunning());
    }
    // Finished on its own: every URL fetched from the network and stored.
    INFO("stderr: " << ReadFile(err_path));
    std::vector<nlohmann::json> records = ReadRecords(out_path);
    REQUIRE(records.size() == urls.size());
    for (const nlohmann::json& rec : records) {
      INFO(rec.dump());
      CHECK(Disposition(rec) == "miss");
      CHECK(JsonInt(rec, "status") == 200);
    }
    completed.insert(urls.begin(), urls.end());
  }
  const int leftover_temp = CountTemp(ListBodies(bodies));
  std::printf(
      "crash test: %d rounds killed mid-write, %d killed between writes, %zu of %d completed "
      "(%d tmp-* left; %.1f s)\n",
      killed_mid_write, killed_other, completed.size() / std::size(kSizes), kRounds, leftover_temp,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  // The point of the test: at least one kill landed while a body file was being written.
  CHECK(killed_mid_write > 0);

  // The next open (`cache ls`) lists every completed entry and removes what the kills left.
  NetstackRun ls = RunCache({"ls", "--json"}, profile);
  INFO(ls.Describe());
  REQUIRE(ls.exit_code() == 0);
  CHECK_FALSE(ls.process.HasSanitizerReport());
  REQUIRE(!ls.records.empty());
  std::printf("crash test: %zu entries survived\n", ls.records.size());
  std::set<std::string> listed;
  for (const nlohmann::json& e : ls.records) listed.insert(JsonString(e, "key"));
  REQUIRE(listed.size() == ls.records.size());
  for (const std::string& url : completed) {
    INFO("stored by a run that finished: " << url);
    CHECK(listed.count(url) == 1);
  }
  {
    // No tmp-* file survives the open, and no renamed body without an index row: every body
    // here (over 16 KiB) has exactly one file, so files and listed entries match one to one.
    std::vector<BodyFile> after_open = ListBodies(bodies);
    CHECK(CountTemp(after_open) == 0);
    CHECK(after_open.size() == listed.size());
  }

  // Every listed entry is served from the cache, identical to the file nginx serves.
  std::vector<std::string> args = {"--cache-size", "2G"};
  std::vector<std::string> keys(listed.begin(), listed.end());
  std::map<std::string, std::string> out_files;
  for (size_t i = 0; i < keys.size(); ++i) {
    out_files[keys[i]] = dir.Join("out" + std::to_string(i));
    args.push_back("-o");
    args.push_back(out_files[keys[i]]);
    args.push_back(keys[i]);
  }
  NetstackRun check = FetchWithProfile(profile, args);
  CHECK_FETCH_OK(check, keys.size());
  CHECK_FALSE(check.process.HasSanitizerReport());
  std::set<std::string> checked;
  for (const nlohmann::json& rec : check.records) {
    std::string key = JsonString(rec, "url");
    INFO(key);
    REQUIRE(out_files.count(key) == 1);
    checked.insert(key);
    std::string disposition = Disposition(rec);
    CHECK((disposition == "hit" || disposition == "revalidated"));
    std::string body = ReadFile(out_files[key]);
    std::string origin = ReadFile(nginx.DocPath(OriginPath(key)));
    REQUIRE(!origin.empty());
    CHECK(body.size() == origin.size());
    CHECK(body == origin);  // no corrupt entry was served
    // Delete as we go: the outputs would otherwise hold several hundred MiB until the end.
    std::remove(out_files[key].c_str());
  }
  CHECK(checked.size() == keys.size());
  CHECK(CountTemp(ListBodies(bodies)) == 0);

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
  CHECK(CountTemp(ListBodies(bodies)) == 0);
}

}  // namespace
}  // namespace netstack::test
