#include "tools/netstack/fetch_record.h"

#include <catch2/catch.hpp>

#include "net/base/net_error.h"

using namespace netstack;

TEST_CASE("fetch record: JSON has every field of the contract") {
  FetchRecord r;
  r.url = r.final_url = "http://a.test/";
  r.method = "GET";
  r.status = 200;
  r.status_text = "OK";
  r.bytes = 10;
  r.dns_ms = 1.23456;
  r.total_ms = 5;
  r.socket_id = 7;
  auto j = FetchRecordToJson(r);
  for (const char* key : {"url", "status", "headers", "bytes", "error", "timing", "socket", "cache",
                          "speculative", "redirects", "dns"})
    CHECK(j.contains(key));
  for (const char* key :
       {"dns_ms", "connect_ms", "tls_ms", "send_ms", "ttfb_ms", "receive_ms", "total_ms"})
    CHECK(j["timing"].contains(key));
  CHECK(j["timing"]["dns_ms"] == Approx(1.235));
  CHECK(j["error"].is_null());
  CHECK(j["socket"]["id"] == 7);
  CHECK(j["socket"]["reused"] == false);
  CHECK(j["cache"] == "bypass");
}

TEST_CASE("fetch record: errors carry a message and Chrome's name") {
  FetchRecord r;
  r.url = "http://nx.test/";
  r.error = ERR_NAME_NOT_RESOLVED;
  r.error_message = ErrorToMessage(ERR_NAME_NOT_RESOLVED);
  auto j = FetchRecordToJson(r);
  CHECK(j["error_code"] == "ERR_NAME_NOT_RESOLVED");
  CHECK(j["status"] == 0);
  std::string line = FetchRecordToLine(r);
  CHECK(line.find("ERR_NAME_NOT_RESOLVED") != std::string::npos);
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("fetch record: the human line shows status, size, timing and reuse") {
  FetchRecord r;
  r.final_url = "http://a.test/x";
  r.status = 404;
  r.status_text = "Not Found";
  r.bytes = 20000;
  r.total_ms = 12.34;
  r.socket_id = 3;
  r.socket_reused = true;
  std::string line = FetchRecordToLine(r);
  CHECK(line.rfind("404 Not Found", 0) == 0);
  CHECK(line.find("19.5 KiB") != std::string::npos);
  CHECK(line.find("12.3 ms") != std::string::npos);
  CHECK(line.find("socket 3 reused") != std::string::npos);
}

TEST_CASE("fetch record: the human line escapes what the server sent") {
  FetchRecord r;
  r.url = r.final_url = "http://a.test/";
  r.status = 200;
  r.status_text =
      "OK\x1b]0;pwned\x07 \xc2\x9b"
      "2J";
  std::string line = FetchRecordToLine(r);
  CHECK(line.find('\x1b') == std::string::npos);
  CHECK(line.find('\x07') == std::string::npos);
  CHECK(line.find("\xc2\x9b") == std::string::npos);
  CHECK(line.rfind("200 OK\\x1b]0;pwned\\x07 \\u009b2J  http://a.test/", 0) == 0);
  // JSON keeps the text as sent (its writer escapes it).
  CHECK(FetchRecordToJson(r)["status_text"] == r.status_text);
}

TEST_CASE("fetch record: one copy of a finished request, for fetches and page loads") {
  PageRequestRecord r;
  std::string message;
  REQUIRE(Url::Parse("https://a.test/x", &r.url, &message) == OK);
  r.start = TimeTicks{} + Milliseconds(10);
  r.end = r.start + Milliseconds(25);
  r.result = ERR_CONNECTION_RESET;
  r.error_message = "reset";
  r.status = 200;
  r.status_text = "OK";
  r.bytes = 12;
  r.encoded_bytes = -3;  // never negative in the record
  r.phases.dns_ms = 1.5;
  r.phases.tls_ms = 2.5;
  r.phases.receive_ms = 4;
  r.connection.socket_id = 9;
  r.connection.reused = true;
  r.connection.tls_version = "TLSv1.3";
  r.connection.dns_from_cache = true;
  r.redirects = {"https://a.test/old"};
  r.cache = CacheDisposition::kHit;
  FetchRecord f = FetchRecordFromRequest(r, "HEAD");
  CHECK(f.url == "https://a.test/x");
  CHECK(f.final_url == "https://a.test/x");  // no final URL recorded: the URL itself
  CHECK(f.method == "HEAD");
  CHECK(f.error == ERR_CONNECTION_RESET);
  CHECK(f.error_message == "reset");
  CHECK(f.status == 200);
  CHECK(f.bytes == 12);
  CHECK(f.encoded_bytes == 0);
  CHECK(f.dns_ms == 1.5);
  CHECK(f.tls_ms == 2.5);
  CHECK(f.receive_ms == 4);
  CHECK(f.total_ms == Approx(25));
  CHECK(f.socket_id == 9);
  CHECK(f.socket_reused);
  CHECK(f.tls_version == "TLSv1.3");
  CHECK(f.dns_from_cache);
  CHECK(f.redirects == std::vector<std::string>{"https://a.test/old"});
  CHECK(f.cache == "hit");
  CHECK(f.speculative.is_null());
}
