#include "net/http/content_decoder.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "net/base/net_error.h"
#include "tests/http/compression_test_util.h"

using namespace netstack;
using namespace netstack::test;

namespace {

constexpr int64_t kNoLimit = int64_t{1} << 40;

struct Decoded {
  int rv = OK;  // first error (Decode or Finish), or OK
  std::string out;
  std::string message;
  size_t max_call_output = 0;
};

// Feeds `input` in pieces of `in_piece` bytes, pulling output `out_piece` bytes at a time.
Decoded DecodeAll(std::string_view encoding, const std::string& input, size_t in_piece = 1 << 20,
                  size_t out_piece = 1 << 16, int64_t max_output = kNoLimit) {
  Decoded d;
  std::unique_ptr<ContentDecoder> decoder;
  d.rv = ContentDecoder::Create(encoding, max_output, &decoder, &d.message);
  if (d.rv != OK) return d;
  std::string buf(out_piece, '\0');
  for (size_t pos = 0; pos < input.size() || pos == 0; pos += in_piece) {
    std::string_view piece = std::string_view(input).substr(pos, in_piece);
    while (true) {
      int rv = decoder->Decode(&piece, buf.data(), buf.size());
      if (rv < 0) {
        d.rv = rv;
        d.message = decoder->error_message();
        return d;
      }
      if (rv == 0) break;
      d.max_call_output = std::max(d.max_call_output, static_cast<size_t>(rv));
      d.out.append(buf.data(), static_cast<size_t>(rv));
    }
    REQUIRE(piece.empty());  // 0 means everything was consumed
    if (input.empty()) break;
  }
  d.rv = decoder->Finish();
  d.message = decoder->error_message();
  return d;
}

}  // namespace

TEST_CASE("decoder: each coding round-trips, in any input and output split") {
  const std::string body = SampleBody(100 * 1024);
  struct Case {
    const char* encoding;
    std::string encoded;
  };
  Case cases[] = {{"gzip", Gzip(body)},
                  {"x-gzip", Gzip(body)},
                  {"GZip", Gzip(body)},
                  {"deflate", ZlibDeflate(body)},
                  {"deflate", RawDeflate(body)},
                  {"br", Brotli(body)},
                  {"identity", body},
                  {"", body}};
  for (const Case& c : cases) {
    for (auto [in_piece, out_piece] :
         {std::pair<size_t, size_t>{1 << 20, 1 << 16}, {1, 4096}, {13, 7}, {4096, 1}}) {
      if (out_piece == 1 && std::string_view(c.encoding) != "gzip") continue;  // slow; once
      INFO(c.encoding << " in " << in_piece << " out " << out_piece);
      Decoded d = DecodeAll(c.encoding, c.encoded, in_piece, out_piece);
      REQUIRE(d.rv == OK);
      CHECK(d.out == body);
      CHECK(d.max_call_output <= out_piece);
    }
  }
}

TEST_CASE("decoder: gzip may carry a zlib header, gzip of gzip is not unwrapped twice") {
  const std::string body = SampleBody(5000);
  CHECK(DecodeAll("gzip", ZlibDeflate(body)).out == body);
  CHECK(DecodeAll("gzip", Gzip(Gzip(body))).out == Gzip(body));
}

TEST_CASE("decoder: stacked codings are decoded in reverse order") {
  const std::string body = SampleBody(64 * 1024, 7);
  CHECK(DecodeAll("gzip, br", Brotli(Gzip(body))).out == body);
  CHECK(DecodeAll("br, gzip", Gzip(Brotli(body)), 100, 333).out == body);
  CHECK(DecodeAll("deflate, identity, gzip", Gzip(RawDeflate(body)), 1, 4096).out == body);
  CHECK(DecodeAll("gzip, gzip, gzip", Gzip(Gzip(Gzip(body))), 17, 1000).out == body);

  std::unique_ptr<ContentDecoder> d;
  REQUIRE(ContentDecoder::Create("gzip, br", kNoLimit, &d) == OK);
  CHECK(d->codings() == std::vector<ContentDecoder::Coding>{ContentDecoder::Coding::kBrotli,
                                                            ContentDecoder::Coding::kGzip});

  std::string message;
  CHECK(ContentDecoder::Create("gzip, gzip, gzip, gzip, gzip", kNoLimit, &d, &message) ==
        ERR_CONTENT_DECODING_FAILED);
  CHECK_FALSE(message.empty());
}

TEST_CASE("decoder: unknown codings pass the body through") {
  const std::string body = Gzip("payload");
  for (const char* encoding : {"compress", "gzip, zstd", "x-unknown"}) {
    std::unique_ptr<ContentDecoder> d;
    REQUIRE(ContentDecoder::Create(encoding, kNoLimit, &d) == OK);
    CHECK(d->passes_through());
    CHECK(d->has_unknown_encoding());
    CHECK(DecodeAll(encoding, body).out == body);
  }
}

