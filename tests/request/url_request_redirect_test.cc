// Redirects: chains, relative Locations, the method rules, limits, follow_redirects=false,
// unsupported schemes, and what redirects do to sockets (drained and reused on the same
// origin, another group for another origin).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/request/request_test_env.h"

namespace netstack::test {
namespace {

// Head of the n-th request written on `written` (0-based), up to the empty line; the body
// (if any) after it.
struct WrittenRequest {
  std::string head;
  std::string body;
};

std::vector<WrittenRequest> SplitRequests(const std::string& written) {
  std::vector<WrittenRequest> out;
  size_t pos = 0;
  while (pos < written.size()) {
    size_t end = written.find("\r\n\r\n", pos);
    if (end == std::string::npos) break;
    WrittenRequest r;
    r.head = written.substr(pos, end + 2 - pos);
    size_t body = 0;
    size_t cl = r.head.find("\r\nContent-Length: ");
    if (cl != std::string::npos) body = std::stoul(r.head.substr(cl + 18));
    r.body = written.substr(end + 4, body);
    out.push_back(r);
    pos = end + 4 + body;
  }
  return out;
}

TEST_CASE("redirect chains of every code are followed on one kept-alive socket",
          "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket({
      ScriptedRead::Data(Redirect(301, "/b"), IoMode::kAsync),               // relative
      ScriptedRead::Data(Redirect(302, "c?x=1"), IoMode::kAsync),            // relative path
      ScriptedRead::Data(Redirect(303, "http://a.test/d"), IoMode::kAsync),  // absolute
      ScriptedRead::Data(Redirect(307, "../e", "a longer redirect body"), IoMode::kAsync),
      ScriptedRead::Data(Redirect(308, "/f/g"), IoMode::kAsync),
      ScriptedRead::Data(Response("200 OK", "final"), IoMode::kAsync),
  });
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/dir/a"), &d);
  CHECK(d.result == OK);
  CHECK(d.data == "final");  // redirect bodies are not delivered
  CHECK(d.response_started == 1);
  CHECK(d.completions == 1);
  CHECK(r->redirect_chain() == std::vector<std::string>{"http://a.test/b", "http://a.test/c?x=1",
                                                        "http://a.test/d", "http://a.test/e",
                                                        "http://a.test/f/g"});
  CHECK(r->url().spec() == "http://a.test/f/g");
  CHECK(r->original_url().spec() == "http://a.test/dir/a");
  CHECK(RequestLines(conn->script->written()) ==
        std::vector<std::string>{"GET /dir/a HTTP/1.1", "GET /b HTTP/1.1", "GET /c?x=1 HTTP/1.1",
                                 "GET /d HTTP/1.1", "GET /e HTTP/1.1", "GET /f/g HTTP/1.1"});
  // Every redirect body was drained, so one socket carried all six.
  CHECK(env.factory->transport_sockets_created() == 1);
  CHECK(r->connection_info().reused());
  CHECK(env.recorder.Count(NetLogEventType::URL_REQUEST_REDIRECTED, r->net_log().source().id) == 5);
  CHECK(env.context->socket_pool()->IdleSocketCount() == 1);
}

