// The keep-alive rule both ends use: a response head alone (what a simulated server decides its
// close by) and the whole response through HttpStreamParser (what the client reuses by) agree.
#include "net/http/http_keep_alive.h"

#include <catch2/catch.hpp>
#include <string>

#include "net/http/http_stream_parser.h"

namespace netstack {
namespace {

struct Case {
  const char* name;
  std::string head;
  std::string body;  // framed as the head says
  bool head_request;
  bool keep_alive;
};

const Case kCases[] = {
    {"HTTP/1.1, Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", "abc", false,
     true},
    {"HTTP/1.1, chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
     "3\r\nabc\r\n0\r\n\r\n", false, true},
    {"Connection: close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\n",
     "abc", false, false},
    {"a close token after another",
     "HTTP/1.1 200 OK\r\nConnection: x-a, Close\r\nContent-Length: 0\r\n\r\n", "", false, false},
    {"HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\n", "abc", false, false},
    {"HTTP/1.0, keep-alive",
     "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 3\r\n\r\n", "abc", false, true},
    {"HTTP/1.0, Proxy-Connection: keep-alive",
     "HTTP/1.0 200 OK\r\nProxy-Connection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", "", false,
     true},
    {"HTTP/1.1, Upgrade and Close tokens",
     "HTTP/1.1 200 OK\r\nConnection: Upgrade, Close\r\nContent-Length: 0\r\n\r\n", "", false,
     false},
    {"delimited by the close", "HTTP/1.1 200 OK\r\n\r\n", "abc", false, false},
    {"204, no framing", "HTTP/1.1 204 No Content\r\n\r\n", "", false, true},
    {"304, no framing", "HTTP/1.1 304 Not Modified\r\n\r\n", "", false, true},
    {"HEAD, no framing", "HTTP/1.1 200 OK\r\n\r\n", "", true, true},
    {"HEAD, Content-Length of the GET", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", "", true,
     true},
    {"chunked and Content-Length",
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
     "3\r\nabc\r\n0\r\n\r\n", false, false},
};

TEST_CASE("keep-alive: a response head alone and the client's parser agree", "[http][keepalive]") {
  for (const Case& c : kCases) {
    INFO(c.name);
    CHECK(ResponseHeadKeepsConnectionAlive(c.head, c.head_request) == c.keep_alive);
    HttpStreamParser parser(HttpStreamParser::Options{.head_request = c.head_request});
    const std::string wire = c.head + c.body;
    REQUIRE(parser.Consume(wire.data(), wire.size()) == OK);
    CHECK(parser.headers_complete());
    CHECK(parser.CanReuseConnection() == c.keep_alive);
  }
}

TEST_CASE("keep-alive: a head that does not parse, or is cut short, ends the connection",
          "[http][keepalive]") {
  CHECK_FALSE(ResponseHeadKeepsConnectionAlive("HTTP/1.1 2x0 OK\r\n\r\n", false));
  CHECK_FALSE(ResponseHeadKeepsConnectionAlive("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n", false));
  CHECK_FALSE(ResponseHeadKeepsConnectionAlive("", false));
  CHECK_FALSE(ResponseHeadKeepsConnectionAlive("not http at all\r\n\r\n", false));
}

TEST_CASE("keep-alive: bodiless responses", "[http][keepalive]") {
  CHECK(ResponseHasNoBody(200, true));
  CHECK(ResponseHasNoBody(100, false));
  CHECK(ResponseHasNoBody(101, false));
  // The client's parser rejects a 101 (it never asks to upgrade); the rule alone still says
  // the connection is not reused after one.
  CHECK_FALSE(ResponseHeadKeepsConnectionAlive(
      "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n", false));
  CHECK(ResponseHasNoBody(204, false));
  CHECK(ResponseHasNoBody(304, false));
  CHECK_FALSE(ResponseHasNoBody(200, false));
  CHECK_FALSE(ResponseHasNoBody(205, false));
}

}  // namespace
}  // namespace netstack
