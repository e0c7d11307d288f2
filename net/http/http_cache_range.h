// Partial content for the HTTP cache (RFC 9110 14, RFC 9111 3.3 and 3.4), as pure functions and
// one value type: parsing a request's single byte range and a 206's Content-Range, the strong
// validator that decides whether two pieces belong to one representation, and the pieces model
// that combines them (PartialContent). No I/O; HttpCacheRangeTransaction reads and writes the
// entries. The stored form of the pieces is described in net/http/README.md ("Partial content").
#ifndef NET_HTTP_HTTP_CACHE_RANGE_H_
#define NET_HTTP_HTTP_CACHE_RANGE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/http/http_response_headers.h"

namespace netstack {

// A single byte-range-spec as asked: "first-last", "first-" (to the end) or "-suffix" (the last
// `suffix` bytes). Exactly one of the forms: suffix >= 0 means the suffix form.
struct ByteRangeSpec {
  int64_t first = -1;
  int64_t last = -1;    // -1: to the end
  int64_t suffix = -1;  // -1: not the suffix form

  // "0-1023", "100-", "-500": the spec as curl's -r and the Range header write it.
  std::string ToString() const;
};

// Parses one byte-range-spec ("A-B", "A-", "-N"; decimal, at most 18 digits, A <= B, N > 0).
// A list ("0-9,20-29") is refused with a message saying that only one range is supported.
// False with a one-line message naming `text` for anything else.
bool ParseByteRangeSpec(std::string_view text, ByteRangeSpec* out, std::string* message);

// Parses a request's Range value: "bytes=" (unit case-insensitive, RFC 9110 14.1) and one spec.
// False for another unit, several ranges, or anything malformed (the cache then leaves the
// request alone).
bool ParseRangeHeader(std::string_view value, ByteRangeSpec* out, std::string* message = nullptr);

// The bytes `spec` selects in a representation of `length` bytes (RFC 9110 14.1.2), as an
// inclusive [*first, *last]. False when unsatisfiable (a first position at or past the end, a
// zero-length representation, or a zero suffix).
bool ResolveByteRange(const ByteRangeSpec& spec, int64_t length, int64_t* first, int64_t* last);

// A 206's Content-Range (RFC 9110 14.4): "bytes first-last/complete", complete_length -1 for "*".
struct ContentRange {
  int64_t first = -1;
  int64_t last = -1;
  int64_t complete_length = -1;
};
// Parses a satisfied Content-Range. False with a one-line message for anything else: another
// unit, "bytes */N" (the 416 form), last < first, last past the complete length, numbers that
// do not fit.
bool ParseContentRange(std::string_view value, ContentRange* out, std::string* message);
// "bytes first-last/length".
std::string FormatContentRange(int64_t first, int64_t last, int64_t length);

// The response's strong validator (RFC 9110 8.8.1), the condition for combining pieces
// (RFC 9111 3.4): a strong ETag ("etag:" + value), else a Last-Modified at least one second
// before Date (8.8.2.2: "lm:" + value). Empty when there is none (a weak ETag, no validator, a
// Last-Modified that is not a valid date or is too close to Date).
std::string StrongValidator(const HttpResponseHeaders& headers);

// The internal header a stored partial entry lists its pieces in; never served.
inline constexpr char kPiecesHeader[] = "Netstack-Pieces";

// The pieces of one representation stored so far, each a run of bytes; sorted, disjoint and
// not adjacent (touching pieces are joined). The body of a stored partial entry is the pieces'
// bytes in order.
class PartialContent {
 public:
  // At most this many pieces per URL: a piece that would make more replaces the stored ones.
  static constexpr size_t kMaxPiecesPerUrl = 16;
  // At most this many bytes are held (and stored) for one URL's pieces; a piece that would
  // make more is not stored (the memory a combine needs is bounded by it).
  static constexpr int64_t kMaxBytes = 16 * 1024 * 1024;

  struct Piece {
    int64_t first = 0;
    std::string data;
    int64_t last() const { return first + static_cast<int64_t>(data.size()) - 1; }
  };

  PartialContent() = default;
  PartialContent(std::string validator, int64_t complete_length)
      : validator_(std::move(validator)), complete_length_(complete_length) {}

  // Rebuilds the pieces from a stored entry: `pieces` is the kPiecesHeader value
  // ("bytes 0-99,200-299/1000"), `body` their bytes in order. False with a one-line message when
  // the header is malformed, out of order, over kMaxPiecesPerUrl, or does not match the body.
  static bool FromStored(std::string_view pieces, std::string validator, std::string body,
                         PartialContent* out, std::string* message);

  // Whether a piece of (`validator`, `complete_length`) may be combined with these.
  bool SameRepresentation(std::string_view validator, int64_t complete_length) const {
    return !validator_.empty() && validator == validator_ && complete_length == complete_length_;
  }

  // Adds the bytes at [first, first + data.size()) (within the complete length; the caller
  // checked). Where they overlap stored bytes the new bytes win. Returns false when the result
  // would pass kMaxPiecesPerUrl: then the new piece alone is kept (the old ones evicted).
  bool Add(int64_t first, std::string data);

  // Whether one piece holds [first, last]; *offset is where those bytes start in Body().
  bool Covers(int64_t first, int64_t last, int64_t* offset) const;
  // One piece from 0 to the complete length: the whole representation.
  bool IsComplete() const;

  // The kPiecesHeader value: "bytes 0-99,200-299/1000".
  std::string PiecesHeaderValue() const;
  // The pieces' bytes in order (what the entry's body holds).
  std::string Body() const;
  int64_t total_bytes() const;

  const std::vector<Piece>& pieces() const { return pieces_; }
  const std::string& validator() const { return validator_; }
  int64_t complete_length() const { return complete_length_; }

 private:
  std::string validator_;
  int64_t complete_length_ = -1;
  std::vector<Piece> pieces_;
};

// The stored headers of a partial entry: `response`'s (a 206) without Content-Range and
// Content-Length, with kPiecesHeader from `pieces`.
std::shared_ptr<HttpResponseHeaders> PartialEntryHeaders(const HttpResponseHeaders& response,
                                                         const PartialContent& pieces);
// The headers of the whole representation made from complete pieces: status 200, no
// kPiecesHeader or Content-Range, Content-Length the complete length.
std::shared_ptr<HttpResponseHeaders> CompletedEntryHeaders(const HttpResponseHeaders& stored,
                                                           int64_t length);
// A 206 for [first, last] of `length` bytes made from `served` (stored headers already made
// servable): Content-Range and Content-Length set, kPiecesHeader removed.
std::shared_ptr<HttpResponseHeaders> RangeResponseHeaders(const HttpResponseHeaders& served,
                                                          int64_t first, int64_t last,
                                                          int64_t length);
// The 416 the cache answers an unsatisfiable range with: "Content-Range: bytes */length",
// Content-Length 0, and the stored validators.
std::shared_ptr<HttpResponseHeaders> UnsatisfiableRangeHeaders(const HttpResponseHeaders& stored,
                                                               int64_t length);

// The key of `url_key`'s partial entry: "<url>#partial". A URL key never has a fragment (it is
// the URL without one), so this cannot name a whole response.
std::string PartialEntryKey(const std::string& url_key);

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_RANGE_H_
