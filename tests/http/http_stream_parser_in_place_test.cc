// HttpStreamParser::ConsumeInPlace: body bytes the caller already holds are counted, not
// copied, only when every byte of the call is body; anything else behaves as Consume.
#include <catch2/catch.hpp>
#include <string>

#include "net/base/net_error.h"
#include "net/http/http_stream_parser.h"

using namespace netstack;

namespace {

constexpr char kHead[] = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n";

// Feeds kHead with Consume, so the next call starts inside the body.
void FeedHead(HttpStreamParser* parser) {
  const std::string head = kHead;
  REQUIRE(parser->Consume(head.data(), head.size()) == OK);
  REQUIRE(parser->headers_complete());
  REQUIRE(parser->buffered_body_bytes() == 0);
}

}  // namespace

TEST_CASE("ConsumeInPlace: an all-body read is counted, not buffered", "[http][parser]") {
  HttpStreamParser parser({});
  FeedHead(&parser);
  const std::string first = "abcd";
  bool all_body = false;
  REQUIRE(parser.ConsumeInPlace(first.data(), first.size(), &all_body) == OK);
  CHECK(all_body);
  CHECK(parser.buffered_body_bytes() == 0);
  CHECK(parser.body_bytes_received() == 4);
  CHECK_FALSE(parser.message_complete());
  const std::string rest = "efghij";
  REQUIRE(parser.ConsumeInPlace(rest.data(), rest.size(), &all_body) == OK);
  CHECK(all_body);
  CHECK(parser.message_complete());
  CHECK(parser.body_bytes_received() == 10);
  CHECK(parser.bytes_received() == static_cast<int64_t>(sizeof(kHead) - 1 + 10));
  CHECK(parser.leftover_bytes() == 0);
  CHECK(parser.CanReuseConnection());
}

TEST_CASE("ConsumeInPlace: bytes after the body make it buffer, in order", "[http][parser]") {
  HttpStreamParser parser({});
  FeedHead(&parser);
  const std::string data = "0123456789EXTRA";
  bool all_body = true;
  REQUIRE(parser.ConsumeInPlace(data.data(), data.size(), &all_body) == OK);
  CHECK_FALSE(all_body);
  CHECK(std::string(parser.PeekBody()) == "0123456789");
  CHECK(parser.leftover_bytes() == 5);
  CHECK_FALSE(parser.CanReuseConnection());
}

TEST_CASE("ConsumeInPlace: headers in the same read are buffered as Consume does",
          "[http][parser]") {
  HttpStreamParser parser({});
  const std::string data = std::string(kHead) + "0123456789";
  bool all_body = true;
  REQUIRE(parser.ConsumeInPlace(data.data(), data.size(), &all_body) == OK);
  CHECK_FALSE(all_body);
  CHECK(parser.message_complete());
  CHECK(std::string(parser.PeekBody()) == "0123456789");
}

TEST_CASE("ConsumeInPlace: chunked framing between body bytes buffers them all", "[http][parser]") {
  HttpStreamParser parser({});
  const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  REQUIRE(parser.Consume(head.data(), head.size()) == OK);
  // The head's final LF may be held back as framing; start the chunk stream cleanly.
  const std::string chunks = "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n";
  bool all_body = true;
  REQUIRE(parser.ConsumeInPlace(chunks.data(), chunks.size(), &all_body) == OK);
  CHECK_FALSE(all_body);
  CHECK(parser.message_complete());
  CHECK(std::string(parser.PeekBody()) == "abcdefg");
  CHECK(parser.body_bytes_received() == 7);
}

TEST_CASE("ConsumeInPlace: with body already buffered it is plain Consume", "[http][parser]") {
  HttpStreamParser parser({});
  const std::string data = std::string(kHead) + "0123";
  REQUIRE(parser.Consume(data.data(), data.size()) == OK);
  REQUIRE(parser.buffered_body_bytes() == 4);
  const std::string rest = "456789";
  bool all_body = true;
  REQUIRE(parser.ConsumeInPlace(rest.data(), rest.size(), &all_body) == OK);
  CHECK_FALSE(all_body);
  CHECK(std::string(parser.PeekBody()) == "0123456789");
}

TEST_CASE("ConsumeInPlace: a parse error is reported as by Consume", "[http][parser]") {
  HttpStreamParser parser({});
  const std::string junk = "NOT HTTP AT ALL\r\n\r\n";
  bool all_body = true;
  int rv = parser.ConsumeInPlace(junk.data(), junk.size(), &all_body);
  CHECK(rv == ERR_INVALID_HTTP_RESPONSE);
  CHECK_FALSE(all_body);
  CHECK(parser.has_error());
  const std::string more = "x";
  CHECK(parser.ConsumeInPlace(more.data(), more.size(), &all_body) == rv);
}
