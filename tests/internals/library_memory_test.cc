// The library allocation counters (tools/internals/library_memory.h). This program links no
// other test: CTest runs each test case in a process of its own, and each case installs the
// counters before anything touches OpenSSL, libuv, c-ares or sqlite, so every hook must take.
#include "tools/internals/library_memory.h"

#include <ares.h>
#include <openssl/ssl.h>
#include <sqlite3.h>
#include <uv.h>

#include <catch2/catch.hpp>
#include <vector>

namespace netstack {
namespace {

TEST_CASE("library counters: every hook takes when installed first", "[memory]") {
  REQUIRE(InstallLibraryAllocationCounters());
  CHECK(InstallLibraryAllocationCounters());  // a second call changes nothing
  const LibraryMemory memory = GetLibraryMemory();
  CHECK(memory.openssl >= 0);
  CHECK(memory.libuv >= 0);
  CHECK(memory.cares >= 0);
  CHECK(memory.sqlite >= 0);
}

TEST_CASE("library counters: SSL_CTX objects raise the OpenSSL count, freeing lowers it",
          "[memory]") {
  REQUIRE(InstallLibraryAllocationCounters());
  // The first context initialises OpenSSL's globals (kept until exit).
  SSL_CTX* warm = SSL_CTX_new(TLS_client_method());
  REQUIRE(warm);
  const int64_t base = GetLibraryMemory().openssl;
  REQUIRE(base > 0);
  std::vector<SSL_CTX*> contexts;
  for (int i = 0; i < 10; ++i) contexts.push_back(SSL_CTX_new(TLS_client_method()));
  const int64_t with = GetLibraryMemory().openssl;
  CHECK(with > base + 10 * 256);  // an SSL_CTX is several hundred bytes at least
  for (SSL_CTX* ctx : contexts) SSL_CTX_free(ctx);
  const int64_t after = GetLibraryMemory().openssl;
  CHECK(after < with);
  CHECK(after <= base + (with - base) / 10);  // (nearly) all of it came back
  SSL_CTX_free(warm);
}

TEST_CASE("library counters: a libuv loop's allocations are counted and given back", "[memory]") {
  REQUIRE(InstallLibraryAllocationCounters());
  const int64_t base = GetLibraryMemory().libuv;
  REQUIRE(base >= 0);
  uv_loop_t loop;
  REQUIRE(uv_loop_init(&loop) == 0);
  const int64_t with = GetLibraryMemory().libuv;
  CHECK(with > base);  // the loop's internal fields are allocated through the hook
  REQUIRE(uv_loop_close(&loop) == 0);
  CHECK(GetLibraryMemory().libuv == base);
}

TEST_CASE("library counters: a c-ares channel is counted and given back", "[memory]") {
  REQUIRE(InstallLibraryAllocationCounters());
  const int64_t base = GetLibraryMemory().cares;
  REQUIRE(base >= 0);
  ares_channel channel = nullptr;
  ares_options options{};
  options.flags = ARES_FLAG_NOCHECKRESP;
  REQUIRE(ares_init_options(&channel, &options, ARES_OPT_FLAGS) == ARES_SUCCESS);
  const int64_t with = GetLibraryMemory().cares;
  CHECK(with > base);
  ares_destroy(channel);
  CHECK(GetLibraryMemory().cares == base);
}

TEST_CASE("library counters: sqlite reports its own memory", "[memory]") {
  REQUIRE(InstallLibraryAllocationCounters());
  const int64_t base = GetLibraryMemory().sqlite;
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(":memory:", &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(randomblob(100000));", nullptr,
                       nullptr, nullptr) == SQLITE_OK);
  CHECK(GetLibraryMemory().sqlite > base + 100000);
  sqlite3_close(db);
  CHECK(GetLibraryMemory().sqlite < base + 100000);
}

}  // namespace
}  // namespace netstack
