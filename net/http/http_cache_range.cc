#include "net/http/http_cache_range.h"

#include <algorithm>
#include <utility>

#include "net/base/string_util.h"
#include "net/http/http_date.h"
#include "net/http/http_util.h"

namespace netstack {
namespace {

// 18 digits always fit in int64_t; longer positions are refused rather than wrapped.
constexpr size_t kMaxDigits = 18;

bool ParseNumber(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > kMaxDigits) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// "first-last" with both present, first <= last.
bool ParseSpan(std::string_view s, int64_t* first, int64_t* last) {
  const size_t dash = s.find('-');
  if (dash == std::string_view::npos) return false;
  return ParseNumber(s.substr(0, dash), first) && ParseNumber(s.substr(dash + 1), last) &&
         *first <= *last;
}

std::string Shown(std::string_view text) {
  std::string s(text.substr(0, 100));
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return s;
}

}  // namespace

std::string ByteRangeSpec::ToString() const {
  if (suffix >= 0) return "-" + std::to_string(suffix);
  return std::to_string(first) + "-" + (last >= 0 ? std::to_string(last) : std::string());
}

bool ParseByteRangeSpec(std::string_view text, ByteRangeSpec* out, std::string* message) {
  auto fail = [&](const std::string& why) {
    if (message) *message = "bad range \"" + Shown(text) + "\": " + why;
    return false;
  };
  if (text.find(',') != std::string_view::npos)
    return fail("only one range is supported (no multipart/byteranges)");
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos) return fail("expected A-B, A- or -N");
  ByteRangeSpec spec;
  const std::string_view a = text.substr(0, dash);
  const std::string_view b = text.substr(dash + 1);
  if (a.empty()) {
    if (!ParseNumber(b, &spec.suffix)) return fail("expected A-B, A- or -N");
    if (spec.suffix == 0) return fail("a suffix of 0 bytes selects nothing");
  } else {
    if (!ParseNumber(a, &spec.first)) return fail("expected A-B, A- or -N");
    if (!b.empty()) {
      if (!ParseNumber(b, &spec.last)) return fail("expected A-B, A- or -N");
      if (spec.last < spec.first) return fail("the last position is before the first");
    }
  }
  *out = spec;
  return true;
}

bool ParseRangeHeader(std::string_view value, ByteRangeSpec* out, std::string* message) {
  value = TrimHttpWhitespace(value);
  const size_t eq = value.find('=');
  if (eq == std::string_view::npos ||
      !EqualsCaseInsensitiveAscii(TrimHttpWhitespace(value.substr(0, eq)), "bytes")) {
    if (message) *message = "Range is not in bytes";
    return false;
  }
  return ParseByteRangeSpec(TrimHttpWhitespace(value.substr(eq + 1)), out, message);
}

bool ResolveByteRange(const ByteRangeSpec& spec, int64_t length, int64_t* first, int64_t* last) {
  if (length <= 0) return false;
  if (spec.suffix >= 0) {
    if (spec.suffix == 0) return false;
    *first = std::max<int64_t>(0, length - spec.suffix);
    *last = length - 1;
    return true;
  }
  if (spec.first < 0 || spec.first >= length) return false;
  *first = spec.first;
  *last = spec.last < 0 ? length - 1 : std::min(spec.last, length - 1);
  return true;
}

bool ParseContentRange(std::string_view value, ContentRange* out, std::string* message) {
  auto fail = [&](const std::string& why) {
    if (message) *message = "bad Content-Range \"" + Shown(value) + "\": " + why;
    return false;
  };
  value = TrimHttpWhitespace(value);
  if (value.size() < 6 || !EqualsCaseInsensitiveAscii(value.substr(0, 6), "bytes "))
    return fail("not a byte range");
  const std::string_view rest = TrimHttpWhitespace(value.substr(6));
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return fail("no complete length");
  ContentRange r;
  if (!ParseSpan(rest.substr(0, slash), &r.first, &r.last))
    return fail("expected first-last with first <= last");
  const std::string_view complete = rest.substr(slash + 1);
  if (complete != "*") {
    if (!ParseNumber(complete, &r.complete_length)) return fail("bad complete length");
    if (r.last >= r.complete_length) return fail("the range ends past the complete length");
  }
  *out = r;
  return true;
}