TEST_CASE("decoder: corrupt data fails") {
  const std::string body = SampleBody(20000);
  CHECK(DecodeAll("gzip", "this is not gzip at all").rv == ERR_CONTENT_DECODING_FAILED);
  CHECK(DecodeAll("br", "\xff\xff\xff\xff garbage").rv == ERR_CONTENT_DECODING_FAILED);

  std::string gz = Gzip(body);
  gz[gz.size() - 6] ^= 0x55;  // the CRC32 in the trailer
  Decoded bad_crc = DecodeAll("gzip", gz);
  CHECK(bad_crc.rv == ERR_CONTENT_DECODING_FAILED);
  CHECK_THAT(bad_crc.message, Catch::StartsWith("gzip: "));

  std::string z = ZlibDeflate(body);
  z[z.size() / 2] ^= 0x7f;
  CHECK(DecodeAll("deflate", z).rv == ERR_CONTENT_DECODING_FAILED);

  std::string br = Brotli(body);
  br[br.size() / 2] ^= 0x7f;
  Decoded bad_br = DecodeAll("br", br);
  CHECK(bad_br.rv == ERR_CONTENT_DECODING_FAILED);
  CHECK_THAT(bad_br.message, Catch::StartsWith("br: "));
}

// Found by tests/fuzz/fuzz_content_decoder (corpus/content_decoder/regress-data-error-no-progress):
// zlib reported corrupt data in a call that consumed and produced nothing, which Decode took
// for "needs more input" and returned 0 with the input left, so a stream buffered the rest of
// the body waiting for the decoder to take it.
TEST_CASE("decoder: corrupt data met without progress fails at once, never returns 0 early") {
  const unsigned char bytes[] = {0x1f, 0x8b, 0x08, 0x00, 0xad, 0x53, 0x08, 0x6b, 0x02, 0xff,
                                 0xb3, 0xc9, 0x28, 0xc9, 0xcd, 0x74, 0x72, 0x69, 0x70, 0x20,
                                 0x6d, 0x65, 0x20, 0x06, 0x0a, 0x72, 0x6f, 0x75, 0x6e, 0x64,
                                 0x20, 0x74, 0x72, 0x69, 0x70, 0x20, 0xae, 0x65, 0x20};
  const std::string gz(reinterpret_cast<const char*>(bytes), sizeof(bytes));
  std::unique_ptr<ContentDecoder> decoder;
  REQUIRE(ContentDecoder::Create("x-gzip", kNoLimit, &decoder) == OK);
  char out[2];
  int rv = 0;
  for (size_t pos = 0; pos < gz.size() && rv >= 0; pos += 8) {
    std::string_view piece = std::string_view(gz).substr(pos, 8);
    while ((rv = decoder->Decode(&piece, out, sizeof(out))) > 0) {
    }
    if (rv == 0) CHECK(piece.empty());  // 0 only once the input is taken
  }
  CHECK(rv == ERR_CONTENT_DECODING_FAILED);
  CHECK_THAT(decoder->error_message(), Catch::StartsWith("gzip: "));
}

TEST_CASE("decoder: a truncated stream fails at Finish") {
  const std::string body = SampleBody(20000);
  for (auto [encoding, encoded] : {std::pair<const char*, std::string>{"gzip", Gzip(body)},
                                   {"deflate", ZlibDeflate(body)},
                                   {"deflate", RawDeflate(body)},
                                   {"br", Brotli(body)},
                                   {"br, gzip", Gzip(Brotli(body))}}) {
    INFO(encoding);
    Decoded d = DecodeAll(encoding, encoded.substr(0, encoded.size() - 4));
    CHECK(d.rv == ERR_CONTENT_DECODING_FAILED);
    CHECK_THAT(d.message, Catch::Contains("ended early"));
  }
  // One byte of a deflate body (not even a header) is cut too.
  CHECK(DecodeAll("deflate", "x").rv == ERR_CONTENT_DECODING_FAILED);
}

TEST_CASE("decoder: tolerated like browsers: empty body, bytes after the end") {
  CHECK(DecodeAll("gzip", "").rv == OK);
  CHECK(DecodeAll("br, deflate", "").rv == OK);
  Decoded extra = DecodeAll("gzip", Gzip("abc") + "trailing junk");
  CHECK(extra.rv == OK);
  CHECK(extra.out == "abc");
  CHECK(DecodeAll("br", Brotli("abc") + "junk").out == "abc");
}

TEST_CASE("decoder: output bound stops decompression bombs") {
  const std::string zeros(8 * 1024 * 1024, '\0');
  const std::string bomb = Gzip(zeros);
  REQUIRE(bomb.size() < 64 * 1024);

  Decoded d = DecodeAll("gzip", bomb, 1 << 20, 1 << 16, 1024 * 1024);
  CHECK(d.rv == ERR_RESPONSE_BODY_TOO_BIG);
  CHECK(d.out.size() <= 1024 * 1024);

  CHECK(DecodeAll("br", Brotli(zeros), 1 << 20, 1 << 16, 1024 * 1024).rv ==
        ERR_RESPONSE_BODY_TOO_BIG);
  // A bomb inside another coding is caught at the inner stage's output as well.
  CHECK(DecodeAll("gzip, br", Brotli(bomb), 1 << 20, 1 << 16, 1024 * 1024).rv ==
        ERR_RESPONSE_BODY_TOO_BIG);
  // Identity bodies are bounded too; exactly the bound is fine.
  CHECK(DecodeAll("", std::string(1000, 'a'), 1 << 20, 1 << 16, 1000).rv == OK);
  CHECK(DecodeAll("", std::string(1001, 'a'), 1 << 20, 1 << 16, 1000).rv ==
        ERR_RESPONSE_BODY_TOO_BIG);
  CHECK(DecodeAll("gzip", Gzip(std::string(1000, 'a')), 1 << 20, 1 << 16, 1000).rv == OK);
}
