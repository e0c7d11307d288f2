// libFuzzer target for content decoding (net/http/content_decoder.h: gzip, deflate, br,
// stacked). Input: one flags byte, a Content-Encoding value up to the first '\n', then the
// body. Promises checked:
//   - decoding in pieces, into a small buffer, gives what one pass into a large buffer gives
//     (the same output, or both fail);
//   - the output never passes max_output_bytes (a bomb fails with ERR_RESPONSE_BODY_TOO_BIG),
//     output_bytes() counts exactly what was written (on success), errors are terminal and
//     say why;
//   - round trip: the body gzip- or deflate-compressed with zlib decodes back to itself.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "net/base/net_error.h"
#include "net/http/content_decoder.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

struct Decoded {
  int result = netstack::OK;
  std::string out;
};

// Decodes `body` fed in pieces of `piece` bytes (0: all at once) into a buffer of `out_len`.
Decoded Decode(std::string_view encoding, int64_t max_output, std::string_view body, size_t piece,
               size_t out_len) {
  Decoded d;
  std::unique_ptr<netstack::ContentDecoder> decoder;
  std::string error;
  d.result = netstack::ContentDecoder::Create(encoding, max_output, &decoder, &error);
  if (d.result != netstack::OK) {
    FUZZ_CHECK(decoder == nullptr || !error.empty());
    FUZZ_CHECK(error.find('\n') == std::string::npos);
    return d;
  }
  FUZZ_CHECK(decoder != nullptr);
  FUZZ_CHECK(decoder->codings().size() <= netstack::ContentDecoder::kMaxCodings);
  std::string buf(out_len, '\0');
  size_t offset = 0;
  while (offset < body.size()) {
    size_t n = piece == 0 ? body.size() - offset : std::min(piece, body.size() - offset);
    std::string_view input = body.substr(offset, n);
    offset += n;
    for (;;) {
      int rv = decoder->Decode(&input, buf.data(), buf.size());
      if (rv < 0) {
        FUZZ_CHECK(!decoder->error_message().empty());
        FUZZ_CHECK(decoder->error_message().find('\n') == std::string::npos);
        // Terminal: the decoder stays failed.
        std::string_view more("x");
        FUZZ_CHECK(decoder->Decode(&more, buf.data(), buf.size()) == rv);
        d.result = rv;
        // The failing call's output counts as produced, though not handed out.
        FUZZ_CHECK(decoder->output_bytes() >= static_cast<int64_t>(d.out.size()));
        return d;
      }
      FUZZ_CHECK(static_cast<size_t>(rv) <= buf.size());
      d.out.append(buf.data(), rv);
      FUZZ_CHECK(static_cast<int64_t>(d.out.size()) <= max_output);
      if (rv == 0) {
        FUZZ_CHECK(input.empty());
        break;
      }
    }
  }
  d.result = decoder->Finish();
  FUZZ_CHECK(decoder->output_bytes() == static_cast<int64_t>(d.out.size()));
  if (decoder->passes_through()) FUZZ_CHECK(d.out == body);
  return d;
}

// `data` compressed by zlib: gzip (wrapper 16 + 15) or zlib-format deflate (15).
std::string Compress(std::string_view data, int window_bits) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    __builtin_trap();
  }
  std::string out(deflateBound(&zs, data.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  FUZZ_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 64 * 1024) return 0;
  const uint8_t flags = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  size_t eol = rest.find('\n');
  std::string_view encoding = rest.substr(0, eol);
  std::string_view body = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
  // A small bound now and then, so that bombs and the bound are reached.
  const int64_t max_output = (flags & 1) ? int64_t{1} << (flags >> 4) : int64_t{8} << 20;

  Decoded whole = Decode(encoding, max_output, body, 0, 64 * 1024);
  Decoded pieces = Decode(encoding, max_output, body, 1 + ((flags >> 1) & 7), 1 + (flags >> 4));
  // Both succeed or both fail; which error comes first may depend on the buffer (a bomb with a
  // bad checksum: the bound, or the checksum in one large call).
  FUZZ_CHECK((pieces.result == netstack::OK) == (whole.result == netstack::OK));
  if (whole.result == netstack::OK) FUZZ_CHECK(pieces.out == whole.out);

  if (flags & 2) {
    const bool gzip = flags & 4;
    Decoded round = Decode(gzip ? "gzip" : "deflate", int64_t{8} << 20,
                           Compress(body, gzip ? 16 + 15 : 15), 0, 4096);
    FUZZ_CHECK(round.result == netstack::OK);
    FUZZ_CHECK(round.out == body);
  }
  return 0;
}
