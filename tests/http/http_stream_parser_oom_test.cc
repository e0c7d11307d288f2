// HttpStreamParser when memory runs out inside an http-parser callback: the std::bad_alloc
// must not unwind through http-parser's C frames; the parser fails with ERR_OUT_OF_MEMORY.
//
// This program replaces the global operator new so that a test can make every allocation fail
// for the length of one Consume call. It is its own executable so no other test sees that.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <string>

#include "net/base/net_error.h"
#include "net/http/http_stream_parser.h"

namespace {
std::atomic<bool> g_fail_allocations{false};
}  // namespace

// Every unaligned form is replaced, so that each allocation and its release meet the same
// pair (a sanitizer's runtime would otherwise supply the forms left out, and report the mix).
void* operator new(std::size_t size) {
  if (g_fail_allocations.load(std::memory_order_relaxed)) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (g_fail_allocations.load(std::memory_order_relaxed)) return nullptr;
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

using namespace netstack;

namespace {

// Every allocation fails while one of these lives.
class FailAllocations {
 public:
  FailAllocations() { g_fail_allocations = true; }
  ~FailAllocations() { g_fail_allocations = false; }
};

// Feeds `prefix` normally, then `armed` with every allocation failing; returns that result.
int ConsumeWithoutMemory(HttpStreamParser& parser, const std::string& prefix,
                         const std::string& armed) {
  REQUIRE(parser.Consume(prefix.data(), prefix.size()) == OK);
  int rv;
  {
    FailAllocations no_memory;
    rv = parser.Consume(armed.data(), armed.size());
  }
  return rv;
}

void CheckDeadWithOutOfMemory(HttpStreamParser& parser) {
  CHECK(parser.has_error());
  CHECK(parser.error() == ERR_OUT_OF_MEMORY);
  CHECK(parser.Consume("HTTP/1.1 200 OK\r\n", 17) == ERR_OUT_OF_MEMORY);
  CHECK(parser.ConsumeEof() == ERR_OUT_OF_MEMORY);
  CHECK_FALSE(parser.CanReuseConnection());
}

const std::string kLong(40, 'z');  // longer than any small-string buffer: appending allocates

}  // namespace

TEST_CASE("parser oom: the allocation failure is reported, not thrown through C") {
  SECTION("status callback") {
    HttpStreamParser parser({});
    CHECK(ConsumeWithoutMemory(parser, "HTTP/1.1 200 ", kLong + "\r\n") == ERR_OUT_OF_MEMORY);
    CheckDeadWithOutOfMemory(parser);
  }
  SECTION("header field callback") {
    HttpStreamParser parser({});
    CHECK(ConsumeWithoutMemory(parser, "HTTP/1.1 200 OK\r\n", kLong + ": v\r\n") ==
          ERR_OUT_OF_MEMORY);
    CheckDeadWithOutOfMemory(parser);
  }
  SECTION("header value callback") {
    HttpStreamParser parser({});
    CHECK(ConsumeWithoutMemory(parser, "HTTP/1.1 200 OK\r\nX: ", kLong + "\r\n") ==
          ERR_OUT_OF_MEMORY);
    CheckDeadWithOutOfMemory(parser);
  }
  SECTION("headers complete callback") {
    HttpStreamParser parser({});
    CHECK(ConsumeWithoutMemory(parser, "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n", "\r\n") ==
          ERR_OUT_OF_MEMORY);
    CheckDeadWithOutOfMemory(parser);
    CHECK(parser.response_headers() == nullptr);
  }
  SECTION("body callback") {
    HttpStreamParser parser({});
    CHECK(ConsumeWithoutMemory(parser, "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n", kLong) ==
          ERR_OUT_OF_MEMORY);
    CheckDeadWithOutOfMemory(parser);
  }
  SECTION("chunked body callback") {
    HttpStreamParser parser({});
    CHECK(ConsumeWithoutMemory(parser, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                               "28\r\n" + kLong + "\r\n") == ERR_OUT_OF_MEMORY);
    CheckDeadWithOutOfMemory(parser);
  }
}
