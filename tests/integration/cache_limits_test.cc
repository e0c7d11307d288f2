// The disk cache's bounds and damage handling seen from outside: eviction keeps the profile under
// --cache-size, and a corrupted database is detected, moved aside with a warning, and the run
// fetches and caches anew.
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include "tests/integration/cache_test_util.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

constexpr int kBlobs = 40;
constexpr size_t kBlobSize = 100 * 1024;

std::string Blob(int i) {
  std::string body(kBlobSize, static_cast<char>('a' + i % 26));
  body.replace(0, std::to_string(i).size(), std::to_string(i));
  return body;
}

// The profile's sqlite database files (by their header), paths relative to DIR/cache.
std::vector<std::string> DatabaseFiles(const std::string& cache_dir) {
  std::vector<std::string> out;
  for (const std::string& f : ListFiles(cache_dir)) {
    std::string data;
    ReadFileToString(cache_dir + "/" + f, &data, 16);
    if (data.rfind("SQLite format 3", 0) == 0) out.push_back(f);
  }
  return out;
}

TEST_CASE("eviction keeps the disk cache under --cache-size", "[cache][eviction]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  std::vector<std::string> urls;
  for (int i = 0; i < kBlobs; ++i) {
    CacheOrigin::Resource r;
    r.headers = {"Cache-Control: max-age=3600", "Content-Type: application/octet-stream"};
    r.body = Blob(i);
    origin.Set("/blob/" + std::to_string(i), r);
  }
  START_ORIGIN(origin);
  for (int i = 0; i < kBlobs; ++i) urls.push_back(origin.Url("/blob/" + std::to_string(i)));
  TempDir dir("cache-evict");
  const std::string profile = dir.Join("profile");
  const int64_t limit = 1024 * 1024;
  std::string eviction = GENERATE(std::string("lru"), std::string("frequency"));
  INFO("--cache-eviction " << eviction);

  // Two processes, so eviction also ranks entries a previous run left.
  std::vector<std::string> first_half(urls.begin(), urls.begin() + kBlobs / 2);
  std::vector<std::string> second_half(urls.begin() + kBlobs / 2, urls.end());
  const std::vector<std::string> flags = {"--cache-size", "1M", "--cache-eviction", eviction};
  CHECK_FETCH_OK(FetchWithProfile(profile, Concat(flags, first_half)), first_half.size());
  CHECK_FETCH_OK(FetchWithProfile(profile, Concat(flags, second_half)), second_half.size());

  NetstackRun stats = RunCache({"stats", "--json"}, profile);
  INFO(stats.Describe());
  REQUIRE(stats.records.size() == 1);
  int64_t total = JsonInt(stats.records[0], "total_bytes");
  int64_t entries = JsonInt(stats.records[0], "entry_count");
  std::printf("eviction %s: %lld entries, %lld bytes under a %lld limit\n", eviction.c_str(),
              static_cast<long long>(entries), static_cast<long long>(total),
              static_cast<long long>(limit));
  CHECK(total <= limit);
  CHECK(entries >= 1);
  CHECK(entries < kBlobs);
  // What ls lists adds up to what stats counts.
  NetstackRun ls = RunCache({"ls", "--json"}, profile);
  int64_t listed = 0;
  for (const nlohmann::json& e : ls.records) listed += JsonInt(e, "size");
  CHECK(static_cast<int64_t>(ls.records.size()) == entries);
  CHECK(listed == total);

  // The most recent entry survived, the oldest did not.
  NetstackRun again = FetchWithProfile(profile, Concat(flags, {urls.back(), urls.front()}));
  CHECK_FETCH_OK(again, 2u);
  CHECK(Disposition(again.records[0]) == "hit");
  CHECK(Disposition(again.records[1]) == "miss");
}

void CorruptDatabase(const std::string& path, bool header) {
  // A run that wrote little leaves its pages in the write-ahead log (cache/README.md, "Crash
  // safety"). A checkpoint, and a plain sqlite connection's close, move them into the database
  // file and remove the log, so the damage below hits the pages the next run reads.
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  CHECK(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr) ==
        SQLITE_OK);
  REQUIRE(sqlite3_close(db) == SQLITE_OK);
  REQUIRE(access((path + "-wal").c_str(), F_OK) != 0);
  std::string data = ReadFile(path);
  REQUIRE(data.size() >= 512);
  uint64_t x = 0x2545F4914F6CDD1DULL;
  // Either the header (the file is no longer a database) or everything past the first page
  // (the schema and the index rows are garbage).
  size_t from = header ? 0 : std::min<size_t>(4096, data.size() / 2);
  size_t to = header ? 100 : data.size();
  for (size_t i = from; i < to; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    data[i] = static_cast<char>(x);
  }
  REQUIRE(WriteStringToFile(path, data));
}