std::string FormatContentRange(int64_t first, int64_t last, int64_t length) {
  return "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" +
         std::to_string(length);
}

std::string StrongValidator(const HttpResponseHeaders& headers) {
  std::string etag;
  if (headers.GetNormalizedHeader("etag", &etag)) {
    // A weak ETag says the bytes may differ: never combined (RFC 9110 8.8.3).
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') return "etag:" + etag;
    return {};
  }
  std::string lm, date;
  Time lm_time, date_time;
  if (!headers.GetNormalizedHeader("last-modified", &lm) || !ParseHttpDate(lm, &lm_time) ||
      !headers.GetNormalizedHeader("date", &date) || !ParseHttpDate(date, &date_time))
    return {};
  // RFC 9110 8.8.2.2: a Last-Modified one second or more before Date is strong.
  if (date_time - lm_time < Seconds(1)) return {};
  return "lm:" + lm;
}

bool PartialContent::FromStored(std::string_view pieces, std::string validator, std::string body,
                                PartialContent* out, std::string* message) {
  auto fail = [&](const std::string& why) {
    *message = "bad " + std::string(kPiecesHeader) + " \"" + Shown(pieces) + "\": " + why;
    return false;
  };
  pieces = TrimHttpWhitespace(pieces);
  if (pieces.substr(0, 6) != "bytes ") return fail("not a byte list");
  const std::string_view rest = pieces.substr(6);
  const size_t slash = rest.find('/');
  int64_t length = 0;
  if (slash == std::string_view::npos || !ParseNumber(rest.substr(slash + 1), &length))
    return fail("no complete length");
  PartialContent result(std::move(validator), length);
  std::string_view list = rest.substr(0, slash);
  int64_t offset = 0;
  int64_t previous_last = -2;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    int64_t first = 0, last = 0;
    if (!ParseSpan(item, &first, &last) || last >= length)
      return fail("bad piece \"" + Shown(item) + "\"");
    if (first <= previous_last + 1) return fail("pieces out of order or touching");
    if (result.pieces_.size() == kMaxPiecesPerUrl)
      return fail("over " + std::to_string(kMaxPiecesPerUrl) + " pieces");
    const int64_t size = last - first + 1;
    if (offset + size > static_cast<int64_t>(body.size()))
      return fail("the body is shorter than the pieces");
    result.pieces_.push_back(
        {first, body.substr(static_cast<size_t>(offset), static_cast<size_t>(size))});
    offset += size;
    previous_last = last;
  }
  if (result.pieces_.empty()) return fail("no pieces");
  if (offset != static_cast<int64_t>(body.size()))
    return fail("the body is longer than the pieces");
  *out = std::move(result);
  return true;
}

bool PartialContent::Add(int64_t first, std::string data) {
  if (data.empty()) return true;
  const int64_t last = first + static_cast<int64_t>(data.size()) - 1;
  std::vector<Piece> kept;
  kept.reserve(pieces_.size() + 2);
  // The stored bytes the new piece overlaps are cut out (the new ones win), so each stored piece
  // leaves at most a part before and a part after it.
  for (Piece& p : pieces_) {
    if (p.last() < first || p.first > last) {
      kept.push_back(std::move(p));
      continue;
    }
    if (p.first < first) kept.push_back({p.first, p.data.substr(0, first - p.first)});
    if (p.last() > last) kept.push_back({last + 1, p.data.substr(last + 1 - p.first)});
  }
  kept.push_back({first, std::move(data)});
  std::sort(kept.begin(), kept.end(),
            [](const Piece& a, const Piece& b) { return a.first < b.first; });
  std::vector<Piece> merged;
  for (Piece& p : kept) {
    if (!merged.empty() && merged.back().last() + 1 == p.first) {
      merged.back().data += p.data;
    } else {
      merged.push_back(std::move(p));
    }
  }
  if (merged.size() > kMaxPiecesPerUrl) {
    // Evict the stored pieces: the new one alone (found again by its first position).
    for (Piece& p : merged) {
      if (p.first <= first && p.last() >= last) {
        pieces_ = {Piece{first, p.data.substr(first - p.first, last - first + 1)}};
        return false;
      }
    }
  }
  pieces_ = std::move(merged);
  return true;
}

