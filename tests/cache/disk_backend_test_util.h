// Helpers shared by the disk backend's tests (disk_backend_test.cc: behaviour;
// disk_backend_damage_test.cc: damage and recovery).
#ifndef TESTS_CACHE_DISK_BACKEND_TEST_UTIL_H_
#define TESTS_CACHE_DISK_BACKEND_TEST_UTIL_H_

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "tests/cache/disk_test_util.h"

namespace netstack {

inline CacheConfig Config() {
  CacheConfig config;
  config.max_bytes = 8 * 1024 * 1024;
  return config;
}

inline std::string BodiesDir(const DiskHarness& h) { return h.dir() + "/cache/bodies"; }
inline std::string DbPath(const DiskHarness& h) { return h.dir() + "/cache/index.db"; }

inline int64_t IdOf(DiskHarness& h, const std::string& key) {
  // Body files are named by entry id; the only file body in these tests is the one asked for.
  std::vector<std::string> files = ListDir(BodiesDir(h));
  REQUIRE(files.size() == 1);
  return std::stoll(files[0], nullptr, 16);
}

// Runs SQL against the closed cache's database (to damage a row the way a bad disk would).
inline void ExecSql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(db_path.c_str(), &db) == SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  INFO((error ? error : ""));
  sqlite3_free(error);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

// Reads `len` bytes at `offset`, waiting if needed; counts the reads that had to wait.
inline int ReadAt(DiskHarness& h, CacheEntry& entry, int64_t offset, char* buf, int len,
                  int* trips) {
  std::optional<int> result;
  int rv = entry.ReadBody(offset, buf, len, [&](int r) { result = r; });
  if (rv != ERR_IO_PENDING) return rv;
  ++*trips;
  if (!h.RunUntil([&] { return result.has_value(); })) return ERR_TIMED_OUT;
  return *result;
}

}  // namespace netstack

#endif  // TESTS_CACHE_DISK_BACKEND_TEST_UTIL_H_
