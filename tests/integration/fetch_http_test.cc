// HTTP/1.1 behaviour against nginx and the fault server: redirects, content decoding, body
// framings, methods, the human output line and the --json headers.
#include <algorithm>

#include "tests/integration/fault_http_server.h"
#include "tests/integration/fetch_test_util.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

int CountRequests(const std::vector<NginxLogEntry>& log, const std::string& uri) {
  return static_cast<int>(std::count_if(
      log.begin(), log.end(), [&](const NginxLogEntry& e) { return e.request_uri == uri; }));
}

TEST_CASE("a chain of 3 redirects is followed", "[fetch][redirect]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  NetstackRun run = RunFetchJson({nginx.HttpUrl("/redirect/3")});
  CHECK_FETCH_OK(run, 1u);
  const nlohmann::json& r = run.records[0];
  CHECK(JsonInt(r, "status") == 200);
  CHECK(JsonString(r, "url") == nginx.HttpUrl("/redirect/3"));
  CHECK(JsonString(r, "final_url") == nginx.HttpUrl("/small.txt"));
  CHECK(JsonInt(r, "bytes") == 612);
  REQUIRE(r.contains("redirects"));
  CHECK(r["redirects"].size() == NginxFixture::kRedirectChainLength);
  // All four requests went over the one keep-alive connection.
  std::vector<NginxLogEntry> log = nginx.ReadAccessLog(4);
  CHECK(log.size() == 4);
  CHECK(Connections(log).size() == 1);
}

TEST_CASE("max-redirs 2 stops a chain of 3 with ERR_TOO_MANY_REDIRECTS", "[fetch][redirect]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  NetstackRun run = RunFetchJson({"--max-redirs", "2", nginx.HttpUrl("/redirect/3")});
  CHECK_FETCH_FAILED(run, 0, "ERR_TOO_MANY_REDIRECTS");
  // Two redirects followed: /redirect/3, /2, /1 requested; /1's redirect is the one refused.
  CHECK(nginx.ReadAccessLog(3).size() == 3);

  run = RunFetchJson({"--max-redirs", "3", nginx.HttpUrl("/redirect/3")});
  CHECK_FETCH_OK(run, 1u);
  CHECK(JsonInt(run.records[0], "status") == 200);
}

TEST_CASE("no-follow reports the 301", "[fetch][redirect]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  NetstackRun run = RunFetchJson({"--no-follow", nginx.HttpUrl("/redirect/3")});
  CHECK_FETCH_OK(run, 1u);
  const nlohmann::json& r = run.records[0];
  CHECK(JsonInt(r, "status") == 301);
  CHECK(JsonString(r, "headers/location") == "/redirect/2");
  CHECK(JsonString(r, "final_url") == nginx.HttpUrl("/redirect/3"));
  CHECK(nginx.ReadAccessLog(1).size() == 1);
}

TEST_CASE("a redirect loop ends in ERR_TOO_MANY_REDIRECTS", "[fetch][redirect]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  NetstackRun run = RunFetchJson({nginx.HttpUrl("/loop")});
  CHECK_FETCH_FAILED(run, 0, "ERR_TOO_MANY_REDIRECTS");
  // Default limit 20: the first request and 20 followed redirects.
  CHECK(CountRequests(nginx.ReadAccessLog(21), "/loop") == 21);

  FaultHttpServer fault;
  std::string error;
  REQUIRE(fault.Start(0, &error));
  run = RunFetchJson({"--max-redirs", "5", fault.Url("/loop")});
  CHECK_FETCH_FAILED(run, 0, "ERR_TOO_MANY_REDIRECTS");
  CHECK(fault.paths().size() == 6);
}

TEST_CASE("gzip from nginx is decoded", "[fetch][decoding]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  TempDir out("fetch-out");
  const std::string text_out = out.Join("text.txt");
  NetstackRun run =
      RunFetchJson({"-o", text_out, nginx.HttpUrl("/text.txt"), nginx.HttpUrl("/1m.bin")});
  CHECK_FETCH_OK(run, 2u);
  const nlohmann::json& text = run.records[0];
  CHECK(JsonString(text, "headers/content-encoding") == "gzip");
  CHECK(JsonInt(text, "bytes") == nginx.FileSize("/text.txt"));
  CHECK(JsonInt(text, "transfer_bytes") > 0);
  CHECK(JsonInt(text, "transfer_bytes") < JsonInt(text, "bytes"));
  std::string got, want;
  REQUIRE(ReadFileToString(text_out, &got));
  REQUIRE(ReadFileToString(nginx.DocPath("/text.txt"), &want));
  CHECK(got == want);
  CHECK(JsonInt(run.records[1], "bytes") == 1048576);
  // netstack offers gzip (like Chrome, which sends "gzip, deflate, br").
  CHECK(nginx.ReadAccessLog(1).front().accept_encoding.find("gzip") != std::string::npos);
}