bool PartialContent::Covers(int64_t first, int64_t last, int64_t* offset) const {
  int64_t at = 0;
  for (const Piece& p : pieces_) {
    if (p.first <= first && last <= p.last()) {
      *offset = at + (first - p.first);
      return true;
    }
    at += static_cast<int64_t>(p.data.size());
  }
  return false;
}

bool PartialContent::IsComplete() const {
  return pieces_.size() == 1 && pieces_[0].first == 0 &&
         static_cast<int64_t>(pieces_[0].data.size()) == complete_length_;
}

std::string PartialContent::PiecesHeaderValue() const {
  std::string out = "bytes ";
  for (size_t i = 0; i < pieces_.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(pieces_[i].first) + "-" + std::to_string(pieces_[i].last());
  }
  return out + "/" + std::to_string(complete_length_);
}

std::string PartialContent::Body() const {
  std::string body;
  body.reserve(static_cast<size_t>(total_bytes()));
  for (const Piece& p : pieces_) body += p.data;
  return body;
}

int64_t PartialContent::total_bytes() const {
  int64_t total = 0;
  for (const Piece& p : pieces_) total += static_cast<int64_t>(p.data.size());
  return total;
}

namespace {

std::shared_ptr<HttpResponseHeaders> CopyWithStatus(const HttpResponseHeaders& from, int code,
                                                    std::string reason) {
  auto out = std::make_shared<HttpResponseHeaders>(from.version(), code, std::move(reason));
  for (const auto& h : from.headers()) {
    if (EqualsCaseInsensitiveAscii(h.name, "content-range") ||
        EqualsCaseInsensitiveAscii(h.name, "content-length") ||
        EqualsCaseInsensitiveAscii(h.name, kPiecesHeader))
      continue;
    out->AddHeader(h.name, h.value);
  }
  return out;
}

}  // namespace

std::shared_ptr<HttpResponseHeaders> PartialEntryHeaders(const HttpResponseHeaders& response,
                                                         const PartialContent& pieces) {
  auto out = CopyWithStatus(response, 206, "Partial Content");
  out->AddHeader(kPiecesHeader, pieces.PiecesHeaderValue());
  return out;
}

std::shared_ptr<HttpResponseHeaders> CompletedEntryHeaders(const HttpResponseHeaders& stored,
                                                           int64_t length) {
  auto out = CopyWithStatus(stored, 200, "OK");
  out->AddHeader("Content-Length", std::to_string(length));
  return out;
}

std::shared_ptr<HttpResponseHeaders> RangeResponseHeaders(const HttpResponseHeaders& served,
                                                          int64_t first, int64_t last,
                                                          int64_t length) {
  auto out = CopyWithStatus(served, 206, "Partial Content");
  out->AddHeader("Content-Range", FormatContentRange(first, last, length));
  out->AddHeader("Content-Length", std::to_string(last - first + 1));
  return out;
}

std::shared_ptr<HttpResponseHeaders> UnsatisfiableRangeHeaders(const HttpResponseHeaders& stored,
                                                               int64_t length) {
  auto out = std::make_shared<HttpResponseHeaders>(stored.version(), 416, "Range Not Satisfiable");
  for (const char* name : {"Date", "ETag", "Last-Modified"}) {
    std::string value;
    if (stored.GetNormalizedHeader(name, &value)) out->AddHeader(name, value);
  }
  out->AddHeader("Content-Range", "bytes */" + std::to_string(length));
  out->AddHeader("Content-Length", "0");
  return out;
}

std::string PartialEntryKey(const std::string& url_key) { return url_key + "#partial"; }

}  // namespace netstack
