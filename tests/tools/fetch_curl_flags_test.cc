#include "tools/netstack/fetch_curl_flags.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "net/base/net_log.h"
#include "tests/support/temp_dir.h"
#include "tests/tools/parse_fetch_args.h"
#include "tools/netstack/fetch_wire_log.h"

using namespace netstack;

namespace {

bool Parse(const std::vector<std::string>& args, FetchOptions* options, std::string* message) {
  return test::ParseFetchArgs(args, options, message);
}

std::string HeaderValue(const FetchOptions& o, const std::string& name) {
  for (const auto& [n, v] : o.headers)
    if (n == name) return v;
  return "<absent>";
}

}  // namespace

TEST_CASE(
    "curl flags: -X takes any token with the Fetch standard's six upper-cased and others as "
    "typed") {
  std::string method, msg;
  for (const char* m : {"PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND", "M-SEARCH"}) {
    REQUIRE(NormalizeMethod(m, &method, &msg));
    CHECK(method == m);
  }
  REQUIRE(NormalizeMethod("put", &method, &msg));
  CHECK(method == "PUT");
  REQUIRE(NormalizeMethod("delete", &method, &msg));
  CHECK(method == "DELETE");
  // Not one of the six: case-sensitive (RFC 9110 section 9.1), sent as typed.
  REQUIRE(NormalizeMethod("patch", &method, &msg));
  CHECK(method == "patch");

  const std::vector<std::string> bads = {"",
                                         "GE T",
                                         "GET\r\n",
                                         "G(ET)",
                                         "GET/1",
                                         "caf\xc3\xa9",
                                         std::string(kMaxMethodLength + 1, 'X')};
  for (const std::string& bad : bads) {
    INFO(bad);
    msg.clear();
    CHECK_FALSE(NormalizeMethod(bad, &method, &msg));
    CHECK(msg.rfind("bad -X \"", 0) == 0);
    CHECK(msg.find('\n') == std::string::npos);
  }
  CHECK_FALSE(NormalizeMethod("CONNECT", &method, &msg));
  CHECK(msg.find("CONNECT") != std::string::npos);
  CHECK(NormalizeMethod(std::string(kMaxMethodLength, 'X'), &method, &msg));
}

TEST_CASE("curl flags: -X PUT with -d and a bad token is a usage error") {
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"-X", "put", "-d", "a=1", "http://a.test/"}, &o, &msg));
  CHECK(o.method == "PUT");
  CHECK(o.data == "a=1");
  // curl's -d: a form body unless -H says otherwise.
  CHECK(HeaderValue(o, "Content-Type") == "application/x-www-form-urlencoded");

  FetchOptions typed;
  REQUIRE(
      Parse({"-X", "PATCH", "-d", "{}", "-H", "content-type: application/json", "http://a.test/"},
            &typed, &msg));
  CHECK(typed.method == "PATCH");
  CHECK(HeaderValue(typed, "content-type") == "application/json");
  CHECK(HeaderValue(typed, "Content-Type") == "<absent>");

  FetchOptions bad;
  CHECK_FALSE(Parse({"-X", "GE T", "http://a.test/"}, &bad, &msg));
  CHECK(msg.find("bad -X \"GE T\"") != std::string::npos);
  CHECK_FALSE(Parse({"-X", "PUT", "-I", "http://a.test/"}, &bad, &msg));
  CHECK(msg == "-I conflicts with -X PUT");
}

TEST_CASE(
    "curl flags: a -H name given again is joined (Cookie too) and a bare name with a semicolon is "
    "empty") {
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"-H", "X-Multi: a", "-H", "Accept: text/html", "-H", "x-multi: b", "-H",
                 "Cookie: a=1", "-H", "Cookie: b=2", "-H", "X-Empty;", "http://a.test/"},
                &o, &msg));
  REQUIRE(o.headers.size() == 4);
  CHECK(o.headers[0] == std::pair<std::string, std::string>("X-Multi", "a, b"));
  CHECK(o.headers[1] == std::pair<std::string, std::string>("Accept", "text/html"));
  CHECK(o.headers[2] == std::pair<std::string, std::string>("Cookie", "a=1; b=2"));
  CHECK(o.headers[3] == std::pair<std::string, std::string>("X-Empty", ""));

  std::pair<std::string, std::string> h;
  CHECK_FALSE(ParseHeaderLine(";", &h, &msg));
  CHECK_FALSE(ParseHeaderLine("Bad Name;", &h, &msg));
  CHECK_FALSE(ParseHeaderLine("NoColon", &h, &msg));
  CHECK(msg.find("expected 'Name: value'") != std::string::npos);
}

