#include "net/server/http_request_reader.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace netstack {
namespace {

using State = HttpRequestReader::State;

struct Parsed {
  std::vector<HttpServerRequest> requests;
  std::vector<bool> keep_alive;
  State final_state = State::kReading;
  int error_status = 0;
  std::string error_message;
};

// Feeds `wire` in slices of at most `step` bytes (0: all at once), taking each request.
Parsed FeedAll(const std::string& wire, size_t step, HttpRequestReader::Limits limits = {}) {
  HttpRequestReader reader(limits);
  Parsed parsed;
  size_t offset = 0;
  while (offset < wire.size()) {
    size_t end = step == 0 ? wire.size() : std::min(wire.size(), offset + step);
    while (offset < end) {
      size_t n = reader.Feed(wire.data() + offset, end - offset);
      offset += n;
      if (reader.state() == State::kRequest) {
        parsed.keep_alive.push_back(reader.keep_alive());
        parsed.requests.push_back(reader.TakeRequest());
      } else if (reader.state() == State::kError) {
        parsed.final_state = State::kError;
        parsed.error_status = reader.error_status();
        parsed.error_message = reader.error_message();
        CHECK(reader.Feed(wire.data() + offset, wire.size() - offset) == 0);  // stays failed
        return parsed;
      } else {
        REQUIRE(offset == end);  // kReading consumed the whole slice
      }
    }
  }
  parsed.final_state = reader.state();
  return parsed;
}

const char kTwoRequests[] =
    "GET /api/cache?q=a%20b+c&limit=10&q=last HTTP/1.1\r\n"
    "Host: 127.0.0.1:9222\r\n"
    "X-Netstack-Token:   abc \t\r\n"
    "\r\n"
    "POST /api/dns/clear HTTP/1.1\r\n"
    "Host: 127.0.0.1:9222\r\n"
    "Content-Type: application/json\r\n"
    "Content-Length: 7\r\n"
    "Connection: close\r\n"
    "\r\n"
    "{\"a\":1}";

void CheckTwoRequests(const Parsed& parsed) {
  REQUIRE(parsed.final_state == State::kReading);
  REQUIRE(parsed.requests.size() == 2);
  const HttpServerRequest& get = parsed.requests[0];
  CHECK(get.method == "GET");
  CHECK(get.target == "/api/cache?q=a%20b+c&limit=10&q=last");
  CHECK(get.path == "/api/cache");
  CHECK(get.query.at("q") == "last");  // the last of a repeated name wins
  CHECK(get.query.at("limit") == "10");
  CHECK(get.Header("x-netstack-token") == "abc");
  CHECK(get.Header("host") == "127.0.0.1:9222");
  CHECK(get.body.empty());
  CHECK(parsed.keep_alive[0]);
  const HttpServerRequest& post = parsed.requests[1];
  CHECK(post.method == "POST");
  CHECK(post.path == "/api/dns/clear");
  CHECK(post.query.empty());
  CHECK(post.body == "{\"a\":1}");
  CHECK(post.Header("content-type") == "application/json");
  CHECK_FALSE(parsed.keep_alive[1]);
}

TEST_CASE("reader: pipelined requests split at every byte boundary", "[server][reader]") {
  const std::string wire = kTwoRequests;
  CheckTwoRequests(FeedAll(wire, 0));
  CheckTwoRequests(FeedAll(wire, 1));
  for (size_t split = 1; split < wire.size(); ++split) {
    HttpRequestReader reader;
    std::vector<HttpServerRequest> requests;
    std::vector<bool> keep_alive;
    const std::string parts[2] = {wire.substr(0, split), wire.substr(split)};
    for (const std::string& part : parts) {
      size_t offset = 0;
      while (offset < part.size()) {
        offset += reader.Feed(part.data() + offset, part.size() - offset);
        REQUIRE(reader.state() != State::kError);
        if (reader.state() == State::kRequest) {
          keep_alive.push_back(reader.keep_alive());
          requests.push_back(reader.TakeRequest());
        }
      }
    }
    INFO("split at " << split);
    Parsed parsed{requests, keep_alive, reader.state(), 0, ""};
    CheckTwoRequests(parsed);
  }
}

TEST_CASE("reader: Feed stops right after a request", "[server][reader]") {
  const std::string wire = kTwoRequests;
  HttpRequestReader reader;
  size_t first = reader.Feed(wire.data(), wire.size());
  REQUIRE(reader.state() == State::kRequest);
  CHECK(wire.compare(first, 5, "POST ") == 0);
  CHECK(reader.Feed(wire.data() + first, wire.size() - first) == 0);  // until TakeRequest
  CHECK(reader.TakeRequest().path == "/api/cache");
  CHECK(reader.state() == State::kReading);
  CHECK_FALSE(reader.in_request());
  CHECK(reader.Feed(wire.data() + first, 3) == 3);
  CHECK(reader.in_request());
}

TEST_CASE("reader: the raw target is preserved, never normalized or decoded", "[server][reader]") {
  Parsed parsed = FeedAll(
      "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /%2e%2e/%2Fetc?x=%2e%2e%2f HTTP/1.1\r\nHost: x\r\n\r\n",
      0);
  REQUIRE(parsed.requests.size() == 2);
  CHECK(parsed.requests[0].target == "/../../etc/passwd");
  CHECK(parsed.requests[0].path == "/../../etc/passwd");
  CHECK(parsed.requests[1].path == "/%2e%2e/%2Fetc");  // the path is not decoded
  CHECK(parsed.requests[1].query.at("x") == "../");    // the query is
}

TEST_CASE("reader: query decoding", "[server][reader]") {
  auto q = HttpRequestReader::ParseQuery("/p?a=1&b=x+y%2Bz&c&=skip&&d=%zz%4&e=%3Cscript%3E#frag");
  CHECK(q.at("a") == "1");
  CHECK(q.at("b") == "x y+z");
  CHECK(q.at("c").empty());
  CHECK(q.count("") == 0);
  CHECK(q.at("d") == "%zz%4");  // invalid escapes kept as written
  CHECK(q.at("e") == "<script>");
  CHECK(q.size() == 5);
  CHECK(HttpRequestReader::ParseQuery("/no-query").empty());
  CHECK(HttpRequestReader::DecodeQueryComponent("%00%ff").size() == 2);
}

TEST_CASE("reader: header names lower-cased, values trimmed, order kept", "[server][reader]") {
  Parsed parsed = FeedAll("GET / HTTP/1.1\r\nHOST: h\r\nX-A:  1 \r\nx-a: 2\r\nEmpty:\r\n\r\n", 1);
  REQUIRE(parsed.requests.size() == 1);
  const auto& headers = parsed.requests[0].headers;
  REQUIRE(headers.size() == 4);
  CHECK(headers[0] == std::make_pair(std::string("host"), std::string("h")));
  CHECK(headers[1].first == "x-a");
  CHECK(headers[1].second == "1");
  CHECK(headers[2].second == "2");
  CHECK(parsed.requests[0].Header("x-a") == "1");  // the first one
  CHECK(parsed.requests[0].HasHeader("empty"));
  CHECK(parsed.requests[0].Header("empty").empty());
  CHECK_FALSE(parsed.requests[0].HasHeader("absent"));
}

TEST_CASE("reader: keep-alive semantics", "[server][reader]") {
  auto keep_alive = [](const std::string& wire) {
    Parsed parsed = FeedAll(wire, 0);
    REQUIRE(parsed.requests.size() == 1);
    return static_cast<bool>(parsed.keep_alive[0]);
  };
  CHECK(keep_alive("GET / HTTP/1.1\r\nHost: h\r\n\r\n"));
  CHECK_FALSE(keep_alive("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
  CHECK_FALSE(keep_alive("GET / HTTP/1.0\r\n\r\n"));
  CHECK(keep_alive("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
}

TEST_CASE("reader: head over the bound is 431", "[server][reader]") {
  HttpRequestReader::Limits limits;
  limits.max_head_bytes = 100;
  std::string wire = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + std::string(200, 'a') + "\r\n\r\n";
  for (size_t step : {size_t{0}, size_t{1}, size_t{7}}) {
    Parsed parsed = FeedAll(wire, step, limits);
    CHECK(parsed.final_state == State::kError);
    CHECK(parsed.error_status == 431);
    CHECK(parsed.error_message.find("100") != std::string::npos);
  }
  // A head of exactly the bound is fine.
  std::string small = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
  limits.max_head_bytes = small.size();
  CHECK(FeedAll(small, 1, limits).requests.size() == 1);
  // A long target counts too.
  limits.max_head_bytes = 100;
  Parsed parsed = FeedAll("GET /" + std::string(300, 'x') + " HTTP/1.1\r\n", 0, limits);
  CHECK(parsed.error_status == 431);
}

TEST_CASE("reader: body over the bound is 413", "[server][reader]") {
  HttpRequestReader::Limits limits;
  limits.max_body_bytes = 10;
  // Announced: refused at the end of the head, before any body byte.
  Parsed announced = FeedAll("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", 0, limits);
  CHECK(announced.error_status == 413);
  // Exactly the bound is fine.
  Parsed ok =
      FeedAll("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789", 1, limits);
  REQUIRE(ok.requests.size() == 1);
  CHECK(ok.requests[0].body == "0123456789");
  // Chunked: refused when the data passes the bound.
  Parsed chunked = FeedAll(
      "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n"
      "8\r\n01234567\r\n0\r\n\r\n",
      1, limits);
  CHECK(chunked.error_status == 413);
  // Chunk framing is bounded too: many empty-extension lines.
  std::string framing = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 2000; ++i) framing += "1;e=xxxxxxxx\r\nA\r\n";
  limits.max_body_bytes = 4000;
  Parsed framed = FeedAll(framing, 0, limits);
  CHECK(framed.error_status == 413);
}

TEST_CASE("reader: chunked bodies are decoded, trailers dropped", "[server][reader]") {
  Parsed parsed = FeedAll(
      "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nTrailer-A: 1\r\n\r\n"
      "GET /next HTTP/1.1\r\nHost: h\r\n\r\n",
      1);
  REQUIRE(parsed.requests.size() == 2);
  CHECK(parsed.requests[0].body == "abcde");
  CHECK_FALSE(parsed.requests[0].HasHeader("trailer-a"));
  CHECK(parsed.requests[1].path == "/next");
}

TEST_CASE("reader: malformed input is 400", "[server][reader]") {
  const char* cases[] = {
      "BOGUS / HTTP/1.1\r\nHost: h\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: h\r\nBad Header\r\n\r\n",
      "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n",
      "GET / HTTP/1.1\r\n\r\n",                        // no Host
      "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",  // two Hosts
      "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  // a TLS ClientHello
  };
  for (const char* wire : cases) {
    INFO(wire);
    for (size_t step : {size_t{0}, size_t{1}}) {
      Parsed parsed = FeedAll(wire, step);
      CHECK(parsed.final_state == State::kError);
      CHECK(parsed.error_status == 400);
      CHECK(parsed.error_message.find('\n') == std::string::npos);
      CHECK_FALSE(parsed.error_message.empty());
    }
  }
  Parsed version = FeedAll("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 0);
  CHECK(version.error_status == 505);
}

TEST_CASE("reader: empty lines after a request are consumed with it", "[server][reader]") {
  const std::string one = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";
  const std::string wire = one + "\r\n\r\n" + one;
  HttpRequestReader reader;
  // The request ends after the empty lines that follow it: that is where the next one starts.
  CHECK(reader.Feed(wire.data(), wire.size()) == one.size() + 4);
  REQUIRE(reader.state() == State::kRequest);
  reader.TakeRequest();
  CHECK_FALSE(reader.in_request());
  CHECK(reader.Feed(wire.data() + one.size() + 4, one.size()) == one.size());
  CHECK(reader.state() == State::kRequest);
  // Empty lines in a later read, before a request line, are skipped by the parser.
  Parsed parsed = FeedAll(one + "\r\n" + one, 1);
  CHECK(parsed.requests.size() == 2);
}

TEST_CASE("reader: bodies counted and not kept when told so", "[server][reader]") {
  HttpRequestReader::Limits limits;
  limits.keep_body = false;
  limits.max_body_bytes = 5;
  Parsed parsed = FeedAll(
      "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
      "POST /y HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
      1, limits);
  REQUIRE(parsed.requests.size() == 2);
  CHECK(parsed.requests[0].body.empty());
  CHECK(parsed.requests[0].body_bytes == 3);
  CHECK(parsed.requests[1].body.empty());
  CHECK(parsed.requests[1].body_bytes == 5);
  // The bound still holds for bodies that are only counted.
  Parsed over = FeedAll(
      "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n0\r\n\r\n", 0,
      limits);
  CHECK(over.error_status == 413);
  // Kept bodies are counted too.
  Parsed kept = FeedAll("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nab", 0);
  REQUIRE(kept.requests.size() == 1);
  CHECK(kept.requests[0].body == "ab");
  CHECK(kept.requests[0].body_bytes == 2);
}

TEST_CASE("reader: only Host kept when told so, Host still checked", "[server][reader]") {
  HttpRequestReader::Limits limits;
  limits.keep_headers = false;
  Parsed parsed =
      FeedAll("GET / HTTP/1.1\r\nAccept: */*\r\nHOST:  a.test \r\nX-B: 1\r\n\r\n", 1, limits);
  REQUIRE(parsed.requests.size() == 1);
  REQUIRE(parsed.requests[0].headers.size() == 1);
  CHECK(parsed.requests[0].Header("host") == "a.test");
  CHECK(FeedAll("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 0, limits).error_status == 400);
  CHECK(FeedAll("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 0, limits).error_status == 400);
}

TEST_CASE("reader: upgrade requests are flagged", "[server][reader]") {
  auto upgrade = [](const std::string& wire) {
    HttpRequestReader reader;
    reader.Feed(wire.data(), wire.size());
    REQUIRE(reader.state() == State::kRequest);
    return reader.upgrade();
  };
  CHECK_FALSE(upgrade("GET / HTTP/1.1\r\nHost: h\r\n\r\n"));
  CHECK(upgrade("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"));
  CHECK(upgrade("CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n"));
  // Upgrade without the Connection token is only a header.
  CHECK_FALSE(upgrade("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n"));
}

}  // namespace
}  // namespace netstack
