// curl's everyday flags on `netstack fetch` through the binary (docs/fetch.md "curl's flags"):
// what the server receives for -X, -d, -H, -A, -e, -u (the fault server keeps every request
// as received), and what -i, -v, -w, -s and -S print against nginx.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/fault_http_server.h"
#include "tests/integration/fetch_test_util.h"
#include "tests/integration/loopback_port.h"
#include "tests/support/temp_dir.h"

namespace netstack::test {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The request lines of `head` ("Name: value") whose name is `name`, in order.
std::vector<std::string> FieldLines(const std::string& head, const std::string& name) {
  std::vector<std::string> out;
  std::istringstream lines(head);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > name.size() && line[name.size()] == ':' &&
        Lower(line.substr(0, name.size())) == Lower(name))
      out.push_back(line);
  }
  return out;
}

TEST_CASE(
    "curl flags: -X sends any method with the body of -d and the server sees every header given",
    "[fetch][curl]") {
  REQUIRE_NETSTACK_BINARY();
  FaultHttpServer server;
  server.set_handler([](const FaultHttpServer::Request&) -> std::optional<std::string> {
    return FaultHttpServer::Response("200 OK", {}, "done\n");
  });
  std::string error;
  REQUIRE(server.Start(0, &error));
  struct Case {
    std::vector<std::string> args;
    std::string method;
    std::string body;
  };
  const std::vector<Case> cases = {
      {{"-X", "PUT", "-d", "a=1&b=2"}, "PUT", "a=1&b=2"},
      {{"-X", "patch", "-d", "{}"}, "patch", "{}"},  // not one of the six: as typed
      {{"-X", "delete"}, "DELETE", ""},
      {{"-X", "OPTIONS"}, "OPTIONS", ""},
      {{"-X", "M-SEARCH", "-d", "x"}, "M-SEARCH", "x"},
      {{"-X", "PUT"}, "PUT", ""},
  };
  for (const Case& c : cases) {
    NetstackRun run =
        RunNetstack(Concat(Concat({"fetch", "--private", "--json"}, c.args), {server.Url("/m")}));
    INFO(c.method << "\n" << run.Describe());
    CHECK_FETCH_OK(run, 1u);
    CHECK(JsonInt(run.records[0], "status") == 200);
    CHECK(JsonString(run.records[0], "method") == c.method);
    std::vector<FaultHttpServer::Request> seen = server.requests();
    REQUIRE(!seen.empty());
    const FaultHttpServer::Request& got = seen.back();
    CHECK(got.method == c.method);
    CHECK(got.body == c.body);
    // A body, or a method that defines one, says its length (curl's way).
    if (!c.body.empty() || c.method == "PUT") {
      CHECK(got.Header("content-length") == std::to_string(c.body.size()));
    } else {
      CHECK(FieldLines(got.head, "Content-Length").empty());
    }
    CHECK(got.Header("content-type") ==
          (c.body.empty() ? "" : "application/x-www-form-urlencoded"));
  }

  NetstackRun run = RunNetstack({"fetch", "--private", "--json", "-H", "X-Multi: a", "-H",
                                 "x-multi: b", "-H", "X-Empty;", "-A", "agent/2", "-e",
                                 "http://from.test/", "-u", "user:pa:ss", server.Url("/h")});
  INFO(run.Describe());
  CHECK_FETCH_OK(run, 1u);
  const FaultHttpServer::Request got = server.requests().back();
  INFO(got.head);
  // One field line per name, the values joined (RFC 9110 section 5.3).
  CHECK(FieldLines(got.head, "X-Multi") == std::vector<std::string>{"X-Multi: a, b"});
  CHECK(FieldLines(got.head, "X-Empty") == std::vector<std::string>{"X-Empty: "});
  CHECK(got.Header("user-agent") == "agent/2");
  CHECK(got.Header("referer") == "http://from.test/");
  CHECK(got.Header("authorization") == "Basic dXNlcjpwYTpzcw==");  // user:pa:ss
}

