// libFuzzer target for partial content (net/http/http_cache_range.h). Input: a Range value on
// the first line, a Content-Range value on the second, then pieces "FIRST:BYTES" one a line
// (added to one PartialContent of length 4096). Promises checked:
//   - a parsed byte-range-spec formats back to a spec that parses to the same;
//   - a resolved range lies within the representation;
//   - a parsed Content-Range has first <= last, and last < the complete length when known;
//   - the pieces stay sorted, disjoint, not touching, within kMaxPiecesPerUrl and the length,
//     and their stored form (FromStored) gives back the same pieces and body;
//   - a covered range's offset lies within the body.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/http/http_cache_range.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

constexpr int64_t kLength = 4096;

std::string_view NextLine(std::string_view* text) {
  const size_t eol = text->find('\n');
  std::string_view line = text->substr(0, eol);
  *text = eol == std::string_view::npos ? std::string_view() : text->substr(eol + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  netstack::ByteRangeSpec spec;
  if (netstack::ParseRangeHeader(NextLine(&text), &spec)) {
    netstack::ByteRangeSpec again;
    FUZZ_CHECK(netstack::ParseByteRangeSpec(spec.ToString(), &again, nullptr));
    FUZZ_CHECK(again.ToString() == spec.ToString());
    int64_t first = 0, last = 0;
    if (netstack::ResolveByteRange(spec, kLength, &first, &last))
      FUZZ_CHECK(0 <= first && first <= last && last < kLength);
  }
  netstack::ContentRange range;
  std::string why;
  if (netstack::ParseContentRange(NextLine(&text), &range, &why)) {
    FUZZ_CHECK(0 <= range.first && range.first <= range.last);
    if (range.complete_length >= 0) FUZZ_CHECK(range.last < range.complete_length);
  }
  netstack::PartialContent pieces("etag:\"f\"", kLength);
  while (!text.empty()) {
    std::string_view line = NextLine(&text);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 4) continue;
    int64_t first = 0;
    for (char c : line.substr(0, colon)) {
      if (c < '0' || c > '9') return 0;
      first = first * 10 + (c - '0');
    }
    std::string bytes(line.substr(colon + 1));
    if (bytes.empty() || first + static_cast<int64_t>(bytes.size()) > kLength) continue;
    pieces.Add(first, std::move(bytes));
    FUZZ_CHECK(pieces.pieces().size() <= netstack::PartialContent::kMaxPiecesPerUrl);
    int64_t previous_last = -2;
    for (const auto& p : pieces.pieces()) {
      FUZZ_CHECK(!p.data.empty() && p.first > previous_last + 1 && p.last() < kLength);
      previous_last = p.last();
    }
  }
  if (pieces.pieces().empty()) return 0;
  netstack::PartialContent back;
  FUZZ_CHECK(netstack::PartialContent::FromStored(pieces.PiecesHeaderValue(), "etag:\"f\"",
                                                  pieces.Body(), &back, &why));
  FUZZ_CHECK(back.Body() == pieces.Body());
  FUZZ_CHECK(back.PiecesHeaderValue() == pieces.PiecesHeaderValue());
  int64_t offset = 0;
  const auto& p = pieces.pieces().front();
  if (pieces.Covers(p.first, p.last(), &offset))
    FUZZ_CHECK(offset >= 0 && offset + static_cast<int64_t>(p.data.size()) <= pieces.total_bytes());
  return 0;
}
