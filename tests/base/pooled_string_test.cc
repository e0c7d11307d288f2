#include "net/base/pooled_string.h"

#include <catch2/catch.hpp>
#include <string>
#include <thread>

namespace netstack {
namespace {

using Pool = PooledString<1024, 2>;

TEST_CASE("PooledString gives back a kept buffer's capacity, emptied", "[base]") {
  std::string s = Pool::Take();
  CHECK(s.empty());
  s.assign(600, 'x');
  const char* buffer = s.data();
  const size_t capacity = s.capacity();
  Pool::Give(std::move(s));
  CHECK(s.empty());  // NOLINT(bugprone-use-after-move): Give leaves it empty
  CHECK(Pool::PooledForTesting() == 1);
  std::string again = Pool::Take();
  CHECK(again.empty());
  CHECK(again.capacity() == capacity);
  CHECK(again.data() == buffer);
  CHECK(Pool::PooledForTesting() == 0);
}

TEST_CASE("PooledString keeps at most its count, and no buffer over its capacity bound", "[base]") {
  for (int i = 0; i < 3; ++i) {
    std::string s(100, 'a');
    Pool::Give(std::move(s));
  }
  CHECK(Pool::PooledForTesting() == 2);  // the third was freed
  std::string big(4096, 'b');
  Pool::Give(std::move(big));  // over 1024: freed, not kept
  CHECK(Pool::PooledForTesting() == 2);
  std::string small = "short";  // no heap buffer: nothing to keep
  Pool::Give(std::move(small));
  CHECK(Pool::PooledForTesting() == 2);
  CHECK(Pool::Take().capacity() >= 100);
  CHECK(Pool::Take().capacity() >= 100);
  CHECK(Pool::Take().capacity() <= 15);  // empty list: a new empty string
}

TEST_CASE("PooledString's list is per thread", "[base]") {
  std::string s(200, 'c');
  Pool::Give(std::move(s));
  const size_t here = Pool::PooledForTesting();
  size_t there = 99;
  std::thread([&] { there = Pool::PooledForTesting(); }).join();
  CHECK(here >= 1);
  CHECK(there == 0);
  while (Pool::PooledForTesting() > 0) Pool::Take();
}

}  // namespace
}  // namespace netstack
