// PredictorStore: rows round-trip through sqlite on the store's thread, a save replaces the
// policy's rows, bounds hold, a file that is not a database is reported and left untouched, and
// Save's callback comes back through the poster (never inside Save).
#include "predictor/predictor_store.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "net/base/net_error.h"
#include "predictor/chrome_policy.h"
#include "predictor/predictor_config.h"
#include "tests/predictor/policy_test_util.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_cross_thread_poster.h"

namespace netstack {
namespace {

using namespace policy_test;

using test::TempDir;
using test::TestCrossThreadPoster;

std::vector<PredictorRow> SomeRows(int n, const std::string& tag) {
  std::vector<PredictorRow> rows;
  for (int i = 0; i < n; ++i) {
    rows.push_back({"t",
                    tag + std::to_string(i),
                    i % 2 ? "sub" : "",
                    {{"v", i * 0.1}, {"name", tag}, {"list", {1, 2, i}}}});
  }
  return rows;
}

// Saves and waits for the callback; returns its result.
int SaveAndWait(PredictorStore& store, TestCrossThreadPoster& poster, const std::string& policy,
                std::vector<PredictorRow> rows) {
  bool called = false;
  int result = 1;
  store.Save(policy, std::move(rows), &poster, [&](int rv) {
    called = true;
    result = rv;
  });
  REQUIRE(poster.RunUntil([&called] { return called; }));
  return result;
}

TEST_CASE("store: rows round-trip, per policy", "[predictor]") {
  TempDir dir;
  TestCrossThreadPoster poster;
  std::string error;
  {
    auto store = PredictorStore::Open(dir.Join("predictor.db"), &error);
    REQUIRE(store);
    CHECK(SaveAndWait(*store, poster, "chrome", SomeRows(5, "c")) == OK);
    CHECK(SaveAndWait(*store, poster, "learned", SomeRows(3, "l")) == OK);
  }
  auto store = PredictorStore::Open(dir.Join("predictor.db"), &error);
  REQUIRE(store);
  std::vector<PredictorRow> rows;
  size_t skipped = 9;
  REQUIRE(store->Load("chrome", &rows, &skipped, &error));
  CHECK(skipped == 0);
  REQUIRE(rows.size() == 5);
  auto expected = SomeRows(5, "c");
  for (const auto& want : expected) {
    bool found = false;
    for (const auto& got : rows) {
      if (got.table == want.table && got.key == want.key && got.subkey == want.subkey) {
        found = true;
        CHECK(got.data == want.data);
      }
    }
    CHECK(found);
  }
  rows.clear();
  REQUIRE(store->Load("learned", &rows, &skipped, &error));
  CHECK(rows.size() == 3);
}

TEST_CASE("store: a policy's tables survive a restart and predict the same", "[predictor]") {
  TempDir dir;
  TestCrossThreadPoster poster;
  std::string error;
  PredictorConfig config;
  ChromePolicy original(config);
  for (int i = 0; i < 3; ++i) {
    LoadPage(original, U("https://a.test/"), {{O("https://cdn.test/"), 2}}, At(i));
  }
  {
    auto store = PredictorStore::Open(dir.Join("predictor.db"), &error);
    REQUIRE(store);
    CHECK(SaveAndWait(*store, poster, "chrome", original.SaveRows()) == OK);
  }
  auto store = PredictorStore::Open(dir.Join("predictor.db"), &error);
  REQUIRE(store);
  std::vector<PredictorRow> rows;
  size_t skipped = 0;
  REQUIRE(store->Load("chrome", &rows, &skipped, &error));
  ChromePolicy loaded(config);
  loaded.LoadRows(rows, At(10), &skipped);
  CHECK(skipped == 0);
  std::vector<Hint> a, b;
  original.OnNavigation(U("https://a.test/"), At(10), &a);
  loaded.OnNavigation(U("https://a.test/"), At(10), &b);
  CHECK(Describe(a) == Describe(b));
  CHECK(PreconnectSockets(b, O("https://cdn.test/")) >= 2);
}

TEST_CASE("store: a save replaces the policy's rows, it does not append", "[predictor]") {
  TempDir dir;
  TestCrossThreadPoster poster;
  std::string error;
  auto store = PredictorStore::Open(dir.Join("predictor.db"), &error);
  REQUIRE(store);
  CHECK(SaveAndWait(*store, poster, "chrome", SomeRows(10, "a")) == OK);
  CHECK(SaveAndWait(*store, poster, "chrome", SomeRows(2, "b")) == OK);
  std::vector<PredictorRow> rows;
  size_t skipped = 0;
  REQUIRE(store->Load("chrome", &rows, &skipped, &error));
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].key.substr(0, 1) == "b");
  CHECK(rows[1].key.substr(0, 1) == "b");
}

