#include "net/http/http_stream_parser.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/base/net_error.h"

using namespace netstack;

namespace {

struct Parsed {
  int rv = OK;     // first error from Consume, or OK
  int eof_rv = 1;  // ConsumeEof's result when `eof` was asked for (1: not called)
  std::shared_ptr<const HttpResponseHeaders> headers;
  std::string body;
  bool complete = false;
  bool reusable = false;
  size_t leftover = 0;
  std::string error_message;
};

// Feeds `pieces` in order (draining the body after each), then EOF if `eof`.
Parsed Run(const std::vector<std::string>& pieces, bool eof,
           HttpStreamParser::Options options = {}) {
  HttpStreamParser parser(options);
  Parsed out;
  char buf[7];  // small on purpose: ReadBody is called repeatedly
  auto drain = [&] {
    while (size_t n = parser.ReadBody(buf, sizeof(buf))) out.body.append(buf, n);
  };
  for (const std::string& piece : pieces) {
    int rv = parser.Consume(piece.data(), piece.size());
    drain();
    if (rv != OK) {
      out.rv = rv;
      break;
    }
  }
  if (eof && out.rv == OK) {
    out.eof_rv = parser.ConsumeEof();
    drain();
  }
  out.headers = parser.response_headers();
  out.complete = parser.message_complete();
  out.reusable = parser.CanReuseConnection();
  out.leftover = parser.leftover_bytes();
  out.error_message = parser.error_message();
  return out;
}

Parsed RunWhole(const std::string& response, bool eof = false,
                HttpStreamParser::Options options = {}) {
  return Run({response}, eof, options);
}

std::vector<std::string> SplitAt(const std::string& s, size_t at) {
  return {s.substr(0, at), s.substr(at)};
}

std::vector<std::string> Bytes(const std::string& s) {
  std::vector<std::string> out;
  for (char c : s) out.emplace_back(1, c);
  return out;
}

// Checks that every two-piece split, and one byte at a time, parses like the whole.
void CheckEverySplit(const std::string& response, bool eof, const std::string& body,
                     bool reusable) {
  std::vector<std::vector<std::string>> feeds;
  for (size_t at = 0; at <= response.size(); ++at) feeds.push_back(SplitAt(response, at));
  feeds.push_back(Bytes(response));
  for (const auto& feed : feeds) {
    Parsed p = Run(feed, eof);
    INFO("first piece: " << feed[0].size() << " bytes of " << response.size());
    REQUIRE(p.rv == OK);
    REQUIRE(p.complete);
    REQUIRE(p.headers);
    CHECK(p.headers->response_code() == 200);
    CHECK(p.headers->reason() == "OK");
    CHECK(p.headers->HasHeaderValue("x-test", "yes"));
    CHECK(p.body == body);
    CHECK(p.reusable == reusable);
  }
}

}  // namespace

TEST_CASE("parser: Content-Length body, split at every byte") {
  CheckEverySplit("HTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-Test: yes\r\n\r\nhello world", false,
                  "hello world", true);
}

TEST_CASE("parser: chunked body with extensions and trailers, split at every byte") {
  CheckEverySplit(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Test: yes\r\n\r\n"
      "5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nTrailer-A: x\r\n\r\n",
      false, "hello world", true);
}

TEST_CASE("parser: close-delimited body, split at every byte") {
  CheckEverySplit("HTTP/1.1 200 OK\r\nX-Test: yes\r\n\r\nuntil the end", true, "until the end",
                  false);
}

TEST_CASE("parser: headers split inside an obs-folded value") {
  CheckEverySplit("HTTP/1.1 200 OK\r\nX-Test:\r\n yes\r\nContent-Length: 0\r\n\r\n", false, "",
                  true);
}

TEST_CASE("parser: chunked framing is removed, not the content encoding") {
  Parsed p = RunWhole(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n"
      "3\r\n\x1f\x8b\x08\r\n0\r\n\r\n");
  CHECK(p.complete);
  CHECK(p.body == "\x1f\x8b\x08");
}