TEST_CASE("a corrupted database: the next run warns, recovers, fetches and caches again",
          "[cache][corrupt]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource small;
  small.headers = {"Cache-Control: max-age=3600"};
  small.body = "small body\n";
  origin.Set("/small", small);
  CacheOrigin::Resource large = small;
  large.body = std::string(60000, 'L');
  origin.Set("/large", large);
  START_ORIGIN(origin);
  TempDir dir("cache-corrupt");
  const std::string profile = dir.Join("profile");
  const std::vector<std::string> urls = {origin.Url("/small"), origin.Url("/large")};
  CHECK_FETCH_OK(FetchWithProfile(profile, urls), 2u);
  NetstackRun hit = FetchWithProfile(profile, urls);
  CHECK_FETCH_OK(hit, 2u);
  CHECK(Disposition(hit.records[0]) == "hit");

  std::vector<std::string> databases = DatabaseFiles(profile + "/cache");
  INFO("cache dir files: " << ListFiles(profile + "/cache").size());
  REQUIRE(databases.size() == 1);
  bool header = GENERATE(true, false);
  INFO((header ? "header" : "pages") << " overwritten in " << databases[0]);
  CorruptDatabase(profile + "/cache/" + databases[0], header);

  NetstackRun recovered = FetchWithProfile(profile, {"-o", dir.Join("large.out"), urls[1]});
  INFO(recovered.Describe());
  CHECK(recovered.exit_code() == 0);
  CHECK_FALSE(recovered.process.HasSanitizerReport());
  REQUIRE(recovered.records.size() == 1);
  CHECK(JsonInt(recovered.records[0], "status") == 200);
  CHECK(Disposition(recovered.records[0]) == "miss");
  CHECK(ReadFile(dir.Join("large.out")) == large.body);
  std::vector<std::string> err = recovered.StderrLines();
  REQUIRE(err.size() == 1);
  CHECK(err[0].rfind("netstack: warning: ", 0) == 0);
  // The damaged database was moved aside (docs/cache.md), not deleted.
  int moved_aside = 0;
  for (const std::string& f : ListFiles(profile + "/cache"))
    moved_aside += f.rfind("index.db.corrupt-", 0) == 0 ? 1 : 0;
  CHECK(moved_aside >= 1);

  // Cached anew: the next process is served from disk, without a warning.
  NetstackRun after = FetchWithProfile(profile, {urls[1]});
  CHECK_FETCH_OK(after, 1u);
  CHECK(Disposition(after.records[0]) == "hit");
  CHECK(after.process.err.empty());
  CHECK(origin.Count("/large") == 2);
  // `cache ls` on the recovered profile works and lists it.
  NetstackRun ls = RunCache({"ls", "--json"}, profile);
  CHECK(ls.exit_code() == 0);
  CHECK(ls.records.size() == 1);
}

TEST_CASE("cache ls on a corrupted database warns instead of crashing", "[cache][corrupt]") {
  REQUIRE_NETSTACK_BINARY();
  CacheOrigin origin;
  CacheOrigin::Resource r;
  r.headers = {"Cache-Control: max-age=3600"};
  r.body = "x\n";
  origin.Set("/x", r);
  START_ORIGIN(origin);
  TempDir dir("cache-corrupt-ls");
  const std::string profile = dir.Join("profile");
  CHECK_FETCH_OK(FetchWithProfile(profile, {origin.Url("/x")}), 1u);
  std::vector<std::string> databases = DatabaseFiles(profile + "/cache");
  REQUIRE(databases.size() == 1);
  CorruptDatabase(profile + "/cache/" + databases[0], true);
  NetstackRun ls = RunCache({"ls"}, profile);
  INFO(ls.Describe());
  CHECK(ls.process.term_signal == 0);
  CHECK_FALSE(ls.process.HasSanitizerReport());
  CHECK(ls.exit_code() == 0);
  REQUIRE_FALSE(ls.StderrLines().empty());
  CHECK(ls.StderrLines()[0].rfind("netstack: warning: ", 0) == 0);
  CHECK(ls.other_lines.empty());
}

}  // namespace
}  // namespace netstack::test