TEST_CASE(
    "curl flags: -H 'Name:' leaves out a header netstack would send, a semicolon sends it empty",
    "[fetch][curl]") {
  REQUIRE_NETSTACK_BINARY();
  FaultHttpServer server;
  server.set_handler([](const FaultHttpServer::Request&) -> std::optional<std::string> {
    return FaultHttpServer::Response("200 OK", {}, "done\n");
  });
  std::string error;
  REQUIRE(server.Start(0, &error));
  // The defaults first: every one is there without -H.
  NetstackRun run = RunNetstack({"fetch", "--private", "--json", server.Url("/plain")});
  INFO(run.Describe());
  CHECK_FETCH_OK(run, 1u);
  FaultHttpServer::Request got = server.requests().back();
  for (const char* name : {"Accept", "Accept-Encoding", "User-Agent"})
    CHECK(FieldLines(got.head, name).size() == 1);

  // Each default left out, -A's and -d's own headers too; X-Empty; sent empty; a value given
  // for a name also left out is still sent (curl's way).
  run = RunNetstack({"fetch",
                     "--private",
                     "--json",
                     "-H",
                     "Accept:",
                     "-H",
                     "accept-encoding:  ",
                     "-H",
                     "User-Agent:",
                     "-A",
                     "ignored/1",
                     "-d",
                     "a=1",
                     "-H",
                     "Content-Type:",
                     "-H",
                     "X-Empty;",
                     "-H",
                     "X-Both: kept",
                     "-H",
                     "X-Both:",
                     "-H",
                     "X-Never:",
                     server.Url("/omit")});
  INFO(run.Describe());
  CHECK_FETCH_OK(run, 1u);
  got = server.requests().back();
  INFO(got.head);
  CHECK(got.path == "/omit");
  for (const char* name : {"Accept", "Accept-Encoding", "User-Agent", "Content-Type", "X-Never"})
    CHECK(FieldLines(got.head, name).empty());
  CHECK(FieldLines(got.head, "X-Empty") == std::vector<std::string>{"X-Empty: "});
  CHECK(FieldLines(got.head, "X-Both") == std::vector<std::string>{"X-Both: kept"});
  CHECK(got.body == "a=1");
  CHECK(got.Header("content-length") == "3");
  CHECK(FieldLines(got.head, "Host").size() == 1);

  // Host and Content-Length frame the request: refused, exit 2, one line, nothing sent.
  const size_t before = server.requests().size();
  for (const char* line : {"Host:", "content-length:"}) {
    NetstackRun bad = RunNetstack({"fetch", "--private", "-H", line, server.Url("/never")});
    INFO(bad.Describe());
    CHECK(bad.exit_code() == 2);
    CHECK(bad.process.err.find(std::string("bad header \"") + line + "\": netstack always sends") !=
          std::string::npos);
    CHECK(std::count(bad.process.err.begin(), bad.process.err.end(), '\n') == 1);
  }
  CHECK(server.requests().size() == before);
}

