// http_cache_range: the Range / Content-Range grammar, the strong validator, and the pieces
// model (combining, covering, bounds, the stored form).
#include "net/http/http_cache_range.h"

#include <catch2/catch.hpp>
#include <string>

namespace netstack::test {
namespace {

std::shared_ptr<HttpResponseHeaders> Head(const std::string& block) {
  auto h = HttpResponseHeaders::Parse(block);
  REQUIRE(h);
  return h;
}

TEST_CASE("range: byte-range-spec forms", "[cache][range]") {
  ByteRangeSpec s;
  std::string why;
  REQUIRE(ParseByteRangeSpec("0-1023", &s, &why));
  CHECK(s.first == 0);
  CHECK(s.last == 1023);
  CHECK(s.ToString() == "0-1023");
  REQUIRE(ParseByteRangeSpec("100-", &s, &why));
  CHECK(s.first == 100);
  CHECK(s.last == -1);
  CHECK(s.ToString() == "100-");
  REQUIRE(ParseByteRangeSpec("-500", &s, &why));
  CHECK(s.suffix == 500);
  CHECK(s.ToString() == "-500");
  REQUIRE(ParseRangeHeader(" Bytes=5-9 ", &s, &why));
  CHECK(s.first == 5);
  CHECK(s.last == 9);
}

TEST_CASE("range: malformed specs are refused with a one-line message", "[cache][range]") {
  ByteRangeSpec s;
  std::string why;
  CHECK_FALSE(ParseByteRangeSpec("0-9,20-29", &s, &why));
  CHECK(why == "bad range \"0-9,20-29\": only one range is supported (no multipart/byteranges)");
  for (const char* bad :
       {"", "-", "abc", "5", "9-5", "-0", "1-2-3", "x-5", "5-y", " 1-2", "1234567890123456789-"}) {
    INFO(bad);
    why.clear();
    CHECK_FALSE(ParseByteRangeSpec(bad, &s, &why));
    CHECK(why.rfind("bad range \"", 0) == 0);
    CHECK(why.find('\n') == std::string::npos);
  }
  CHECK_FALSE(ParseRangeHeader("items=0-5", &s));
  CHECK_FALSE(ParseRangeHeader("bytes 0-5", &s));
  CHECK_FALSE(ParseRangeHeader("bytes=0-5,7-9", &s));
}

TEST_CASE("range: resolving against the representation's length", "[cache][range]") {
  int64_t first = 0, last = 0;
  ByteRangeSpec s;
  REQUIRE(ParseByteRangeSpec("10-19", &s, nullptr));
  REQUIRE(ResolveByteRange(s, 100, &first, &last));
  CHECK((first == 10 && last == 19));
  REQUIRE(ResolveByteRange(s, 15, &first, &last));  // clipped to the end
  CHECK((first == 10 && last == 14));
  CHECK_FALSE(ResolveByteRange(s, 10, &first, &last));  // starts at the end
  CHECK_FALSE(ResolveByteRange(s, 0, &first, &last));
  REQUIRE(ParseByteRangeSpec("-30", &s, nullptr));
  REQUIRE(ResolveByteRange(s, 100, &first, &last));
  CHECK((first == 70 && last == 99));
  REQUIRE(ResolveByteRange(s, 20, &first, &last));  // a suffix longer than the whole
  CHECK((first == 0 && last == 19));
  REQUIRE(ParseByteRangeSpec("95-", &s, nullptr));
  REQUIRE(ResolveByteRange(s, 100, &first, &last));
  CHECK((first == 95 && last == 99));
}

TEST_CASE("range: Content-Range parsing", "[cache][range]") {
  ContentRange r;
  std::string why;
  REQUIRE(ParseContentRange("bytes 0-99/1000", &r, &why));
  CHECK((r.first == 0 && r.last == 99 && r.complete_length == 1000));
  REQUIRE(ParseContentRange("bytes 5-9/*", &r, &why));
  CHECK(r.complete_length == -1);
  CHECK(FormatContentRange(0, 99, 1000) == "bytes 0-99/1000");
  for (const char* bad :
       {"", "bytes", "bytes */1000", "bytes 9-5/100", "bytes 0-100/100", "items 0-5/10",
        "bytes 0-5", "bytes 0-5/x", "bytes a-5/10", "bytes 0-99999999999999999999/1"}) {
    INFO(bad);
    why.clear();
    CHECK_FALSE(ParseContentRange(bad, &r, &why));
    CHECK(why.rfind("bad Content-Range", 0) == 0);
  }
}

TEST_CASE("range: strong validators", "[cache][range]") {
  CHECK(StrongValidator(*Head("HTTP/1.1 206 P\r\nETag: \"v1\"\r\n\r\n")) == "etag:\"v1\"");
  CHECK(StrongValidator(*Head("HTTP/1.1 206 P\r\nETag: W/\"v1\"\r\n\r\n")).empty());
  CHECK(StrongValidator(*Head("HTTP/1.1 206 P\r\nLast-Modified: Tue, 14 Nov 2023 22:00:00 GMT\r\n"
                              "Date: Tue, 14 Nov 2023 22:13:20 GMT\r\n\r\n")) ==
        "lm:Tue, 14 Nov 2023 22:00:00 GMT");
  // Modified within the second of Date: weak (RFC 9110 8.8.2.2).
  CHECK(StrongValidator(*Head("HTTP/1.1 206 P\r\nLast-Modified: Tue, 14 Nov 2023 22:13:20 GMT\r\n"
                              "Date: Tue, 14 Nov 2023 22:13:20 GMT\r\n\r\n"))
            .empty());
  CHECK(StrongValidator(*Head("HTTP/1.1 206 P\r\nLast-Modified: Tue, 14 Nov 2023 22:00:00 GMT\r\n"
                              "\r\n"))
            .empty());
  CHECK(StrongValidator(*Head("HTTP/1.1 206 P\r\n\r\n")).empty());
}

TEST_CASE("range: pieces combine, overlap with the newer bytes, and complete", "[cache][range]") {
  PartialContent p("etag:\"v\"", 10);
  CHECK(p.Add(6, "6789"));
  CHECK(p.Add(0, "012"));
  CHECK(p.pieces().size() == 2);
  CHECK(p.PiecesHeaderValue() == "bytes 0-2,6-9/10");
  CHECK(p.Body() == "0126789");
  int64_t offset = -1;
  CHECK(p.Covers(7, 9, &offset));
  CHECK(offset == 4);
  CHECK_FALSE(p.Covers(2, 6, &offset));
  CHECK_FALSE(p.IsComplete());
  // Adjacent: joined into one piece.
  CHECK(p.Add(3, "34"));
  CHECK(p.PiecesHeaderValue() == "bytes 0-4,6-9/10");
  // Overlapping both sides: the new bytes win, and the whole is there.
  CHECK(p.Add(4, "XY"));
  CHECK(p.IsComplete());
  CHECK(p.Body() == "0123XY6789");
  CHECK(p.total_bytes() == 10);
  CHECK(p.SameRepresentation("etag:\"v\"", 10));
  CHECK_FALSE(p.SameRepresentation("etag:\"w\"", 10));
  CHECK_FALSE(p.SameRepresentation("etag:\"v\"", 11));
  CHECK_FALSE(PartialContent().SameRepresentation("", -1));
}

TEST_CASE("range: past kMaxPiecesPerUrl the new piece evicts the stored ones", "[cache][range]") {
  PartialContent p("etag:\"v\"", 1000);
  for (size_t i = 0; i < PartialContent::kMaxPiecesPerUrl; ++i)
    REQUIRE(p.Add(static_cast<int64_t>(i) * 10, "ab"));
  CHECK(p.pieces().size() == PartialContent::kMaxPiecesPerUrl);
  CHECK_FALSE(p.Add(500, "xyz"));
  REQUIRE(p.pieces().size() == 1);
  CHECK(p.PiecesHeaderValue() == "bytes 500-502/1000");
  // Joining existing pieces at the bound is fine: the count does not grow.
  PartialContent q("etag:\"v\"", 1000);
  for (size_t i = 0; i < PartialContent::kMaxPiecesPerUrl; ++i)
    REQUIRE(q.Add(static_cast<int64_t>(i) * 10, "ab"));
  CHECK(q.Add(2, "cdefghij"));
  CHECK(q.pieces().size() == PartialContent::kMaxPiecesPerUrl - 1);
}

TEST_CASE("range: the stored form round-trips and damage is refused", "[cache][range]") {
  PartialContent p("etag:\"v\"", 10);
  p.Add(0, "01");
  p.Add(5, "567");
  PartialContent back;
  std::string why;
  REQUIRE(PartialContent::FromStored(p.PiecesHeaderValue(), "etag:\"v\"", p.Body(), &back, &why));
  CHECK(back.PiecesHeaderValue() == "bytes 0-1,5-7/10");
  CHECK(back.Body() == "01567");
  struct Bad {
    const char* header;
    const char* body;
  };
  for (const Bad& bad : {Bad{"bytes 0-1,5-7/10", "0156"}, Bad{"bytes 0-1,5-7/10", "015678"},
                         Bad{"bytes 5-7,0-1/10", "56701"}, Bad{"bytes 0-1,2-3/10", "0123"},
                         Bad{"bytes 0-10/10", "01234567890"}, Bad{"bytes /10", ""},
                         Bad{"0-1/10", "01"}, Bad{"bytes 0-1", "01"}, Bad{"bytes 1-0/10", "0"}}) {
    INFO(bad.header);
    why.clear();
    CHECK_FALSE(PartialContent::FromStored(bad.header, "v", bad.body, &back, &why));
    CHECK(why.rfind("bad Netstack-Pieces", 0) == 0);
  }
  std::string many = "bytes ";
  std::string body;
  for (size_t i = 0; i <= PartialContent::kMaxPiecesPerUrl; ++i) {
    many += (i ? "," : "") + std::to_string(i * 3) + "-" + std::to_string(i * 3);
    body += "x";
  }
  CHECK_FALSE(PartialContent::FromStored(many + "/1000", "v", body, &back, &why));
  CHECK(why.find("over 16 pieces") != std::string::npos);
}

TEST_CASE("range: headers made for entries and answers", "[cache][range]") {
  auto resp = Head(
      "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-1/10\r\nContent-Length: 2\r\n"
      "ETag: \"v\"\r\nContent-Type: text/plain\r\n\r\n");
  PartialContent p("etag:\"v\"", 10);
  p.Add(0, "01");
  auto stored = PartialEntryHeaders(*resp, p);
  CHECK(stored->response_code() == 206);
  CHECK_FALSE(stored->HasHeader("content-range"));
  CHECK_FALSE(stored->HasHeader("content-length"));
  std::string v;
  REQUIRE(stored->GetNormalizedHeader(kPiecesHeader, &v));
  CHECK(v == "bytes 0-1/10");
  auto answer = RangeResponseHeaders(*stored, 0, 1, 10);
  CHECK(answer->response_code() == 206);
  CHECK_FALSE(answer->HasHeader(kPiecesHeader));
  REQUIRE(answer->GetNormalizedHeader("content-range", &v));
  CHECK(v == "bytes 0-1/10");
  CHECK(answer->GetContentLength() == 2);
  auto whole = CompletedEntryHeaders(*stored, 10);
  CHECK(whole->response_code() == 200);
  CHECK(whole->GetContentLength() == 10);
  CHECK_FALSE(whole->HasHeader(kPiecesHeader));
  CHECK(whole->HasHeader("content-type"));
  auto unsat = UnsatisfiableRangeHeaders(*whole, 10);
  CHECK(unsat->response_code() == 416);
  REQUIRE(unsat->GetNormalizedHeader("content-range", &v));
  CHECK(v == "bytes */10");
  CHECK(unsat->GetContentLength() == 0);
  CHECK(PartialEntryKey("http://a.test/f") == "http://a.test/f#partial");
}

}  // namespace
}  // namespace netstack::test
