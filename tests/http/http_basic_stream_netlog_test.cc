// HttpBasicStream's NetLog events: order, pairing, parameters, and the stripping of
// credentials and cookies from logged headers.
#include <catch2/catch.hpp>
#include <string>

#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "net/http/http_basic_stream.h"
#include "tests/http/http_basic_stream_test_util.h"
#include "tests/support/scripted_stream_socket.h"

using namespace netstack;
using namespace netstack::test;

TEST_CASE("basic stream: NetLog events") {
  VirtualScheduler s;
  NetLog log(s);
  Recorder rec;
  log.AddObserver(&rec);
  auto source = NetLogWithSource::Make(&log, NetLogSourceType::URL_REQUEST);
  ScriptedStreamSocket socket(
      s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", IoMode::kAsync)});
  HttpBasicStream stream(&socket, s, source);
  HttpRequestMessage post = Get("POST");
  post.body = "x=1";
  CHECK(SendAll(s, stream, post) == OK);
  CHECK(ReadHeaders(s, stream) == OK);
  std::string body;
  CHECK(ReadBody(s, stream, &body, 3) == 0);
  log.RemoveObserver(&rec);

  using T = NetLogEventType;
  using P = NetLogEventPhase;
  std::vector<std::pair<T, P>> expected = {
      {T::HTTP_TRANSACTION_SEND_REQUEST, P::BEGIN},
      {T::HTTP_TRANSACTION_SEND_REQUEST_HEADERS, P::NONE},
      {T::HTTP_TRANSACTION_SEND_REQUEST, P::END},
      {T::HTTP_TRANSACTION_READ_HEADERS, P::BEGIN},
      {T::HTTP_TRANSACTION_READ_RESPONSE_HEADERS, P::NONE},
      {T::HTTP_TRANSACTION_READ_HEADERS, P::END},
      {T::HTTP_TRANSACTION_READ_BODY, P::BEGIN},
      {T::URL_REQUEST_JOB_FILTERED_BYTES_READ, P::NONE},
      {T::URL_REQUEST_JOB_FILTERED_BYTES_READ, P::NONE},
      {T::HTTP_TRANSACTION_READ_BODY, P::END},
  };
  REQUIRE(rec.entries.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO(i);
    CHECK(rec.entries[i].type == expected[i].first);
    CHECK(rec.entries[i].phase == expected[i].second);
    CHECK(rec.entries[i].source.id == source.source().id);
  }
  const nlohmann::json& sent = rec.entries[1].params;
  CHECK(sent["line"] == "POST /index.html HTTP/1.1\r\n");
  CHECK(sent["headers"] ==
        nlohmann::json::array(
            {"Host: example.test", "Accept-Encoding: gzip, deflate, br", "Content-Length: 3"}));
  CHECK(rec.entries[4].params["headers"][0] == "HTTP/1.1 200 OK");
  CHECK(rec.entries[7].params["byte_count"] == 3);
  CHECK(rec.entries[8].params["byte_count"] == 2);
  CHECK(rec.entries[9].params.is_null());
}

TEST_CASE("basic stream: failures end their NetLog event with the error") {
  VirtualScheduler s;
  NetLog log(s);
  Recorder rec;
  log.AddObserver(&rec);
  ScriptedStreamSocket socket(s, {ScriptedRead::Eof()});
  HttpBasicStream stream(&socket, s, NetLogWithSource::Make(&log, NetLogSourceType::URL_REQUEST));
  CHECK(SendAll(s, stream, Get()) == OK);
  CHECK(ReadHeaders(s, stream) == ERR_EMPTY_RESPONSE);
  REQUIRE_FALSE(rec.entries.empty());
  CHECK(rec.entries.back().type == NetLogEventType::HTTP_TRANSACTION_READ_HEADERS);
  CHECK(rec.entries.back().params["net_error"] == ERR_EMPTY_RESPONSE);
  log.RemoveObserver(&rec);
}

TEST_CASE("basic stream: credentials and cookies are stripped from logged headers") {
  VirtualScheduler s;
  NetLog log(s);
  Recorder rec;
  log.AddObserver(&rec);
  ScriptedStreamSocket socket(
      s, {ScriptedRead::Data("HTTP/1.1 200 OK\r\nSet-Cookie: id=secret; HttpOnly\r\n"
                             "set-cookie2: old=1\r\nX-Other: kept\r\nContent-Length: 0\r\n\r\n")});
  HttpBasicStream stream(&socket, s, NetLogWithSource::Make(&log, NetLogSourceType::URL_REQUEST));
  HttpRequestMessage request = Get();
  request.headers.SetHeader("Authorization", "Basic dXNlcjpwYXNz");
  request.headers.SetHeader("proxy-authorization", "Bearer t0k3n");
  request.headers.SetHeader("Cookie", "a=1; b=2");
  request.headers.SetHeader("Cookie-Like", "visible");
  CHECK(SendAll(s, stream, request) == OK);
  CHECK(ReadHeaders(s, stream) == OK);
  log.RemoveObserver(&rec);
  // The wire carries the values; only the log loses them.
  CHECK(socket.written().find("Authorization: Basic dXNlcjpwYXNz\r\n") != std::string::npos);

  const NetLogEntry* sent = nullptr;
  const NetLogEntry* received = nullptr;
  for (const NetLogEntry& e : rec.entries) {
    if (e.type == NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST_HEADERS) sent = &e;
    if (e.type == NetLogEventType::HTTP_TRANSACTION_READ_RESPONSE_HEADERS) received = &e;
  }
  REQUIRE(sent);
  REQUIRE(received);
  CHECK(sent->params["headers"] ==
        nlohmann::json::array({"Host: example.test", "Accept-Encoding: gzip, deflate, br",
                               "Authorization: [18 bytes were stripped]",
                               "proxy-authorization: [12 bytes were stripped]",
                               "Cookie: [8 bytes were stripped]", "Cookie-Like: visible"}));
  CHECK(received->params["headers"] ==
        nlohmann::json::array({"HTTP/1.1 200 OK", "Set-Cookie: [19 bytes were stripped]",
                               "set-cookie2: [5 bytes were stripped]", "X-Other: kept",
                               "Content-Length: 0"}));
  std::string dump = sent->params.dump() + received->params.dump();
  CHECK(dump.find("secret") == std::string::npos);
  CHECK(dump.find("dXNlcjpwYXNz") == std::string::npos);
  CHECK(dump.find("t0k3n") == std::string::npos);
}