TEST_CASE("store: bounds on rows and row size", "[predictor]") {
  TempDir dir;
  TestCrossThreadPoster poster;
  std::string error;
  auto store = PredictorStore::Open(dir.Join("predictor.db"), &error);
  REQUIRE(store);
  std::vector<PredictorRow> rows = SomeRows(3, "ok");
  rows.push_back({"t", "huge", "", {{"blob", std::string(PredictorStore::kMaxRowBytes, 'x')}}});
  CHECK(SaveAndWait(*store, poster, "p", rows) == OK);
  std::vector<PredictorRow> loaded;
  size_t skipped = 0;
  REQUIRE(store->Load("p", &loaded, &skipped, &error));
  CHECK(loaded.size() == 3);  // the oversized row was left out
  // At most kMaxRows rows are written.
  std::vector<PredictorRow> many;
  for (size_t i = 0; i < PredictorStore::kMaxRows + 10; ++i) {
    many.push_back({"t", std::to_string(i), "", 1});
  }
  CHECK(SaveAndWait(*store, poster, "p", std::move(many)) == OK);
  loaded.clear();
  REQUIRE(store->Load("p", &loaded, &skipped, &error));
  CHECK(loaded.size() == PredictorStore::kMaxRows);
}

TEST_CASE("store: a file that is not a database is reported and left untouched", "[predictor]") {
  TempDir dir;
  const std::string path = dir.Join("predictor.db");
  std::string garbage(8192, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>('a' + i % 26);
  std::ofstream(path, std::ios::binary) << garbage;
  std::string error;
  auto store = PredictorStore::Open(path, &error);
  CHECK_FALSE(store);
  CHECK(error.find(path) != std::string::npos);
  CHECK(error.find("not a database") != std::string::npos);
  CHECK(error.find('\n') == std::string::npos);
  std::stringstream content;
  content << std::ifstream(path, std::ios::binary).rdbuf();
  CHECK(content.str() == garbage);
  CHECK_FALSE(std::filesystem::exists(path + "-wal"));
  CHECK_FALSE(std::filesystem::exists(path + "-journal"));
}

TEST_CASE("store: a missing directory is a one-line error", "[predictor]") {
  TempDir dir;
  std::string error;
  auto store = PredictorStore::Open(dir.Join("no/such/dir/predictor.db"), &error);
  CHECK_FALSE(store);
  CHECK(error.find("predictor.db") != std::string::npos);
}

TEST_CASE(
    "store: Save's callback is posted, never run inside Save; queued saves finish "
    "before the store closes",
    "[predictor]") {
  TempDir dir;
  TestCrossThreadPoster poster;
  std::string error;
  int calls = 0;
  {
    auto store = PredictorStore::Open(dir.Join("predictor.db"), &error);
    REQUIRE(store);
    for (int i = 0; i < 5; ++i) {
      store->Save("chrome", SomeRows(50, "r" + std::to_string(i)), &poster, [&calls](int rv) {
        CHECK(rv == OK);
        ++calls;
      });
      CHECK(calls == 0);
    }
  }  // the destructor waits for the five saves
  CHECK(poster.queued() == 5);
  CHECK(calls == 0);
  REQUIRE(poster.RunUntil([&calls] { return calls == 5; }));
  CHECK(calls == 5);
  auto store = PredictorStore::Open(dir.Join("predictor.db"), &error);
  REQUIRE(store);
  std::vector<PredictorRow> rows;
  size_t skipped = 0;
  REQUIRE(store->Load("chrome", &rows, &skipped, &error));
  REQUIRE(rows.size() == 50);
  CHECK(rows[0].key.substr(0, 2) == "r4");  // the last save won
}

}  // namespace
}  // namespace netstack
