// Streaming decoding of a response body's Content-Encoding: gzip (and x-gzip), deflate (zlib
// format or raw deflate, as browsers accept both), br (brotli) and identity, stacked in any
// order ("gzip, br" was gzipped, then brotli'd, so it is decoded br first).
//
// Unknown codings: like Chrome, a Content-Encoding with any coding this class does not know
// makes the whole body pass through undecoded (has_unknown_encoding() tells), rather than fail
// the request: the user gets the bytes the server sent.
//
// Bounds: at most kMaxCodings stacked codings (more -> ERR_CONTENT_DECODING_FAILED at
// Create); fixed-size buffers between stacked stages; and max_output_bytes on the decoded
// body (and on each intermediate stage), past which Decode fails with
// ERR_RESPONSE_BODY_TOO_BIG, so a decompression bomb costs at most the bound and the caller's
// buffer. Output is pulled into the caller's buffer, so one call never inflates more than
// `out_len` bytes.
//
// Tolerated as browsers do: an empty body under any coding; bytes after the end of a
// compressed stream (dropped, so a multi-member gzip file decodes only its first member).
// Not tolerated: corrupt data, and a compressed stream cut before its end (Finish).
#ifndef NET_HTTP_CONTENT_DECODER_H_
#define NET_HTTP_CONTENT_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace netstack {

class ContentDecoder {
 public:
  enum class Coding { kGzip, kDeflate, kBrotli };

  static constexpr size_t kMaxCodings = 4;
  // Capacity of the buffer between two stacked stages.
  static constexpr size_t kStageBufferBytes = 16 * 1024;

  // One decoding step; implemented per coding in content_decoder.cc.
  class Stage;

  // Builds a decoder for a Content-Encoding value (repeated headers joined with ", ";
  // codings are case-insensitive; "identity" and empty items are ignored). A value with no
  // known coding gives a pass-through decoder (which still applies max_output_bytes).
  // Returns OK, ERR_CONTENT_DECODING_FAILED (more than kMaxCodings codings) or
  // ERR_CONTENT_DECODING_INIT_FAILED (zlib/brotli could not start); *error says why.
  static int Create(std::string_view content_encoding, int64_t max_output_bytes,
                    std::unique_ptr<ContentDecoder>* decoder, std::string* error = nullptr);

  ~ContentDecoder();
  ContentDecoder(const ContentDecoder&) = delete;
  ContentDecoder& operator=(const ContentDecoder&) = delete;

  // Decodes from *input, advancing it past what was consumed, into out[0, out_len)
  // (out_len > 0). Returns the bytes written (> 0; call again, with the rest of *input or
  // more), 0 when *input is fully consumed and nothing more is pending (feed more input, or
  // call Finish at the end of the body), or a terminal error: ERR_CONTENT_DECODING_FAILED
  // (corrupt data; error_message() has the library's reason) or ERR_RESPONSE_BODY_TOO_BIG.
  int Decode(std::string_view* input, char* out, size_t out_len);

  // The body ended (after Decode returned 0 for the last input). OK if every compressed
  // stream that got any data reached its end; ERR_CONTENT_DECODING_FAILED if one was cut.
  int Finish();

  // No decoding happens: identity only, or an unknown coding was named.
  bool passes_through() const { return stages_.empty(); }
  bool has_unknown_encoding() const { return unknown_encoding_; }
  // The codings applied, in decoding order.
  const std::vector<Coding>& codings() const { return codings_; }
  // Decoded bytes produced so far.
  int64_t output_bytes() const { return output_bytes_; }
  const std::string& error_message() const { return error_message_; }

  static const char* CodingName(Coding coding);

 private:
  struct Buffer {
    std::unique_ptr<char[]> data;
    size_t pos = 0;
    size_t len = 0;
    size_t unread() const { return len - pos; }
  };

  explicit ContentDecoder(int64_t max_output_bytes);
  int DecodeStage(size_t index, std::string_view* input, char* out, size_t out_len);
  int RunStage(size_t index, std::string_view* input, char* out, size_t out_len);
  int Fail(int error, std::string message);

  const int64_t max_output_bytes_;
  std::vector<Coding> codings_;
  std::vector<std::unique_ptr<Stage>> stages_;
  // buffers_[i] holds the output of stages_[i] not yet consumed by stages_[i + 1].
  std::vector<Buffer> buffers_;
  std::vector<int64_t> stage_output_bytes_;
  bool unknown_encoding_ = false;
  int64_t output_bytes_ = 0;
  int error_ = 0;
  std::string error_message_;
};

}  // namespace netstack

#endif  // NET_HTTP_CONTENT_DECODER_H_
