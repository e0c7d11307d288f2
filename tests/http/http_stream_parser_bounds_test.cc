// HttpStreamParser's bounds on what is neither header nor body: chunked framing (size lines,
// extensions, leading zeros) and the trailer section, and how a failing callback ends parsing.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "net/http/http_stream_parser.h"

using namespace netstack;

namespace {

constexpr char kChunkedHead[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";

struct Outcome {
  int rv = OK;
  bool complete = false;
  std::string body;
  int64_t bytes_received = 0;
  size_t header_bytes = 0;
  int64_t framing_bytes = 0;
  std::string error_message;
};

// Feeds `response` in pieces of `piece` bytes (draining the body), stopping at the first error.
Outcome Feed(const std::string& response, size_t piece, HttpStreamParser::Options options = {}) {
  HttpStreamParser parser(options);
  Outcome out;
  for (size_t at = 0; at < response.size() && out.rv == OK; at += piece) {
    size_t n = std::min(piece, response.size() - at);
    out.rv = parser.Consume(response.data() + at, n);
    std::string_view body = parser.PeekBody();
    out.body.append(body);
    parser.ConsumeBody(body.size());
  }
  out.complete = parser.message_complete();
  out.bytes_received = parser.bytes_received();
  out.header_bytes = parser.header_bytes();
  out.framing_bytes = parser.framing_bytes();
  out.error_message = parser.error_message();
  return out;
}

// The same response whole, in 1000-byte pieces and one byte at a time must agree.
std::vector<Outcome> FeedAllWays(const std::string& response,
                                 HttpStreamParser::Options options = {}) {
  return {Feed(response, response.size(), options), Feed(response, 1000, options),
          Feed(response, 1, options)};
}

}  // namespace

TEST_CASE("parser bounds: one chunk framing line is at most 16 KiB") {
  const size_t limit = HttpStreamParser::kMaxChunkLineBytes;
  // "1;" + extension + "\r\n": the size line is exactly `line` bytes.
  auto with_extension = [](size_t line) {
    return std::string(kChunkedHead) + "1;" + std::string(line - 4, 'e') + "\r\nX\r\n0\r\n\r\n";
  };
  for (const Outcome& ok : FeedAllWays(with_extension(limit - 1))) {
    // The line plus the header block's final LF (counted as framing) is exactly the limit.
    CHECK(ok.rv == OK);
    CHECK(ok.complete);
    CHECK(ok.body == "X");
  }
  for (const Outcome& bad : FeedAllWays(with_extension(limit))) {
    CHECK(bad.rv == ERR_INVALID_CHUNKED_ENCODING);
    CHECK_THAT(bad.error_message, Catch::Contains("framing line"));
  }

  // Leading zeros are framing too: http-parser accepts any number of them.
  std::string zeros = std::string(kChunkedHead) + std::string(limit, '0') + "1\r\nX\r\n0\r\n\r\n";
  for (const Outcome& bad : FeedAllWays(zeros)) CHECK(bad.rv == ERR_INVALID_CHUNKED_ENCODING);
  std::string some_zeros = std::string(kChunkedHead) + "0000000000000001\r\nX\r\n0\r\n\r\n";
  CHECK(Feed(some_zeros, 1).rv == OK);

  // A server that never ends its first size line cannot keep the response alive forever with
  // zero body bytes: the parser fails within a bounded number of bytes.
  HttpStreamParser parser({});
  REQUIRE(parser.Consume(kChunkedHead, sizeof(kChunkedHead) - 1) == OK);
  REQUIRE(parser.Consume("5;", 2) == OK);
  std::string piece(1024, 'x');
  int rv = OK;
  int pieces = 0;
  while (rv == OK && pieces < 1000) {
    rv = parser.Consume(piece.data(), piece.size());
    ++pieces;
  }
  CHECK(rv == ERR_INVALID_CHUNKED_ENCODING);
  CHECK(pieces == 16);
  CHECK(parser.body_bytes_received() == 0);
  CHECK(parser.Consume("x", 1) == ERR_INVALID_CHUNKED_ENCODING);  // sticky
}

TEST_CASE("parser bounds: total framing is bounded by the body size") {
  // 1-byte chunks with 16-digit sizes: 20 framing bytes per body byte, always accepted.
  std::string plain = kChunkedHead;
  for (int i = 0; i < 5000; ++i) plain += "0000000000000001\r\nX\r\n";
  plain += "0\r\n\r\n";
  for (const Outcome& ok : FeedAllWays(plain)) {
    CHECK(ok.rv == OK);
    CHECK(ok.complete);
    CHECK(ok.body == std::string(5000, 'X'));
    CHECK(ok.framing_bytes == 1 + 5000 * 20 + 3);
  }

  // Each line below the per-line bound, but 200 framing bytes per body byte: rejected once
  // the framing is over 16 KiB + 32 per body byte.
  std::string padded = kChunkedHead;
  const std::string chunk = "1;" + std::string(195, 'e') + "\r\nX\r\n";
  for (int i = 0; i < 5000; ++i) padded += chunk;
  padded += "0\r\n\r\n";
  for (const Outcome& bad : FeedAllWays(padded)) {
    CHECK(bad.rv == ERR_INVALID_CHUNKED_ENCODING);
    CHECK_THAT(bad.error_message, Catch::Contains("framing bytes for"));
    // Fails at the first chunk line that crosses 16 KiB + 32 * body: after about 98 chunks.
    CHECK(bad.body.size() < 100);
    CHECK(bad.framing_bytes <= HttpStreamParser::kMaxChunkLineBytes +
                                   HttpStreamParser::kMaxFramingBytesPerBodyByte *
                                       static_cast<int64_t>(bad.body.size()) +
                                   static_cast<int64_t>(chunk.size()));
  }
}

TEST_CASE("parser bounds: every byte is header, body or framing") {
  std::string response = std::string(kChunkedHead) + "5;a=b\r\nhello\r\n006\r\n world\r\n0\r\n" +
                         "Trailer-A:   x\r\nTrailer-B: y\r\n\r\n";
  for (const Outcome& o : FeedAllWays(response)) {
    REQUIRE(o.rv == OK);
    CHECK(o.complete);
    CHECK(o.body == "hello world");
    CHECK(o.bytes_received == static_cast<int64_t>(response.size()));
    CHECK(o.bytes_received == static_cast<int64_t>(o.header_bytes) +
                                  static_cast<int64_t>(o.body.size()) + o.framing_bytes);
    // The trailer section (both lines and the final empty line) counts as header bytes.
    CHECK(o.header_bytes == sizeof(kChunkedHead) - 2 + 32);
  }
}

TEST_CASE("parser bounds: the whole trailer section counts toward the header bound") {
  HttpStreamParser::Options small{.max_header_bytes = 200};
  // 47 bytes; 46 count as header bytes (the final LF is counted as framing).
  const std::string head = kChunkedHead;
  // Whitespace around values and short lines are not reported by http-parser's callbacks;
  // they count all the same.
  std::string padded = head + "1\r\nX\r\n0\r\nT:" + std::string(200, ' ') + "x\r\n\r\n";
  for (const Outcome& bad : FeedAllWays(padded, small)) {
    CHECK(bad.rv == ERR_RESPONSE_HEADERS_TOO_BIG);
    CHECK_THAT(bad.error_message, Catch::Contains("trailers"));
  }
  std::string many_lines = head + "1\r\nX\r\n0\r\n";
  for (int i = 0; i < 60; ++i) many_lines += "a:\r\n";
  many_lines += "\r\n";
  for (const Outcome& bad : FeedAllWays(many_lines, small)) {
    CHECK(bad.rv == ERR_RESPONSE_HEADERS_TOO_BIG);
  }
  // Exactly at the bound: 46 header bytes + 154 trailer-section bytes; one more is too many.
  auto with_trailer = [&](size_t section) {
    return head + "1\r\nX\r\n0\r\nT: " + std::string(section - 7, 't') + "\r\n\r\n";
  };
  for (const Outcome& ok : FeedAllWays(with_trailer(154), small)) {
    CHECK(ok.rv == OK);
    CHECK(ok.complete);
    CHECK(ok.header_bytes == 200);
  }
  for (const Outcome& bad : FeedAllWays(with_trailer(155), small)) {
    CHECK(bad.rv == ERR_RESPONSE_HEADERS_TOO_BIG);
  }
}

TEST_CASE("parser bounds: a failing callback ends parsing cleanly") {
  // The status-code check fails inside on_headers_complete (-1: HPE_CB_headers_complete).
  HttpStreamParser parser({});
  std::string low = "HTTP/1.1 099 Low\r\nX: y\r\n\r\nHTTP/1.1 200 OK\r\n";
  CHECK(parser.Consume(low.data(), low.size()) == ERR_INVALID_HTTP_RESPONSE);
  CHECK(parser.has_error());
  CHECK_THAT(parser.error_message(), Catch::Contains("invalid HTTP status code 99"));
  CHECK(parser.response_headers() == nullptr);
  CHECK_FALSE(parser.headers_complete());
  CHECK(parser.Consume("Content-Length: 0\r\n\r\n", 21) == ERR_INVALID_HTTP_RESPONSE);
  CHECK(parser.ConsumeEof() == ERR_INVALID_HTTP_RESPONSE);
  CHECK_FALSE(parser.CanReuseConnection());
}
