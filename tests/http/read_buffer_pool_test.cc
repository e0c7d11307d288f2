// ReadBuffer: buffers go back to a bounded per-thread free list and are handed out again; the
// list never holds more than kMaxPooled, and Release() returns a buffer early.

#include "net/http/read_buffer_pool.h"

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

namespace netstack {
namespace {

TEST_CASE("ReadBuffer is empty until Allocate", "[read_buffer_pool]") {
  ReadBuffer buffer;
  CHECK(!buffer);
  CHECK(buffer.data() == nullptr);
  buffer.Allocate();
  REQUIRE(buffer);
  char* data = buffer.data();
  data[0] = 'a';
  data[ReadBuffer::kBytes - 1] = 'z';  // the whole size is usable
  buffer.Allocate();                   // no-op: keeps the same buffer
  CHECK(buffer.data() == data);
}

TEST_CASE("ReadBuffer reuses a released buffer", "[read_buffer_pool]") {
  char* first = nullptr;
  {
    ReadBuffer buffer;
    buffer.Allocate();
    first = buffer.data();
  }
  const size_t pooled = ReadBuffer::PooledForTesting();
  CHECK(pooled >= 1);
  ReadBuffer again;
  again.Allocate();
  CHECK(again.data() == first);  // the most recently returned buffer comes back first
  CHECK(ReadBuffer::PooledForTesting() == pooled - 1);
  again.Release();
  CHECK(!again);
  CHECK(ReadBuffer::PooledForTesting() == pooled);
  again.Release();  // no-op when empty
  CHECK(ReadBuffer::PooledForTesting() == pooled);
}

TEST_CASE("ReadBuffer keeps at most kMaxPooled free buffers", "[read_buffer_pool]") {
  {
    std::vector<std::unique_ptr<ReadBuffer>> buffers;
    for (size_t i = 0; i < ReadBuffer::kMaxPooled + 8; ++i) {
      buffers.push_back(std::make_unique<ReadBuffer>());
      buffers.back()->Allocate();
    }
    CHECK(ReadBuffer::PooledForTesting() == 0);  // every pooled buffer was handed out
  }
  // All of them were returned: the extra 8 were freed, not kept.
  CHECK(ReadBuffer::PooledForTesting() == ReadBuffer::kMaxPooled);
}

}  // namespace
}  // namespace netstack