TEST_CASE("parser: 1xx responses are skipped, 101 is an error") {
  Parsed p = RunWhole(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  REQUIRE(p.complete);
  CHECK(p.headers->response_code() == 200);
  CHECK_FALSE(p.headers->HasHeader("link"));
  CHECK(p.body == "ok");
  CHECK(p.reusable);

  // An HTTP/1.0 interim response does not end the parse (the library alone would stop).
  Parsed old = RunWhole("HTTP/1.0 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\nbody", true);
  CHECK(old.eof_rv == OK);
  CHECK(old.headers->response_code() == 200);
  CHECK(old.body == "body");

  HttpStreamParser parser({});
  std::string s = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n";
  for (char c : s) REQUIRE(parser.Consume(&c, 1) == OK);
  CHECK(parser.informational_responses() == 1);
  CHECK(parser.message_complete());

  Parsed up = RunWhole(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
      "\x81\x05hello");
  // Nothing asked to upgrade: a switch of protocols is no answer (issue 17).
  CHECK(up.rv == ERR_INVALID_HTTP_RESPONSE);
  CHECK_FALSE(up.complete);
  CHECK_FALSE(up.headers);
  CHECK_THAT(up.error_message, Catch::Contains("101 Switching Protocols"));
  CHECK_FALSE(up.reusable);
}

TEST_CASE("parser: HEAD, 204 and 304 responses have no body") {
  Parsed head =
      RunWhole("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", false, {.head_request = true});
  CHECK(head.complete);
  CHECK(head.body.empty());
  CHECK(head.reusable);
  CHECK(head.headers->GetContentLength() == 10);

  Parsed head_chunked = RunWhole("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false,
                                 {.head_request = true});
  CHECK(head_chunked.complete);
  CHECK(head_chunked.reusable);

  Parsed no_content = RunWhole("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n");
  CHECK(no_content.complete);
  CHECK(no_content.reusable);

  Parsed not_modified = RunWhole("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n");
  CHECK(not_modified.complete);
  CHECK(not_modified.body.empty());
  CHECK(not_modified.reusable);

  // Without a body, bytes after the headers are leftovers: the connection is not reused.
  Parsed extra = RunWhole("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello");
  CHECK(extra.complete);
  CHECK(extra.leftover == 5);
  CHECK_FALSE(extra.reusable);
}

TEST_CASE("parser: keep-alive rules") {
  CHECK(RunWhole("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").reusable);
  CHECK_FALSE(
      RunWhole("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").reusable);
  CHECK_FALSE(
      RunWhole("HTTP/1.1 200 OK\r\nConnection: te, close\r\nContent-Length: 0\r\n\r\n").reusable);
  CHECK_FALSE(RunWhole("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").reusable);
  CHECK(
      RunWhole("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n").reusable);
  // A body delimited by the close can never be followed by another response.
  Parsed eof = RunWhole("HTTP/1.1 200 OK\r\n\r\nx", true);
  CHECK(eof.complete);
  CHECK_FALSE(eof.reusable);
  // Ambiguous framing (chunked and Content-Length): read as chunked, then closed.
  Parsed both = RunWhole(
      "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n"
      "2\r\nok\r\n0\r\n\r\n");
  CHECK(both.complete);
  CHECK(both.body == "ok");
  CHECK_FALSE(both.reusable);
  // The response is complete but the stream then ended: not reusable either.
  Parsed then_eof = RunWhole("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", true);
  CHECK(then_eof.eof_rv == OK);
  CHECK_FALSE(then_eof.reusable);
}

TEST_CASE("parser: leftover bytes after the response are not consumed") {
  HttpStreamParser parser({});
  std::string s = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\n";
  CHECK(parser.Consume(s.data(), s.size()) == OK);
  CHECK(parser.message_complete());
  CHECK(parser.leftover_bytes() == 17);
  CHECK(parser.bytes_received() == static_cast<int64_t>(s.size() - 17));
  CHECK(parser.PeekBody() == "abc");
  CHECK_FALSE(parser.CanReuseConnection());
}

TEST_CASE("parser: header size bound") {
  HttpStreamParser::Options small{.max_header_bytes = 100};
  std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: ";
  std::string exact = head + std::string(100 - head.size() - 4, 'a') + "\r\n\r\n";
  REQUIRE(exact.size() == 100);
  for (const auto& feed : {std::vector<std::string>{exact}, Bytes(exact)}) {
    Parsed ok = Run(feed, false, small);
    CHECK(ok.rv == OK);
    CHECK(ok.complete);
  }
  std::string over = head + std::string(100 - head.size() - 3, 'a') + "\r\n\r\n";
  for (const auto& feed : {std::vector<std::string>{over}, Bytes(over)}) {
    Parsed p = Run(feed, false, small);
    CHECK(p.rv == ERR_RESPONSE_HEADERS_TOO_BIG);
  }

  // The default bound is Chrome's 256 KiB, above http-parser's own 80 KiB default.
  std::string big =
      "HTTP/1.1 200 OK\r\nX-Big: " + std::string(200 * 1024, 'b') + "\r\nContent-Length: 0\r\n\r\n";
  CHECK(RunWhole(big).complete);
  std::string too_big = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(300 * 1024, 'b') + "\r\n";
  Parsed p = Run({too_big.substr(0, 1000), too_big.substr(1000)}, false);
  CHECK(p.rv == ERR_RESPONSE_HEADERS_TOO_BIG);

  // Interim responses count: endless 1xx responses cannot go on forever.
  std::string interims;
  while (interims.size() < 120) interims += "HTTP/1.1 100 Continue\r\n\r\n";
  CHECK(RunWhole(interims, false, small).rv == ERR_RESPONSE_HEADERS_TOO_BIG);

  // Trailers count too.
  std::string trailers =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: " + std::string(200, 't') +
      "\r\n\r\n";
  CHECK(RunWhole(trailers, false, small).rv == ERR_RESPONSE_HEADERS_TOO_BIG);
}

TEST_CASE("parser: malformed responses") {
  Parsed bad_status = RunWhole("HTTP/1.1 2x0 OK\r\n\r\n");
  CHECK(bad_status.rv == ERR_INVALID_HTTP_RESPONSE);
  CHECK_THAT(bad_status.error_message, Catch::Contains("invalid HTTP status code"));

  Parsed not_http = RunWhole("hello world\r\n\r\n");
  CHECK(not_http.rv == ERR_INVALID_HTTP_RESPONSE);
  // The message is the detail: UrlRequest puts ErrorToMessage in front of it, once.
  CHECK_THAT(not_http.error_message, Catch::Contains("(after "));
  CHECK_THAT(not_http.error_message, !Catch::Contains(ErrorToMessage(ERR_INVALID_HTTP_RESPONSE)));

  CHECK(RunWhole("HTTP/1.1 099 Low\r\n\r\n").rv == ERR_INVALID_HTTP_RESPONSE);
  CHECK(RunWhole("HTTP/1.1 200 OK\r\nBad\x01Header: x\r\n\r\n").rv == ERR_INVALID_HTTP_RESPONSE);
  CHECK(RunWhole("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n").rv == ERR_INVALID_HTTP_RESPONSE);

  Parsed bad_chunk =
      RunWhole("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n");
  CHECK(bad_chunk.rv == ERR_INVALID_CHUNKED_ENCODING);  // Chrome's name for it
  CHECK_THAT(bad_chunk.error_message, Catch::Contains("chunk size"));

  // Errors are sticky.
  HttpStreamParser parser({});
  std::string s = "XTTP/1.1 200 OK\r\n";
  CHECK(parser.Consume(s.data(), s.size()) == ERR_INVALID_HTTP_RESPONSE);
  CHECK(parser.Consume("HTTP", 4) == ERR_INVALID_HTTP_RESPONSE);
  CHECK(parser.ConsumeEof() == ERR_INVALID_HTTP_RESPONSE);
  CHECK(parser.has_error());
}

TEST_CASE("parser: end of stream at each stage") {
  CHECK(RunWhole("", true).eof_rv == ERR_EMPTY_RESPONSE);
  CHECK(RunWhole("HTTP/1.1 200 OK\r\nContent-Le", true).eof_rv == ERR_INVALID_HTTP_RESPONSE);
  CHECK(RunWhole("HTTP/1.1 100 Continue\r\n\r\n", true).eof_rv == ERR_INVALID_HTTP_RESPONSE);

  Parsed chunked =
      RunWhole("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nab", true);
  CHECK(chunked.eof_rv == ERR_INCOMPLETE_CHUNKED_ENCODING);
  CHECK(chunked.body == "helloab");
  CHECK(RunWhole("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", true)
            .eof_rv == ERR_INCOMPLETE_CHUNKED_ENCODING);

  Parsed short_body = RunWhole("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true);
  CHECK(short_body.eof_rv == ERR_CONTENT_LENGTH_MISMATCH);
  CHECK_THAT(short_body.error_message, Catch::Contains("3 of 10"));

  Parsed complete = RunWhole("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", true);
  CHECK(complete.eof_rv == OK);
  CHECK(complete.body == "abc");
}

TEST_CASE("parser: request serialization") {
  HttpRequestMessage get;
  get.target = "/a?b=c";
  get.host = "example.com:8080";
  get.headers.SetHeader("Accept-Encoding", "gzip, br");
  get.headers.SetHeader("Connection", "keep-alive");
  std::string wire;
  REQUIRE(HttpStreamParser::SerializeRequest(get, &wire) == OK);
  CHECK(wire ==
        "GET /a?b=c HTTP/1.1\r\nHost: example.com:8080\r\nAccept-Encoding: gzip, br\r\n"
        "Connection: keep-alive\r\n\r\n");

  HttpRequestMessage post;
  post.method = "POST";
  post.host = "h";
  post.headers.SetHeader("Host", "override");
  post.body = "a=1";
  REQUIRE(HttpStreamParser::SerializeRequest(post, &wire) == OK);
  CHECK(wire == "POST / HTTP/1.1\r\nHost: override\r\nContent-Length: 3\r\n\r\na=1");

  post.body.clear();
  REQUIRE(HttpStreamParser::SerializeRequest(post, &wire) == OK);
  CHECK(wire == "POST / HTTP/1.1\r\nHost: override\r\nContent-Length: 0\r\n\r\n");

  HttpRequestMessage bad;
  bad.method = "GE T";
  CHECK(HttpStreamParser::SerializeRequest(bad, &wire) == ERR_INVALID_ARGUMENT);
  bad.method = "GET";
  bad.target = "/a b";
  CHECK(HttpStreamParser::SerializeRequest(bad, &wire) == ERR_INVALID_ARGUMENT);
  bad.target = "/\r\nX: y";
  CHECK(HttpStreamParser::SerializeRequest(bad, &wire) == ERR_INVALID_ARGUMENT);
  bad.target = "/";
  bad.host = "a\r\nb";
  CHECK(HttpStreamParser::SerializeRequest(bad, &wire) == ERR_INVALID_ARGUMENT);
}
