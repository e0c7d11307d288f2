// libFuzzer target for the HTTP/1.1 response parser (net/http/http_stream_parser.h), driven by
// bytes as the scripted-socket tests drive it. The first input byte picks the options (HEAD,
// a small header bound) and the size of the pieces the rest is fed in; the rest is the response.
// Promises checked:
//   - feeding the bytes in pieces (with Consume or ConsumeInPlace) gives exactly what one
//     Consume of everything gives: the same result, error, status, headers and body;
//   - the byte counters add up, the header bytes stay under the bound, the body read equals
//     body_bytes_received(), an error message is one line;
//   - the final headers survive ToHttpString -> Parse -> ToHttpString unchanged.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "net/base/net_error.h"
#include "net/http/http_response_headers.h"
#include "net/http/http_stream_parser.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

struct Outcome {
  int result = netstack::OK;  // the first error, or the result of ConsumeEof
  std::string body;
  std::string head;  // ToHttpString of the final headers, "" if none
  int64_t bytes_received = 0;
  size_t leftover_bytes = 0;
  bool complete = false;
};

void Drain(netstack::HttpStreamParser* parser, std::string* body) {
  char buf[4096];
  while (size_t n = parser->ReadBody(buf, sizeof(buf))) body->append(buf, n);
}

// Feeds `response` in pieces of `piece` bytes (all at once when 0), then the end of stream.
Outcome Run(const netstack::HttpStreamParser::Options& options, std::string_view response,
            size_t piece, bool in_place) {
  netstack::HttpStreamParser parser(options);
  Outcome out;
  size_t offset = 0;
  int rv = netstack::OK;
  while (offset < response.size() && rv == netstack::OK) {
    size_t n = piece == 0 ? response.size() - offset : std::min(piece, response.size() - offset);
    std::string copy(response.substr(offset, n));  // a buffer of its own, as a socket read
    offset += n;
    bool all_body = false;
    rv = in_place ? parser.ConsumeInPlace(copy.data(), copy.size(), &all_body)
                  : parser.Consume(copy.data(), copy.size());
    if (all_body) {
      FUZZ_CHECK(rv == netstack::OK);
      FUZZ_CHECK(parser.buffered_body_bytes() == 0);
      out.body += copy;
    }
    Drain(&parser, &out.body);
  }
  if (rv == netstack::OK) rv = parser.ConsumeEof();
  Drain(&parser, &out.body);
  out.result = rv;
  FUZZ_CHECK(parser.has_error() == (rv != netstack::OK));
  if (rv != netstack::OK) {
    FUZZ_CHECK(parser.error() == rv);
    FUZZ_CHECK(!parser.error_message().empty());
    FUZZ_CHECK(parser.error_message().find('\n') == std::string::npos);
    // A dead parser stays dead.
    FUZZ_CHECK(parser.Consume("x", 1) == rv);
  }
  // The counters add up (after an error, the bytes of the failing slice may be counted as
  // received but not classified: corpus/pending/http_stream_parser).
  if (rv == netstack::OK) {
    FUZZ_CHECK(parser.bytes_received() == static_cast<int64_t>(parser.header_bytes()) +
                                              parser.body_bytes_received() +
                                              parser.framing_bytes());
  }
  FUZZ_CHECK(parser.header_bytes() <= options.max_header_bytes);
  FUZZ_CHECK(parser.body_bytes_received() == static_cast<int64_t>(out.body.size()));
  FUZZ_CHECK(parser.bytes_received() + static_cast<int64_t>(parser.leftover_bytes()) <=
             static_cast<int64_t>(response.size()));
  if (parser.headers_complete()) {
    FUZZ_CHECK(parser.response_headers() != nullptr);
    out.head = parser.response_headers()->ToHttpString();
  }
  FUZZ_CHECK(!parser.message_complete() || parser.headers_complete());
  if (parser.CanReuseConnection()) FUZZ_CHECK(parser.message_complete() && rv == netstack::OK);
  out.bytes_received = parser.bytes_received();
  out.leftover_bytes = parser.leftover_bytes();
  out.complete = parser.message_complete();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  std::string_view response(reinterpret_cast<const char*>(data + 1), size - 1);
  netstack::HttpStreamParser::Options options;
  options.head_request = (flags & 1) != 0;
  if (flags & 2) options.max_header_bytes = 64 + (flags >> 2);  // reach the bound
  const size_t piece = 1 + (flags >> 4);

  const Outcome whole = Run(options, response, 0, false);
  const Outcome pieces = Run(options, response, piece, (flags & 4) != 0);
  FUZZ_CHECK(pieces.result == whole.result);
  FUZZ_CHECK(pieces.head == whole.head);
  FUZZ_CHECK(pieces.complete == whole.complete);
  if (whole.result == netstack::OK) {
    FUZZ_CHECK(pieces.body == whole.body);
    FUZZ_CHECK(pieces.bytes_received == whole.bytes_received);
  }

  if (!whole.head.empty()) {
    std::string error;
    auto reparsed = netstack::HttpResponseHeaders::Parse(whole.head, &error);
    FUZZ_CHECK(reparsed != nullptr);
    FUZZ_CHECK(reparsed->ToHttpString() == whole.head);
  }
  return 0;
}