TEST_CASE("redirect method rules: POST becomes GET on 301/302/303, kept on 307/308",
          "[request][redirect]") {
  struct Case {
    int code;
    std::string method;
    bool keeps_method_and_body;
  };
  const Case cases[] = {{301, "POST", false}, {302, "POST", false}, {303, "POST", false},
                        {307, "POST", true},  {308, "POST", true},  {303, "PUT", false},
                        {301, "PUT", true},   {302, "PUT", true}};
  for (const Case& c : cases) {
    INFO(c.method << " then " << c.code);
    RequestTestEnv env;
    env.AddHost("a.test");
    FakeConnection* conn =
        env.factory->AddSocket({ScriptedRead::Data(Redirect(c.code, "/next"), IoMode::kAsync),
                                ScriptedRead::Data(Response("200 OK", "ok"), IoMode::kAsync)});
    RecordingDelegate d;
    auto r = env.Fetch(env.Params("http://a.test/form", c.method, "k=v1"), &d);
    REQUIRE(d.result == OK);
    auto sent = SplitRequests(conn->script->written());
    REQUIRE(sent.size() == 2);
    CHECK(sent[0].head.rfind(c.method + " /form HTTP/1.1\r\n", 0) == 0);
    CHECK(sent[0].body == "k=v1");
    if (c.keeps_method_and_body) {
      CHECK(sent[1].head.rfind(c.method + " /next HTTP/1.1\r\n", 0) == 0);
      CHECK(sent[1].head.find("\r\nContent-Length: 4\r\n") != std::string::npos);
      CHECK(sent[1].body == "k=v1");
    } else {
      CHECK(sent[1].head.rfind("GET /next HTTP/1.1\r\n", 0) == 0);
      CHECK(sent[1].head.find("Content-Length") == std::string::npos);
      CHECK(sent[1].body.empty());
    }
    // Nothing after the second request (a stray body would show here).
    size_t total = 0;
    for (const auto& s : sent) total += s.head.size() + 2 + s.body.size();
    CHECK(total == conn->script->written().size());
  }
}

TEST_CASE("a redirect limit ends the chain with ERR_TOO_MANY_REDIRECTS", "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  std::vector<ScriptedRead> reads;
  for (int i = 1; i <= 4; ++i) {
    reads.push_back(ScriptedRead::Data(Redirect(302, "/r" + std::to_string(i)), IoMode::kAsync));
  }
  env.factory->AddSocket(reads);
  RecordingDelegate d;
  UrlRequest::Params params = env.Params("http://a.test/r0");
  params.max_redirects = 3;
  auto r = env.Fetch(params, &d);
  CHECK(d.result == ERR_TOO_MANY_REDIRECTS);
  CHECK(d.completions == 1);
  CHECK(d.response_started == 0);
  CHECK(d.data.empty());
  CHECK(r->error() == ERR_TOO_MANY_REDIRECTS);
  CHECK(r->redirect_chain().size() == 3);
  INFO(r->error_message());
  CHECK(IsOneLine(r->error_message()));
  CHECK(r->error_message().find("redirects") != std::string::npos);
  CHECK(r->error_message().find("/r4") != std::string::npos);  // names where it was going
  CHECK(env.factory->unscripted_sockets() == 0);
  // The fourth redirect was not followed, and its undrained socket was not kept.
  CHECK(env.context->socket_pool()->IdleSocketCount() == 0);
}

TEST_CASE("max_redirects 0 with a redirect fails, 20 redirects pass by default",
          "[request][redirect]") {
  SECTION("zero") {
    RequestTestEnv env;
    env.AddHost("a.test");
    env.factory->AddSocket({ScriptedRead::Data(Redirect(301, "/x"), IoMode::kAsync)});
    RecordingDelegate d;
    UrlRequest::Params params = env.Params("http://a.test/");
    params.max_redirects = 0;
    auto r = env.Fetch(params, &d);
    CHECK(d.result == ERR_TOO_MANY_REDIRECTS);
  }
  SECTION("twenty") {
    RequestTestEnv env;
    env.AddHost("a.test");
    std::vector<ScriptedRead> reads;
    for (int i = 1; i <= 20; ++i) {
      reads.push_back(ScriptedRead::Data(Redirect(302, "/" + std::to_string(i)), IoMode::kAsync));
    }
    reads.push_back(ScriptedRead::Data(Response("200 OK", "end"), IoMode::kAsync));
    env.factory->AddSocket(reads);
    RecordingDelegate d;
    auto r = env.Fetch(env.Params("http://a.test/0"), &d);
    CHECK(d.result == OK);
    CHECK(d.data == "end");
    CHECK(r->redirect_chain().size() == 20);
  }
}

