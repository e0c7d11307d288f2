// FillRequestRecord: the one copy of a finished UrlRequest into its record (net/http/
// request_record.h), over the fakes: decoded and carried body sizes, a redirect with a method
// change, failures, headers only when asked, and a record reused for another request.
#include "net/http/request_record.h"

#include <catch2/catch.hpp>
#include <string>

#include "tests/http/compression_test_util.h"
#include "tests/request/request_test_env.h"

namespace netstack::test {
namespace {

TEST_CASE("record: a redirected POST with a gzip body, filled from its UrlRequest", "[record]") {
  RequestTestEnv env;
  env.scheduler.AdvanceBy(Seconds(1));  // TimeTicks{} is "unset" in timing
  env.AddHost("a.test", Milliseconds(10));
  const std::string body(1000, 'x');
  const std::string gzipped = ZlibCompress(body, 15 + 16);
  env.factory->AddSocket(
      {ScriptedRead::Data(Redirect(303, "/done"), IoMode::kAsync, Milliseconds(30)),
       ScriptedRead::Data(Response("200 Fine", gzipped, "Content-Encoding: gzip\r\n"),
                          IoMode::kAsync, Milliseconds(20))});
  RecordingDelegate delegate;
  auto request = env.Fetch(env.Params("http://a.test/form", "POST", "a=1"), &delegate);
  REQUIRE(delegate.result == OK);

  RequestRecord rec;
  rec.placement = RequestPlacement{"document", HIGHEST, request->start_time()};
  FillRequestRecord(*request, /*with_headers=*/false, &rec);
  CHECK(rec.url == "http://a.test/form");
  CHECK(rec.final_url == "http://a.test/done");
  CHECK(rec.method == "POST");  // as asked; the redirect made the last hop a GET
  CHECK(rec.redirects == std::vector<std::string>{"http://a.test/done"});
  CHECK(rec.status == 200);
  CHECK(rec.status_text == "Fine");
  CHECK_FALSE(rec.headers);
  CHECK(rec.body_bytes == 1000);                                      // decoded
  CHECK(rec.transfer_bytes == static_cast<int64_t>(gzipped.size()));  // as carried
  CHECK(rec.error == OK);
  CHECK(rec.error_message.empty());
  CHECK(rec.cache == CacheDisposition::kBypass);
  CHECK(rec.start == request->start_time());
  CHECK(rec.end == request->end_time());
  // The last hop reused the redirect's socket: no setup in its phases.
  CHECK(rec.connection.socket_source == SocketSource::kReused);
  CHECK(rec.phases.connect_wait_ms() == 0);
  CHECK(rec.phases.ttfb_ms == 20);
  // The issuer's parts are left alone.
  REQUIRE(rec.placement);
  CHECK(rec.placement->type == "document");

  SECTION("headers when asked") {
    FillRequestRecord(*request, /*with_headers=*/true, &rec);
    REQUIRE(rec.headers);
    CHECK((*rec.headers)["content-encoding"] == "gzip");
  }
  SECTION("the record reused for a failed request") {
    env.AddHost("b.test", Milliseconds(10));
    env.factory->QueueRule(FakeConnectRule::After(Milliseconds(5), ERR_CONNECTION_REFUSED));
    RecordingDelegate failed_delegate;
    auto failed = env.Fetch(env.Params("http://b.test/"), &failed_delegate);
    REQUIRE(failed_delegate.result == ERR_CONNECTION_REFUSED);
    FillRequestRecord(*failed, /*with_headers=*/true, &rec);
    CHECK(rec.url == "http://b.test/");
    CHECK(rec.method == "GET");
    CHECK(rec.redirects.empty());
    CHECK(rec.error == ERR_CONNECTION_REFUSED);
    CHECK_FALSE(rec.error_message.empty());
    CHECK(rec.status == 0);
    CHECK(rec.status_text.empty());
    CHECK_FALSE(rec.headers);
    CHECK(rec.body_bytes == 0);
    CHECK(rec.connection.socket_source == SocketSource::kNone);
    CHECK(rec.connection.socket_id == 0);
  }
}

TEST_CASE("record: a new connection's phases and source", "[record]") {
  RequestTestEnv env;
  env.scheduler.AdvanceBy(Seconds(1));
  env.AddHost("a.test", Milliseconds(10));
  env.factory->AddSocket(
      {ScriptedRead::Data(Response("200 OK", "hello"), IoMode::kAsync, Milliseconds(30))}, {},
      FakeConnectRule::After(Milliseconds(20)));
  RecordingDelegate delegate;
  auto request = env.Fetch(env.Params("http://a.test/"), &delegate);
  REQUIRE(delegate.result == OK);
  RequestRecord rec;
  FillRequestRecord(*request, /*with_headers=*/false, &rec);
  CHECK(rec.connection.socket_source == SocketSource::kNew);
  CHECK(rec.connection.socket_id != 0);
  CHECK(rec.phases.dns_ms == 10);
  CHECK(rec.phases.connect_ms == 20);
  CHECK(rec.phases.connect_wait_ms() == 30);
  CHECK(rec.total_ms() == 60);
  CHECK(rec.body_bytes == 5);
  CHECK(rec.transfer_bytes == 5);
  CHECK_FALSE(rec.placement);
  CHECK(rec.start_ms() == 0);  // no page: no page-relative times
}

}  // namespace
}  // namespace netstack::test