TEST_CASE("curl flags: -i writes the head before the body and -v prints the exchange on stderr",
          "[fetch][curl]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  nginx.AddServerConfig("    location /plain/ { gzip off; alias " + nginx.dir() + "/www/; }");
  START_OR_SKIP(nginx);
  TempDir dir;
  const std::string out = dir.Join("out");
  NetstackRun run =
      RunNetstack({"fetch", "--private", "-i", "-o", out, nginx.HttpUrl("/plain/small.txt")});
  INFO(run.Describe());
  REQUIRE(run.exit_code() == 0);
  const std::string written = ReadFile(out);
  const std::string body = ReadFile(nginx.DocPath("/small.txt"));
  REQUIRE(written.size() > body.size());
  CHECK(written.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(written.find("\r\nContent-Length: 612\r\n") != std::string::npos);
  CHECK(written.substr(written.size() - body.size() - 4) == "\r\n\r\n" + body);
  // Without -o the head goes to stdout, before the record line.
  run = RunNetstack({"fetch", "--private", "-i", nginx.HttpUrl("/plain/small.txt")});
  CHECK(run.process.out.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(run.process.out.find("\r\n\r\n200 OK  " + nginx.HttpUrl("/plain/small.txt")) !=
        std::string::npos);

  // -v over TLS: connect, handshake, the request and the response head.
  run = RunNetstack({"fetch", "--no-cache", "-v", "--cacert", nginx.ca_cert(), "-H", "X-V: 1",
                     nginx.HttpsUrl("/small.txt"), nginx.HttpsUrl("/small.txt")});
  INFO(run.Describe());
  REQUIRE(run.exit_code() == 0);
  const std::string& err = run.process.err;
  CHECK(err.find("*   Trying 127.0.0.1:" + std::to_string(nginx.https_port()) + "...\n") !=
        std::string::npos);
  CHECK(err.find("* Connected to 127.0.0.1:" + std::to_string(nginx.https_port()) + "\n") !=
        std::string::npos);
  CHECK(err.find("* SSL connection using TLSv1.3 / ") != std::string::npos);
  CHECK(err.find("> GET /small.txt HTTP/1.1\n") != std::string::npos);
  CHECK(err.find("> X-V: 1\n") != std::string::npos);
  CHECK(err.find("< HTTP/1.1 200 OK\n") != std::string::npos);
  CHECK(err.find("\n<\n") != std::string::npos);
  // The second fetch took the first one's socket.
  CHECK(err.find("* Re-using existing connection\n") != std::string::npos);
  // The record lines still go to stdout.
  CHECK(run.process.out.find("200 OK  ") != std::string::npos);
}

TEST_CASE("curl flags: -w prints curl variables per URL and unknown ones warn and -s with -S",
          "[fetch][curl]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  const std::string url = nginx.HttpUrl("/redirect/3");
  NetstackRun run =
      RunNetstack({"fetch", "--no-cache", "-w",
                   "%{http_code} %{num_redirects} %{url_effective} %{method} %{cache} %{nope}\\n",
                   url, nginx.HttpUrl("/small.txt")});
  INFO(run.Describe());
  REQUIRE(run.exit_code() == 0);
  // One -w line per URL instead of the record line.
  CHECK(run.process.out == "200 3 " + nginx.HttpUrl("/small.txt") + " GET bypass \n200 0 " +
                               nginx.HttpUrl("/small.txt") + " GET bypass \n");
  CHECK(run.process.err == "netstack: warning: unknown --write-out variable: 'nope'\n");

  // Times: six decimals, in order, and what --json reports for the same fetch.
  run = RunNetstack({"fetch", "--private", "-w",
                     "%{time_namelookup} %{time_connect} %{time_pretransfer} "
                     "%{time_starttransfer} %{time_total} %{num_connects} %{socket_reused}",
                     nginx.HttpUrl("/small.txt")});
  REQUIRE(run.exit_code() == 0);
  std::istringstream times(run.process.out);
  double t[5] = {};
  int connects = -1, reused = -1;
  times >> t[0] >> t[1] >> t[2] >> t[3] >> t[4] >> connects >> reused;
  REQUIRE_FALSE(times.fail());
  for (int i = 1; i < 5; ++i) CHECK(t[i - 1] <= t[i]);
  CHECK(t[4] > 0);
  CHECK(connects == 1);
  CHECK(reused == 0);

  // -w @FILE.
  TempDir dir;
  REQUIRE(WriteStringToFile(dir.Join("fmt"), "[%{response_code}|%{size_download}]"));
  run = RunNetstack(
      {"fetch", "--no-cache", "-w", "@" + dir.Join("fmt"), nginx.HttpUrl("/plain-missing")});
  CHECK(run.exit_code() == 0);
  CHECK(run.process.out.rfind("[404|", 0) == 0);

  // -s: nothing but the body; a failure is silent, with -S its line is back.
  const std::string closed = "http://127.0.0.1:" + std::to_string(PickClosedPort()) + "/";
  run = RunNetstack({"fetch", "--private", "-s", nginx.HttpUrl("/small.txt")});
  CHECK(run.exit_code() == 0);
  CHECK(run.process.out.empty());
  CHECK(run.process.err.empty());
  run = RunNetstack({"fetch", "--private", "-s", closed});
  CHECK(run.exit_code() == 1);
  CHECK(run.process.out.empty());
  CHECK(run.process.err.empty());
  run = RunNetstack({"fetch", "--private", "-s", "-S", closed});
  CHECK(run.exit_code() == 1);
  CHECK(run.process.out.empty());
  CHECK(run.StderrLines().size() == 1);
  CHECK(run.process.err.find("ERR_CONNECTION_REFUSED") != std::string::npos);
}

TEST_CASE(
    "curl flags: -e teaches the profile predictor that the referrer needs the origin of the URL",
    "[fetch][curl][predictor]") {
  REQUIRE_NETSTACK_BINARY();
  NginxFixture nginx;
  START_OR_SKIP(nginx);
  TempDir taught, fresh;
  const std::string page = nginx.HttpUrl("/page.html");
  NetstackRun run = RunNetstack(
      {"fetch", "--profile", taught.path(), "--json", "-e", page, nginx.HttpUrl("/small.txt")});
  INFO(run.Describe());
  CHECK_FETCH_OK(run, 1u);
  // A page load of the referrer in each profile: only the taught one starts with learned rows.
  auto rows_loaded = [&](const std::string& profile) {
    NetstackRun load = RunNetstack({"fetch", "--profile", profile, "--page", "--json", page});
    INFO(load.Describe());
    REQUIRE(load.exit_code() == 0);
    REQUIRE(!load.records.empty());
    return JsonInt(load.records.back(), "predictor/rows_loaded");
  };
  CHECK(rows_loaded(taught.path()) > 0);
  CHECK(rows_loaded(fresh.path()) == 0);
}

TEST_CASE("bad curl flag values exit 2 with one line", "[fetch][curl][usage]") {
  REQUIRE_NETSTACK_BINARY();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-X", "GE T"},
           {"-X", "CONNECT"},
           {"-u", "nopassword"},
           {"-e", "not a url"},
           {"-L", "--no-follow"},
           {"-w", "@/nonexistent/format"},
           {"-w", "%{http_code}", "--json"},
       }) {
    NetstackRun run = RunNetstack(Concat(Concat({"fetch"}, args), {"http://127.0.0.1:1/"}));
    INFO(args[0] << " " << args[1] << "\n" << run.Describe());
    CHECK(run.exit_code() == 2);
    CHECK(run.StderrLines().size() == 1);
    CHECK(run.process.out.empty());
  }
}

}  // namespace
}  // namespace netstack::test