TEST_CASE("follow_redirects=false delivers the 3xx itself", "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket(
      {ScriptedRead::Data(Redirect(302, "/elsewhere", "see elsewhere"), IoMode::kAsync)});
  RecordingDelegate d;
  UrlRequest::Params params = env.Params("http://a.test/here");
  params.follow_redirects = false;
  auto r = env.Fetch(params, &d);
  CHECK(d.result == OK);
  CHECK(d.response_started == 1);
  CHECK(d.data == "see elsewhere");
  REQUIRE(r->response_headers());
  CHECK(r->response_headers()->response_code() == 302);
  CHECK(r->redirect_chain().empty());
  CHECK(r->url().spec() == "http://a.test/here");
  CHECK(env.recorder.Count(NetLogEventType::URL_REQUEST_REDIRECTED) == 0);
  CHECK(env.factory->unscripted_sockets() == 0);
}

TEST_CASE("a redirect to an unsupported scheme or a bad URL is an error", "[request][redirect]") {
  const char* locations[] = {"ftp://a.test/file", "file:///etc/passwd", "javascript:alert(1)",
                             "http://"};
  for (const char* location : locations) {
    INFO(location);
    RequestTestEnv env;
    env.AddHost("a.test");
    env.factory->AddSocket({ScriptedRead::Data(Redirect(302, location), IoMode::kAsync)});
    RecordingDelegate d;
    auto r = env.Fetch(env.Params("http://a.test/"), &d);
    CHECK(d.completions == 1);
    CHECK(d.result < 0);
    CHECK((d.result == ERR_INVALID_REDIRECT || d.result == ERR_UNSAFE_REDIRECT ||
           d.result == ERR_UNKNOWN_URL_SCHEME));
    CHECK(d.response_started == 0);
    CHECK(r->redirect_chain().empty());
    INFO(r->error_message());
    CHECK_FALSE(r->error_message().empty());
    CHECK(IsOneLine(r->error_message()));
    CHECK(env.factory->transport_sockets_created() == 1);
    CHECK(env.factory->unscripted_sockets() == 0);
  }
}

TEST_CASE("a redirect to another origin uses another group and socket", "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test", Milliseconds(10), "192.0.2.1");
  env.AddHost("b.test", Milliseconds(10), "192.0.2.2");
  FakeConnection* a = env.factory->AddSocket(
      {ScriptedRead::Data(Redirect(301, "http://b.test:8080/there"), IoMode::kAsync)});
  FakeConnection* b =
      env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "b"), IoMode::kAsync)});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CHECK(d.result == OK);
  CHECK(d.data == "b");
  CHECK(env.factory->transport_sockets_created() == 2);
  CHECK(a->endpoint.ToString() == "192.0.2.1:80");
  CHECK(b->endpoint.ToString() == "192.0.2.2:8080");
  CHECK(b->script->written().find("\r\nHost: b.test:8080\r\n") != std::string::npos);
  CHECK_FALSE(r->connection_info().reused());
  CHECK(r->connection_info().socket_id == b->net_log_id);
  ClientSocketPool* pool = env.context->socket_pool();
  // Both sockets kept, each in its own group (the redirect body was drained).
  CHECK(pool->IdleSocketCountInGroup(SchemeHostPort{"http", "a.test", 80}) == 1);
  CHECK(pool->IdleSocketCountInGroup(SchemeHostPort{"http", "b.test", 8080}) == 1);
}