TEST_CASE("curl flags: -H 'Name:' omits netstack's own Name, -A's and -d's too, not -H's value") {
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"-H", "Accept:", "-H", "user-agent:", "-A", "agent/1", "-d", "x=1", "-H",
                 "Content-Type: \t", "-H", "X-Both: kept", "-H", "X-Both:", "-H", "accept:", "-e",
                 "http://ref.test/", "http://a.test/"},
                &o, &msg));
  // Each name once, as first typed; the -H value of X-Both stays, -A's and -d's are gone.
  CHECK(o.omitted_headers ==
        std::vector<std::string>{"Accept", "user-agent", "Content-Type", "X-Both"});
  CHECK(HeaderValue(o, "X-Both") == "kept");
  CHECK(HeaderValue(o, "User-Agent") == "<absent>");
  CHECK(HeaderValue(o, "Content-Type") == "<absent>");
  CHECK(HeaderValue(o, "Referer") == "http://ref.test/");
  CHECK(o.data == "x=1");

  // Without 'Name:' nothing is omitted, and 'Name;' is a value, not an omission.
  FetchOptions plain;
  REQUIRE(Parse({"-H", "X-Empty;", "http://a.test/"}, &plain, &msg));
  CHECK(plain.omitted_headers.empty());
  CHECK(HeaderValue(plain, "X-Empty") == "");

  for (const char* framing : {"Host:", "content-length:"}) {
    FetchOptions bad;
    INFO(framing);
    CHECK_FALSE(Parse({"-H", framing, "http://a.test/"}, &bad, &msg));
    CHECK(msg.find(std::string("bad header \"") + framing + "\": netstack always sends") == 0);
    CHECK(msg.find('\n') == std::string::npos);
  }
  // A framing field with a value is still the user's to give.
  FetchOptions host;
  REQUIRE(Parse({"-H", "Host: b.test", "http://a.test/"}, &host, &msg));
  CHECK(HeaderValue(host, "Host") == "b.test");
}

TEST_CASE("curl flags: -A and -e and -u become headers unless -H gave them") {
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"-A", "agent/1", "-e", "http://ref.test/page", "-u", "Aladdin:open sesame",
                 "http://a.test/"},
                &o, &msg));
  CHECK(HeaderValue(o, "User-Agent") == "agent/1");
  CHECK(HeaderValue(o, "Referer") == "http://ref.test/page");
  // RFC 7617's own example.
  CHECK(HeaderValue(o, "Authorization") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  CHECK(BasicAuthorization("") == "Basic ");
  CHECK(BasicAuthorization("a:") == "Basic YTo=");

  FetchOptions h;
  REQUIRE(Parse({"-H", "User-Agent: from-h", "-A", "from-a", "-H", "Authorization: Bearer t", "-u",
                 "u:p", "http://a.test/"},
                &h, &msg));
  CHECK(HeaderValue(h, "User-Agent") == "from-h");
  CHECK(HeaderValue(h, "Authorization") == "Bearer t");
  CHECK(h.headers.size() == 2);
}

