// libFuzzer target for the disk cache's index rows (cache/sqlite_store.h), as a damaged or
// hostile index.db holds them: the input's rows are inserted with plain SQL into a fresh
// database, whatever their types, and the store loads the index from it, as at start-up; then
// the in-memory index (cache/cache_index.h) takes the entries and evicts under a small bound.
// Input: one row per line, tab-separated: id, key, body_size, headers_size, body_crc32,
// created, last_used, use_count, body_file, headers. A field that is a decimal integer is bound
// as one, "NULL" as NULL, anything else as text (headers as a blob).
// Promises checked: the load succeeds; every entry loaded keeps the row bounds (positive id,
// non-empty key, sizes within the stored limits, a body file named after the id) and reads
// back; malformed rows are removed, so a second load finds the same entries and no warning;
// the index never holds more than its bound after eviction and keeps its totals exact.
#include <sqlite3.h>
#include <unistd.h>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cache/backend.h"
#include "cache/cache_index.h"
#include "cache/sqlite_store.h"
#include "net/base/clock.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

constexpr int kColumns = 10;
constexpr size_t kMaxRows = 64;

// A scratch directory of this process (removed at exit).
const std::filesystem::path& ScratchDir() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::filesystem::path d = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
                              ("fuzz_cache_index_rows." + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] { std::filesystem::remove_all(ScratchDir()); });
    return d;
  }();
  return dir;
}

void Bind(sqlite3_stmt* stmt, int index, std::string_view field, bool blob) {
  int64_t number = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), number);
  if (!field.empty() && ec == std::errc() && end == field.data() + field.size()) {
    sqlite3_bind_int64(stmt, index, number);
  } else if (field == "NULL") {
    sqlite3_bind_null(stmt, index);
  } else if (blob) {
    sqlite3_bind_blob(stmt, index, field.data(), static_cast<int>(field.size()), SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_text(stmt, index, field.data(), static_cast<int>(field.size()), SQLITE_TRANSIENT);
  }
}

// Inserts the input's rows into the (schema-only) database at `path`.
void InsertRows(const std::string& path, std::string_view text) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) __builtin_trap();
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db,
                         "INSERT INTO entries(id, key, body_size, headers_size, body_crc32, "
                         "created, last_used, use_count, body_file, headers) "
                         "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         -1, &stmt, nullptr) != SQLITE_OK) {
    __builtin_trap();
  }
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  for (size_t rows = 0; rows < kMaxRows && !text.empty(); ++rows) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    for (int i = 0; i < kColumns; ++i) {
      size_t tab = i + 1 < kColumns ? line.find('\t') : std::string_view::npos;
      Bind(stmt, i + 1, line.substr(0, tab), i + 1 == kColumns);
      line = tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
    }
    sqlite3_step(stmt);  // a constraint (NOT NULL, UNIQUE) may refuse the row: fine
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  }
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;
  const std::filesystem::path& dir = ScratchDir();
  for (const auto& item : std::filesystem::directory_iterator(dir)) {
    std::filesystem::remove_all(item.path());
  }
  const std::string path = (dir / "index.db").string();
  const netstack::Time now = netstack::TimeFromUnixMicros(int64_t{1'700'000'000} * 1'000'000);
  std::vector<netstack::IndexEntry> entries;
  std::string warning, error;
  {
    netstack::SqliteStore store;  // creates the schema
    FUZZ_CHECK(store.OpenAndLoad(path, now, &entries, &warning, &error) == netstack::OK);
    FUZZ_CHECK(entries.empty());
  }
  InsertRows(path, std::string_view(reinterpret_cast<const char*>(data), size));

  netstack::SqliteStore store;
  entries.clear();
  warning.clear();
  FUZZ_CHECK(store.OpenAndLoad(path, now, &entries, &warning, &error) == netstack::OK);
  FUZZ_CHECK(warning.find('\n') == std::string::npos);
  for (const netstack::IndexEntry& entry : entries) {
    FUZZ_CHECK(entry.id > 0);
    FUZZ_CHECK(!entry.info.key.empty());
    FUZZ_CHECK(entry.info.body_size >= 0 && entry.info.headers_size >= 0);
    netstack::StoredEntry row;
    FUZZ_CHECK(store.Read(static_cast<int64_t>(entry.id), &row) == SQLITE_ROW);
    FUZZ_CHECK(row.key == entry.info.key);
  }
  {
    netstack::SqliteStore again;
    std::vector<netstack::IndexEntry> reloaded;
    std::string warning2;
    FUZZ_CHECK(again.OpenAndLoad(path, now, &reloaded, &warning2, &error) == netstack::OK);
    FUZZ_CHECK(reloaded.size() == entries.size());
    FUZZ_CHECK(warning2.empty());
  }

  netstack::CacheConfig config;
  config.max_bytes = 64 * 1024;
  netstack::CacheIndex index(config);
  int64_t total = 0;
  for (const netstack::IndexEntry& entry : entries) {
    netstack::IndexEntry replaced;
    bool was_there = index.Insert(entry, &replaced);
    total += entry.info.total_size() - (was_there ? replaced.info.total_size() : 0);
    FUZZ_CHECK(index.total_bytes() == total);
  }
  std::vector<netstack::IndexEntry> evicted = index.Evict(now);
  for (const auto& entry : evicted) total -= entry.info.total_size();
  FUZZ_CHECK(index.total_bytes() == total);
  if (!evicted.empty()) FUZZ_CHECK(index.total_bytes() <= index.low_watermark());
  FUZZ_CHECK(index.Enumerate().size() == static_cast<size_t>(index.entry_count()));
  return 0;
}