TEST_CASE("a cross-origin redirect drops credentials and Host, a same-origin one keeps them",
          "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test", Milliseconds(10), "192.0.2.1");
  env.AddHost("b.test", Milliseconds(10), "192.0.2.2");
  FakeConnection* a = env.factory->AddSocket({
      ScriptedRead::Data(Redirect(302, "/same"), IoMode::kAsync),
      ScriptedRead::Data(Redirect(302, "http://b.test/other"), IoMode::kAsync),
  });
  FakeConnection* b =
      env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "b"), IoMode::kAsync)});
  UrlRequest::Params params = env.Params("http://a.test/");
  params.request.extra_headers.SetHeader("Authorization", "Bearer secret");
  params.request.extra_headers.SetHeader("Cookie", "session=1");
  params.request.extra_headers.SetHeader("X-Kept", "yes");
  RecordingDelegate d;
  auto r = env.Fetch(params, &d);
  REQUIRE(d.result == OK);
  std::vector<WrittenRequest> on_a = SplitRequests(a->script->written());
  REQUIRE(on_a.size() == 2);
  for (const WrittenRequest& req : on_a) {
    CHECK(req.head.find("\r\nAuthorization: Bearer secret\r\n") != std::string::npos);
    CHECK(req.head.find("\r\nCookie: session=1\r\n") != std::string::npos);
  }
  const std::string& on_b = b->script->written();
  CHECK(on_b.find("Authorization") == std::string::npos);
  CHECK(on_b.find("Cookie") == std::string::npos);
  CHECK(on_b.find("\r\nX-Kept: yes\r\n") != std::string::npos);
  CHECK(on_b.find("\r\nHost: b.test\r\n") != std::string::npos);
}

TEST_CASE("a redirect that turns POST into GET drops the body's Content-* headers",
          "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket({
      ScriptedRead::Data(Redirect(303, "/done"), IoMode::kAsync),
      ScriptedRead::Data(Response("200 OK", "ok"), IoMode::kAsync),
  });
  UrlRequest::Params params = env.Params("http://a.test/form", "POST", "x=1");
  params.request.extra_headers.SetHeader("Content-Type", "application/x-www-form-urlencoded");
  RecordingDelegate d;
  auto r = env.Fetch(params, &d);
  REQUIRE(d.result == OK);
  std::vector<WrittenRequest> reqs = SplitRequests(conn->script->written());
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].head.find("Content-Type:") != std::string::npos);
  CHECK(reqs[0].body == "x=1");
  CHECK(reqs[1].head.rfind("GET /done HTTP/1.1", 0) == 0);
  CHECK(reqs[1].head.find("Content-Type:") == std::string::npos);
  CHECK(reqs[1].head.find("Content-Length:") == std::string::npos);
  CHECK(reqs[1].body.empty());
}

TEST_CASE("a redirect body too large to drain closes the socket instead", "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  std::string big(200 * 1024, 'x');
  env.factory->AddSocket({ScriptedRead::Data(Redirect(302, "/next", big), IoMode::kAsync)});
  env.factory->AddSocket({ScriptedRead::Data(Response("200 OK", "ok"), IoMode::kAsync)});
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CHECK(d.result == OK);
  CHECK(d.data == "ok");
  CHECK(env.factory->transport_sockets_created() == 2);
  CHECK(env.factory->connection(0).destroyed);
  CHECK_FALSE(r->connection_info().reused());
}

TEST_CASE("a 3xx without Location, or a 304, is a final response", "[request][redirect]") {
  RequestTestEnv env;
  env.AddHost("a.test");
  env.factory->AddSocket(
      {ScriptedRead::Data(Response("302 Found", "no location"), IoMode::kAsync),
       ScriptedRead::Data("HTTP/1.1 304 Not Modified\r\nLocation: /x\r\n\r\n", IoMode::kAsync)});
  RecordingDelegate d1, d2;
  auto r1 = env.Fetch(env.Params("http://a.test/1"), &d1);
  CHECK(d1.result == OK);
  CHECK(d1.data == "no location");
  REQUIRE(r1->response_headers());
  CHECK(r1->response_headers()->response_code() == 302);
  auto r2 = env.Fetch(env.Params("http://a.test/2"), &d2);
  CHECK(d2.result == OK);
  REQUIRE(r2->response_headers());
  CHECK(r2->response_headers()->response_code() == 304);
  CHECK(r2->redirect_chain().empty());
}

}  // namespace
}  // namespace netstack::test
