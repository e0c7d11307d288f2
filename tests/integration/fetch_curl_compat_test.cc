// curl and `netstack fetch` given the same ordinary invocations against one nginx: the status,
// the body, the request headers nginx received (echoed back in the body of /echo) and the -w
// fields that must agree (status, sizes, effective URL, redirects) are compared byte for byte.
// curl is Debian's, installed by the fixture's installer when missing.
#include <string>
#include <vector>

#include "tests/integration/fetch_test_util.h"
#include "tests/integration/loopback_port.h"
#include "tests/integration/package_installer.h"

namespace netstack::test {
namespace {

// What nginx received, one field a line; /plain serves files without gzip, so a client that
// offers no encoding (curl without --compressed) and one that always does (netstack) get the
// same bytes and sizes.
constexpr char kEchoConfig[] =
    "    location = /echo {\n"
    "      gzip off;\n"
    "      default_type text/plain;\n"
    "      return 200 \"method=$request_method\\nuser-agent=$http_user_agent\\n"
    "referer=$http_referer\\nauthorization=$http_authorization\\n"
    "x-forwarded-for=$http_x_forwarded_for\\ncookie=$http_cookie\\n"
    "content-type=$content_type\\ncontent-length=$content_length\\naccept=$http_accept\\n"
    "x-custom=$http_x_custom\\nhost=$http_host\\n\";\n"
    "    }\n"
    "    location /plain/ { gzip off; alias $WWW/; }\n"
    "    location = /see-other { return 303 /echo; }\n";

struct Case {
  std::string name;
  std::vector<std::string> args;  // given to both, before the URL
  std::string path;
  bool https = false;
  // Only for netstack: its -I prints no head without -i (curl's -I does).
  std::vector<std::string> netstack_extra = {};
  // Compare the -i heads' status lines and header names, not the bytes (Date may tick).
  bool head_output = false;
  // The -w format when not kWriteOut's.
  std::string write_out = {};
};

// The -w format both get: the fields that must agree.
const char kWriteOut[] =
    "\\n--\\n%{http_code} %{size_download} %{size_upload} %{num_redirects} %{url_effective} "
    "%{content_type} %{http_version} %{scheme}\\n";

std::string Curl(std::string* why) { return EnsureProgram("curl", "curl", why); }

// Each head's status line and lower-cased header names (-i -L prints one head per hop, each
// ending at an empty line), then what follows the last one, so outputs compare without their
// Date values.
std::string HeadShape(const std::string& out) {
  std::string shape;
  size_t start = 0;
  do {
    const size_t end = out.find("\r\n\r\n", start);
    if (end == std::string::npos) return shape + "no head: " + out.substr(start);
    size_t pos = out.find("\r\n", start);
    shape += out.substr(start, pos - start) + "\n";
    pos += 2;
    while (pos < end + 2) {
      const size_t eol = out.find("\r\n", pos);
      std::string name = out.substr(pos, out.find(':', pos) - pos);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      shape += name + "\n";
      pos = eol + 2;
    }
    shape += "--\n";
    start = end + 4;
  } while (out.compare(start, 5, "HTTP/") == 0);
  return shape + out.substr(start);
}

TEST_CASE("curl and netstack fetch agree on everyday invocations", "[fetch][curl]") {
  REQUIRE_NETSTACK_BINARY();
  std::string why;
  const std::string curl = Curl(&why);
  if (curl.empty()) SKIP_TEST("curl: " + why);
  NginxFixture nginx;
  std::string config = kEchoConfig;
  config.replace(config.find("$WWW"), 4, nginx.dir() + "/www");
  nginx.AddServerConfig(config);
  START_OR_SKIP(nginx);
  const std::string ca = nginx.ca_cert();

  const std::vector<std::string> ua = {"-A", "compat-test/1"};
  auto with_ua = [&ua](std::vector<std::string> args) { return Concat(ua, args); };
  const std::vector<Case> cases = {
      {"plain GET", with_ua({}), "/echo"},
      {"a file", with_ua({}), "/plain/small.txt"},
      {"-A", {"-A", "Mozilla/5.0 (X11; Linux x86_64) compat"}, "/echo"},
      {"-e", with_ua({"-e", "http://referrer.test/page.html"}), "/echo"},
      {"-u", with_ua({"-u", "aladdin:open sesame"}), "/echo"},
      {"-H", with_ua({"-H", "X-Custom: one", "-H", "Accept: text/plain"}), "/echo"},
      // nginx 1.22 joins these two fields' lines (X-Forwarded-For with ", ", Cookie with "; "):
      // curl's two lines and netstack's one joined line arrive the same.
      {"-H repeated",
       with_ua({"-H", "X-Forwarded-For: 192.0.2.1", "-H", "X-Forwarded-For: 192.0.2.2", "-H",
                "Cookie: a=1", "-H", "Cookie: b=2"}),
       "/echo"},
      {"-d (POST)", with_ua({"-d", "name=value&x=1"}), "/echo"},
      {"-X PUT -d", with_ua({"-X", "PUT", "-d", "a=1&b=2"}), "/echo"},
      {"-X PATCH -d with a type",
       with_ua({"-X", "PATCH", "-d", "{\"a\":1}", "-H", "Content-Type: application/json"}),
       "/echo"},
      {"-X DELETE", with_ua({"-X", "DELETE"}), "/echo"},
      {"-X OPTIONS", with_ua({"-X", "OPTIONS"}), "/echo"},
      {"-X custom", with_ua({"-X", "PURGE"}), "/echo"},
      {"-L", with_ua({"-L", "--compressed"}), "/redirect/3"},
      {"-L 303 after POST", with_ua({"-L", "-d", "x=1"}), "/see-other"},
      {"--compressed", with_ua({"--compressed"}), "/small.txt"},
      {"-r", with_ua({"-r", "100-199"}), "/plain/small.txt"},
      {"-r suffix", with_ua({"-r", "-50"}), "/plain/small.txt"},
      {"-r open", with_ua({"-r", "600-"}), "/plain/small.txt"},
      {"-i", with_ua({"-i"}), "/plain/small.txt", false, {}, true},
      // Every hop's head, then the final body; the heads' bytes summed and the hops counted
      // (--compressed: both offer gzip, so nginx frames the responses alike).
      {"-i -L",
       with_ua({"-i", "-L", "--compressed"}),
       "/redirect/3",
       false,
       {},
       true,
       "\\n--\\n%{http_code} %{size_header} %{num_redirects} %{size_download} %{url_effective}\\n"},
      // 'Name:' sends no Name at all, not even netstack's default; 'Name;' sends it empty.
      {"-H 'Accept:'", with_ua({"-H", "Accept:", "-H", "X-Custom;"}), "/echo"},
      {"-H 'User-Agent:'", {"-H", "User-Agent:"}, "/echo"},
      {"-I", with_ua({"-I"}), "/plain/small.txt", false, {"-i"}, true},
      {"https", with_ua({"--cacert", ca}), "/echo", true},
  };
  for (const Case& c : cases) {
    const std::string url = c.https ? nginx.HttpsUrl(c.path) : nginx.HttpUrl(c.path);
    const std::string write_out = c.write_out.empty() ? kWriteOut : c.write_out;
    std::vector<std::string> curl_argv = Concat({curl, "-s", "-w", write_out}, c.args);
    curl_argv.push_back(url);
    ProcessResult by_curl = RunProcess(curl_argv, std::chrono::seconds(30));
    std::vector<std::string> ns_argv = Concat(
        Concat({"fetch", "--private", "-s", "-o", "-", "-w", write_out}, c.args), c.netstack_extra);
    ns_argv.push_back(url);
    NetstackRun by_netstack = RunNetstack(ns_argv, std::chrono::seconds(30));
    INFO(c.name << ": " << url << "\ncurl: " << by_curl.Describe()
                << "\nnetstack: " << by_netstack.Describe());
    REQUIRE(by_curl.exit_code == 0);
    REQUIRE(by_netstack.exit_code() == 0);
    CHECK(by_netstack.process.err.empty());
    // The body (with the echoed request headers) and the -w line, each exactly.
    if (c.head_output) {
      CHECK(HeadShape(by_netstack.process.out) == HeadShape(by_curl.out));
    } else {
      CHECK(by_netstack.process.out == by_curl.out);
    }
    // Not an empty agreement: every run printed a status.
    CHECK(by_curl.out.find("\n--\n") != std::string::npos);
  }
}

TEST_CASE("curl and netstack fetch agree on a refused connection with -s and with -sS",
          "[fetch][curl]") {
  REQUIRE_NETSTACK_BINARY();
  std::string why;
  const std::string curl = Curl(&why);
  if (curl.empty()) SKIP_TEST("curl: " + why);
  const std::string url = "http://127.0.0.1:" + std::to_string(PickClosedPort()) + "/";
  for (const bool show_error : {false, true}) {
    const std::string flag = show_error ? "-sS" : "-s";
    ProcessResult by_curl = RunProcess({curl, flag, "-w", "%{http_code}", url});
    NetstackRun by_netstack = RunNetstack({"fetch", "--private", flag, "-w", "%{http_code}", url});
    INFO(flag << "\ncurl: " << by_curl.Describe() << "\nnetstack: " << by_netstack.Describe());
    // Both fail, print curl's 000 for no response, and say why on stderr only with -S.
    CHECK(by_curl.exit_code != 0);
    CHECK(by_netstack.exit_code() == 1);
    CHECK(by_curl.out == "000");
    CHECK(by_netstack.process.out == "000");
    CHECK(by_curl.err.empty() == !show_error);
    CHECK(by_netstack.process.err.empty() == !show_error);
    if (show_error)
      CHECK(by_netstack.process.err.find("ERR_CONNECTION_REFUSED") != std::string::npos);
  }
}

}  // namespace
}  // namespace netstack::test