TEST_CASE("curl flags: bad values are one-line usage errors") {
  std::string msg;
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"-u", "nopassword", "http://a.test/"}, "bad -u \"nopassword\": expected user:password"},
      {{"-e", "not a url", "http://a.test/"}, "bad -e \"not a url\""},
      {{"-A", std::string("a\nb"), "http://a.test/"}, "bad -A"},
      {{"-L", "--no-follow", "http://a.test/"}, "excludes"},
      {{"-w", "%{http_code}", "--json", "http://a.test/"}, "--json conflicts with -w"},
      {{"-i", "--json", "http://a.test/"}, "--json conflicts with -i"},
      {{"-v", "--page", "http://a.test/"}, "--page conflicts with -v"},
      {{"-w", "@/nonexistent/format", "http://a.test/"},
       "cannot read -w file \"/nonexistent/format\": No such file or directory"},
  };
  for (const Case& c : cases) {
    FetchOptions o;
    INFO(c.args[0] << " " << c.args[1]);
    msg.clear();
    CHECK_FALSE(Parse(c.args, &o, &msg));
    CHECK(msg.find(c.expected) != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE(
    "curl flags: -w @FILE reads the format within its bound and -L --compressed -s -S are "
    "accepted") {
  test::TempDir dir;
  const std::string path = dir.path() + "/format";
  std::ofstream(path) << "%{http_code}\\n";
  FetchOptions o;
  std::string msg;
  REQUIRE(Parse({"-w", "@" + path, "-L", "--compressed", "-s", "-S", "-i", "-v", "http://a.test/"},
                &o, &msg));
  CHECK(o.write_out == "%{http_code}\\n");
  CHECK(o.location);
  CHECK_FALSE(o.no_follow);
  CHECK(o.silent);
  CHECK(o.show_error);

  const std::string big = dir.path() + "/big";
  std::ofstream(big) << std::string(kMaxWriteOutBytes + 1, 'x');
  FetchOptions over;
  CHECK_FALSE(Parse({"-w", "@" + big, "http://a.test/"}, &over, &msg));
  CHECK(msg.find("over 64 KiB (the bound on a -w format)") != std::string::npos);
}

TEST_CASE(
    "curl flags: the -v lines of connect and TLS and the request and response heads as curl prints "
    "them") {
  std::map<uint32_t, std::string> addresses;
  auto entry = [](NetLogEventType type, NetLogEventPhase phase, uint32_t id,
                  nlohmann::json params) {
    NetLogEntry e{type, NetLogSource{NetLogSourceType::NONE, id, TimeTicks{}}, phase, TimeTicks{},
                  std::move(params)};
    return e;
  };
  CHECK(
      FetchWireLog::VerboseLines(entry(NetLogEventType::TCP_CONNECT_ATTEMPT,
                                       NetLogEventPhase::BEGIN, 7, {{"address", "127.0.0.1:8080"}}),
                                 &addresses) == "*   Trying 127.0.0.1:8080...\n");
  CHECK(FetchWireLog::VerboseLines(
            entry(NetLogEventType::TCP_CONNECT, NetLogEventPhase::END, 7, nullptr), &addresses) ==
        "* Connected to 127.0.0.1:8080\n");
  CHECK(addresses.empty());
  CHECK(FetchWireLog::VerboseLines(entry(NetLogEventType::SSL_CONNECT, NetLogEventPhase::END, 7,
                                         {{"version", "TLSv1.3"},
                                          {"cipher_suite", "TLS_AES_128_GCM_SHA256"},
                                          {"is_resumed", false},
                                          {"next_proto", "h2"}}),
                                   &addresses) ==
        "* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256\n* ALPN: server accepted h2\n");
  CHECK(FetchWireLog::VerboseLines(
            entry(NetLogEventType::HTTP_TRANSACTION_SEND_REQUEST_HEADERS, NetLogEventPhase::NONE, 9,
                  {{"line", "PUT /x HTTP/1.1\r\n"}, {"headers", {"Host: a", "X: 1"}}}),
            &addresses) == "> PUT /x HTTP/1.1\n> Host: a\n> X: 1\n>\n");
  CHECK(
      FetchWireLog::VerboseLines(entry(NetLogEventType::HTTP_TRANSACTION_HTTP2_SEND_REQUEST_HEADERS,
                                       NetLogEventPhase::NONE, 9,
                                       {{"headers",
                                         {":method: GET", ":authority: a:1", ":scheme: https",
                                          ":path: /p", "accept: */*"}}}),
                                 &addresses) == "> GET /p HTTP/2\n> Host: a:1\n> accept: */*\n>\n");
  CHECK(FetchWireLog::VerboseLines(
            entry(NetLogEventType::HTTP_TRANSACTION_READ_RESPONSE_HEADERS, NetLogEventPhase::NONE,
                  9, {{"headers", {"HTTP/1.1 200 OK", "A: \x1b[31m"}}}),
            &addresses) == "< HTTP/1.1 200 OK\n< A: \\x1b[31m\n<\n");
  // Events -v does not show.
  CHECK(
      FetchWireLog::VerboseLines(
          entry(NetLogEventType::SOCKET_BYTES_SENT, NetLogEventPhase::NONE, 9, nullptr), &addresses)
          .empty());
}