TEST_CASE("br deflate and gzip bodies from the fault server are decoded", "[fetch][decoding]") {
  REQUIRE_NETSTACK_BINARY();
  FaultHttpServer fault;
  std::string error;
  REQUIRE(fault.Start(0, &error));
  TempDir out("fetch-out");
  const std::vector<std::string> paths = {"/br", "/deflate", "/gzip"};
  std::vector<std::string> args;
  for (const std::string& p : paths) {
    args.insert(args.end(), {"-o", out.Join(p.substr(1))});
  }
  for (const std::string& p : paths) args.push_back(fault.Url(p));
  NetstackRun run = RunFetchJson(args);
  CHECK_FETCH_OK(run, 3u);
  const std::string& payload = FaultHttpServer::Payload();
  for (size_t i = 0; i < paths.size(); ++i) {
    INFO(paths[i]);
    CHECK(JsonInt(run.records[i], "bytes") == static_cast<int64_t>(payload.size()));
    CHECK(JsonInt(run.records[i], "transfer_bytes") < JsonInt(run.records[i], "bytes"));
    std::string got;
    REQUIRE(ReadFileToString(out.Join(paths[i].substr(1)), &got));
    CHECK(got == payload);
  }
  CHECK(fault.connections() == 1);
}

TEST_CASE("chunked and close-delimited bodies are read whole", "[fetch][framing]") {
  REQUIRE_NETSTACK_BINARY();
  FaultHttpServer fault;
  std::string error;
  REQUIRE(fault.Start(0, &error));
  TempDir out("fetch-out");
  NetstackRun run =
      RunFetchJson({"-o", out.Join("chunked"), "-o", out.Join("close"), fault.Url("/chunked"),
                    fault.Url("/close-delimited"), fault.Url("/ok")});
  CHECK_FETCH_OK(run, 3u);
  const std::string& payload = FaultHttpServer::Payload();
  for (const char* name : {"chunked", "close"}) {
    std::string got;
    REQUIRE(ReadFileToString(out.Join(name), &got));
    CHECK(got == payload);
  }
  CHECK(JsonInt(run.records[0], "bytes") == static_cast<int64_t>(payload.size()));
  CHECK(JsonInt(run.records[1], "bytes") == static_cast<int64_t>(payload.size()));
  // The close-delimited response used up its connection: /ok needed a new one.
  CHECK(JsonInt(run.records[1], "socket/id") != JsonInt(run.records[2], "socket/id"));
  CHECK_FALSE(JsonBool(run.records[2], "socket/reused", true));
}

TEST_CASE("HEAD and POST", "[fetch][methods]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  NetstackRun run = RunFetchJson({"-I", nginx.HttpUrl("/1m.bin"), nginx.HttpUrl("/small.txt")});
  CHECK_FETCH_OK(run, 2u);
  CHECK(JsonString(run.records[0], "method") == "HEAD");
  CHECK(JsonInt(run.records[0], "status") == 200);
  CHECK(JsonInt(run.records[0], "bytes") == 0);
  // (nginx drops Content-Length from a HEAD answer it would gzip, so no size check here.)
  CHECK_FALSE(JsonString(run.records[0], "headers/etag").empty());
  // The HEAD response had no body, so the connection stayed usable.
  CHECK(run.SocketIds().size() == 1);

  FaultHttpServer fault;
  std::string error;
  REQUIRE(fault.Start(0, &error));
  run = RunFetchJson({"-d", "name=value", fault.Url("/ok"), fault.Url("/ok")});
  CHECK_FETCH_OK(run, 2u);
  CHECK(JsonString(run.records[0], "method") == "POST");
  CHECK(JsonInt(run.records[0], "status") == 200);
}

TEST_CASE("the human output is one line per URL", "[fetch][output]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  NetstackRun run = RunNetstack({"fetch", nginx.HttpUrl("/small.txt"), nginx.HttpUrl("/nope")});
  INFO(run.Describe());
  CHECK(run.exit_code() == 0);
  REQUIRE(run.other_lines.size() == 2);
  CHECK(run.other_lines[0].rfind("200 OK", 0) == 0);
  CHECK(run.other_lines[0].find(nginx.HttpUrl("/small.txt")) != std::string::npos);
  CHECK(run.other_lines[0].find("612 B") != std::string::npos);
  CHECK(run.other_lines[1].rfind("404", 0) == 0);
  CHECK(run.process.err.empty());
}

TEST_CASE("fetch --json carries the response headers, with and without keep-alive reuse",
          "[fetch][output]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  // (A plain fetch fills its records without the headers: only --json prints them.)
  NetstackRun run = RunFetchJson({nginx.HttpUrl("/small.txt"), nginx.HttpUrl("/small.txt?2")});
  CHECK_FETCH_OK(run, 2u);
  for (const nlohmann::json& record : run.records) {
    // (nginx gzips small.txt, so it sends no Content-Length.)
    CHECK_FALSE(JsonString(record, "headers/etag").empty());
    CHECK(JsonString(record, "headers/server").rfind("nginx", 0) == 0);
    CHECK_FALSE(JsonString(record, "headers/content-type").empty());
  }
}

}  // namespace
}  // namespace netstack::test
