// The configuration texts (tools/lab/nginx_config.h, dnsmasq_config.h) and the default site
// (tools/lab/default_site.h) as the page loader sees it.
#include <catch2/catch.hpp>
#include <set>

#include "tests/support/temp_dir.h"
#include "tools/lab/default_site.h"
#include "tools/lab/dnsmasq_config.h"
#include "tools/lab/lab_site.h"
#include "tools/lab/nginx_config.h"
#include "tools/page/html_scanner.h"

namespace netstack {
namespace {

using test::TempDir;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

NginxConfigParams TwoHosts(TimeDelta first_think, TimeDelta second_think) {
  NginxConfigParams p;
  p.work_dir = "/w";
  p.server_key = "/w/server.key";
  p.hosts = {{"a.lab", "198.19.0.2", "/s/a.lab", "/w/certs/a.lab.pem", first_think},
             {"b.lab", "198.19.0.3", "/s/b.lab", "/w/certs/b.lab.pem", second_think}};
  return p;
}

TEST_CASE("NginxSleepSeconds writes milliseconds as echo_sleep's seconds", "[lab]") {
  CHECK(NginxSleepSeconds(TimeDelta(0)) == "0.000");
  CHECK(NginxSleepSeconds(Milliseconds(50)) == "0.050");
  CHECK(NginxSleepSeconds(Milliseconds(1234)) == "1.234");
  CHECK(NginxSleepSeconds(TimeDelta(1499)) == "0.001");  // rounded to the millisecond
  CHECK(NginxSleepSeconds(TimeDelta(1500)) == "0.002");
  CHECK(NginxSleepSeconds(TimeDelta(400)) == "0.000");
}

TEST_CASE("nginx config without think time loads no echo module", "[lab]") {
  const std::string c = NginxConfigText(TwoHosts(TimeDelta(0), TimeDelta(0)));
  CHECK(c.find("load_module") == std::string::npos);
  CHECK(c.find("echo_sleep") == std::string::npos);
  CHECK(Count(c, "server {") == 2);
  CHECK(c.find("listen 198.19.0.2:80;") != std::string::npos);
  CHECK(c.find("listen 198.19.0.2:443 ssl http2;") != std::string::npos);
  CHECK(c.find("listen 198.19.0.3:443 ssl http2;") != std::string::npos);
  CHECK(c.find("server_name a.lab;") != std::string::npos);
  CHECK(c.find("ssl_certificate \"/w/certs/b.lab.pem\";") != std::string::npos);
  CHECK(c.find("root \"/s/b.lab\";") != std::string::npos);
  CHECK(c.find("gzip off;") != std::string::npos);
  CHECK(c.find("daemon off;") != std::string::npos);
  CHECK(c.find("pid \"/w/nginx.pid\";") != std::string::npos);
  CHECK(c.find("access_log \"/w/logs/access.log\" lab;") != std::string::npos);
  CHECK(c.find("$request_time") != std::string::npos);
  CHECK(c.find("$connection_requests") != std::string::npos);
  CHECK(c.find("user root;") == std::string::npos);
}

TEST_CASE("nginx config sleeps per host, then serves the file", "[lab]") {
  NginxConfigParams p = TwoHosts(Milliseconds(40), TimeDelta(0));
  p.http2 = false;
  p.run_as_root = true;
  const std::string c = NginxConfigText(p);
  CHECK(c.find("load_module \"" + std::string(kNginxEchoModulePath) + "\";") != std::string::npos);
  CHECK(Count(c, "echo_sleep 0.040;") == 1);
  CHECK(Count(c, "echo_exec @file;") == 1);
  CHECK(c.find("listen 198.19.0.2:443 ssl;") != std::string::npos);
  CHECK(c.find("http2") == std::string::npos);
  CHECK(c.find("user root;") != std::string::npos);
  // The host without think time serves plainly.
  const std::string b = c.substr(c.find("server_name b.lab;"));
  CHECK(b.find("echo_sleep") == std::string::npos);
}

TEST_CASE("nginx config makes room for every listening socket", "[lab]") {
  NginxConfigParams p;
  p.work_dir = "/w";
  for (int i = 0; i < 3000; ++i) {
    p.hosts.push_back({"h" + std::to_string(i) + ".lab", "198.19.1.1", "/s", "/c", TimeDelta(0)});
  }
  const std::string c = NginxConfigText(p);
  CHECK(c.find("worker_connections 10096;") != std::string::npos);  // 2 x 3000 + 4096
  CHECK(c.find("worker_rlimit_nofile 10160;") != std::string::npos);
}

TEST_CASE("dnsmasq config answers exactly the site's hosts on the DNS address", "[lab]") {
  DnsmasqConfigParams p;
  p.work_dir = "/w";
  p.listen_address = "198.19.0.1";
  p.hosts = {{"a.lab", "198.19.0.2"}, {"b.lab", "198.19.0.3"}};
  const std::string c = DnsmasqConfigText(p);
  for (const char* line : {"port=53\n", "listen-address=198.19.0.1\n", "bind-interfaces\n",
                           "no-resolv\n", "no-hosts\n", "pid-file=/w/dnsmasq.pid\n",
                           "local-ttl=300\n", "host-record=a.lab,198.19.0.2,300\n", "address=/#/\n",
                           "host-record=b.lab,198.19.0.3,300\n"}) {
    INFO(line);
    CHECK(c.find(line) != std::string::npos);
  }
  CHECK(c.find("dhcp") == std::string::npos);
  CHECK(c.find("user=root") == std::string::npos);
}

TEST_CASE("the default site is three hosts the page loader finds from the page", "[lab]") {
  TempDir dir("lab-default");
  std::string error;
  REQUIRE(WriteDefaultSite(dir.Join("site"), &error));
  std::vector<std::string> hosts;
  REQUIRE(ReadLabSite(dir.Join("site"), &hosts, &error));
  CHECK(hosts == std::vector<std::string>{"img.site0.lab", "site0.lab", "static.site0.lab"});

  std::string html;
  REQUIRE(test::ReadFileToString(dir.Join("site/site0.lab/index.html"), &html));
  Url page;
  std::string message;
  REQUIRE(Url::Parse(kDefaultSitePageUrl, &page, &message) == 0);
  const ScanResult scan = ScanHtml(html, page);
  std::set<std::string> scanned_hosts;
  for (const Subresource& s : scan.subresources) {
    scanned_hosts.insert(s.url.host());
    // Every reference is a file of the site.
    std::string body;
    INFO(s.url.host() << s.url.path_and_query());
    CHECK(test::ReadFileToString(dir.Join("site/" + s.url.host() + s.url.path_and_query()), &body));
  }
  CHECK(scan.subresources.size() == 10);
  CHECK(scanned_hosts == std::set<std::string>(hosts.begin(), hosts.end()));
  CHECK(scan.bad_urls == 0);
}

TEST_CASE("the default site is the same bytes every time", "[lab]") {
  TempDir one("lab-default");
  TempDir two("lab-default");
  std::string error;
  REQUIRE(WriteDefaultSite(one.path(), &error));
  REQUIRE(WriteDefaultSite(two.path(), &error));
  size_t total = 0;
  for (const char* f : {"site0.lab/index.html", "static.site0.lab/js/vendor.js",
                        "img.site0.lab/img/hero.png", "img.site0.lab/img/thumb-4.png"}) {
    std::string a, b;
    REQUIRE(test::ReadFileToString(one.Join(f), &a));
    REQUIRE(test::ReadFileToString(two.Join(f), &b));
    CHECK(a == b);
    total += a.size();
  }
  CHECK(total > 40 * 1024);
}

TEST_CASE("WriteDefaultSite names the folder it cannot make", "[lab]") {
  TempDir dir("lab-default");
  dir.Write("file", "x");
  std::string error;
  CHECK_FALSE(WriteDefaultSite(dir.Join("file/site"), &error));
  CHECK(error.rfind("default site: cannot create " + dir.Join("file/site"), 0) == 0);
}

}  // namespace
}  // namespace netstack
