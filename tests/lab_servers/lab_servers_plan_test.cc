// PlanLabServers (tools/lab/lab_servers.h): the files a plan writes, the hosts and addresses it
// gives, the processes it names, each error it reports and that a failed plan leaves nothing
// behind; and that nginx and dnsmasq accept the configurations (`nginx -t`, `dnsmasq --test`).
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/integration/package_installer.h"
#include "tests/integration/process_runner.h"
#include "tests/lab_servers/loopback_prefix.h"
#include "tests/support/temp_dir.h"
#include "tests/test_skip.h"
#include "tools/lab/lab_servers.h"
#include "tools/lab/lab_site.h"
#include "tools/lab/nginx_config.h"

namespace netstack {
namespace {

using test::TempDir;

// Programs a plan names but never runs: planning needs no nginx or dnsmasq on the machine.
LabServerPrograms FakePrograms() {
  return {"/opt/lab/nginx", "/opt/lab/dnsmasq", kNginxEchoModulePath, kNginxMimeTypesPath,
          "/opt/lab/prlimit"};
}

std::string Read(const std::string& path) {
  std::string s;
  test::ReadFileToString(path, &s);
  return s;
}

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

// Whether `cert_file` chains to `ca_file` and names `host`.
bool VerifiesFor(const std::string& ca_file, const std::string& cert_file,
                 const std::string& host) {
  FILE* f = std::fopen(cert_file.c_str(), "r");
  if (!f) return false;
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  bool ok = cert && X509_STORE_load_file(store, ca_file.c_str()) == 1 &&
            X509_STORE_CTX_init(ctx, store, cert, nullptr) == 1;
  if (ok) {
    X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(ctx), host.c_str(), host.size());
    X509_VERIFY_PARAM_set_purpose(X509_STORE_CTX_get0_param(ctx), X509_PURPOSE_SSL_SERVER);
    ok = X509_verify_cert(ctx) == 1;
  }
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  X509_free(cert);
  return ok;
}

// base64(SHA-256(SubjectPublicKeyInfo)) of the certificate in `cert_file`, as Chromium hashes it.
std::string SpkiHashOf(const std::string& cert_file) {
  FILE* f = std::fopen(cert_file.c_str(), "r");
  if (!f) return "";
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (!cert) return "";
  unsigned char* der = nullptr;
  const int len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &der);
  unsigned char digest[32];
  unsigned int digest_len = 0;
  EVP_Digest(der, len, digest, &digest_len, EVP_sha256(), nullptr);
  OPENSSL_free(der);
  X509_free(cert);
  unsigned char b64[64];
  const int n = EVP_EncodeBlock(b64, digest, static_cast<int>(digest_len));
  return std::string(reinterpret_cast<char*>(b64), n);
}

TEST_CASE("a plan for the default site", "[lab]") {
  TempDir dir("lab-plan");
  LabServerOptions options;
  options.work_dir = dir.Join("work");
  LabServerPlan plan;
  std::string error;
  REQUIRE(PlanLabServersWith(options, FakePrograms(), &plan, &error));
  CHECK(error.empty());
  const std::string w = dir.Join("work");

  using Hosts = std::vector<std::pair<std::string, std::string>>;
  CHECK(plan.hosts == Hosts{{"img.site0.lab", "198.19.0.2"},
                            {"site0.lab", "198.19.0.3"},
                            {"static.site0.lab", "198.19.0.4"}});
  CHECK(plan.dns_address == "198.19.0.1");
  CHECK(plan.addresses ==
        std::vector<std::string>{"198.19.0.1", "198.19.0.2", "198.19.0.3", "198.19.0.4"});
  CHECK(plan.site_dir == w + "/site");
  CHECK(Exists(w + "/site/site0.lab/index.html"));
  CHECK(plan.ca_file == w + "/ca.pem");
  CHECK(plan.resolv_conf == w + "/resolv.conf");
  CHECK(Read(plan.resolv_conf).find("\nnameserver 198.19.0.1\n") != std::string::npos);

  REQUIRE(plan.processes.size() == 2);
  CHECK(plan.processes[0] == std::vector<std::string>{"/opt/lab/nginx", "-p", w + "/", "-c",
                                                      w + "/nginx.conf", "-e",
                                                      w + "/logs/nginx-error.log"});
  CHECK(plan.processes[1] ==
        std::vector<std::string>{"/opt/lab/dnsmasq", "-k", "--conf-file=" + w + "/dnsmasq.conf"});
  using Ports = std::vector<std::pair<std::string, int>>;
  CHECK(plan.ready_ports == Ports{{"198.19.0.2", 443},
                                  {"198.19.0.2", 80},
                                  {"198.19.0.3", 443},
                                  {"198.19.0.3", 80},
                                  {"198.19.0.4", 443},
                                  {"198.19.0.4", 80},
                                  {"198.19.0.1", 53}});

  // The CA and a certificate per host that verifies for that host only.
  for (const auto& [host, address] : plan.hosts) {
    INFO(host);
    CHECK(VerifiesFor(plan.ca_file, w + "/certs/" + host + ".pem", host));
    CHECK_FALSE(VerifiesFor(plan.ca_file, w + "/certs/" + host + ".pem", "other.lab"));
  }
  const std::string spki = Read(w + "/ca.spki");
  CHECK(spki.size() == 2 * 44 + 2);  // two base64 SHA-256 hashes, a comma, a newline
  CHECK(spki[44] == ',');
  // The CA's key, then the key every host's certificate carries (the one Chromium sees).
  CHECK(spki.substr(0, 44) == SpkiHashOf(plan.ca_file));
  CHECK(spki.substr(45, 44) == SpkiHashOf(w + "/certs/site0.lab.pem"));
  CHECK(spki.substr(45, 44) == SpkiHashOf(w + "/certs/img.site0.lab.pem"));
  CHECK(Read(w + "/ca.pem").find("BEGIN CERTIFICATE") != std::string::npos);

  const std::string nginx = Read(w + "/nginx.conf");
  CHECK(nginx.find("listen 198.19.0.3:443 ssl http2;") != std::string::npos);
  CHECK(nginx.find("root \"" + w + "/site/site0.lab\";") != std::string::npos);
  CHECK(nginx.find("echo_sleep") == std::string::npos);
  const std::string dns = Read(w + "/dnsmasq.conf");
  CHECK(dns.find("listen-address=198.19.0.1\n") != std::string::npos);
  CHECK(dns.find("host-record=site0.lab,198.19.0.3,300\n") != std::string::npos);
  CHECK(std::filesystem::is_directory(w + "/logs"));
  CHECK(std::filesystem::is_directory(w + "/tmp"));
}

TEST_CASE("a plan for a site folder, with think time per host", "[lab]") {
  TempDir dir("lab-plan");
  dir.Write("site/www.example.lab/index.html", "<p>hi</p>");
  dir.Write("site/cdn.example.lab/app.js", "1;");
  LabServerOptions options;
  options.site_dir = dir.Join("site/");
  options.work_dir = dir.Join("work");
  options.address_prefix = "127.77";
  options.server_time = Milliseconds(25);
  options.server_time_by_host["cdn.example.lab"] = Milliseconds(5);
  options.http2 = false;
  LabServerPlan plan;
  std::string error;
  REQUIRE(PlanLabServersWith(options, FakePrograms(), &plan, &error));
  CHECK(plan.site_dir == dir.Join("site"));
  using Hosts = std::vector<std::pair<std::string, std::string>>;
  CHECK(plan.hosts == Hosts{{"cdn.example.lab", "127.77.0.2"}, {"www.example.lab", "127.77.0.3"}});
  CHECK(plan.dns_address == "127.77.0.1");
  CHECK_FALSE(Exists(dir.Join("work/site")));  // the user's site is served where it is
  const std::string nginx = Read(dir.Join("work/nginx.conf"));
  CHECK(nginx.find("load_module") != std::string::npos);
  const std::string cdn = nginx.substr(nginx.find("server_name cdn.example.lab;"));
  const std::string www = nginx.substr(nginx.find("server_name www.example.lab;"));
  CHECK(cdn.find("echo_sleep 0.005;") < cdn.find("server_name www"));
  CHECK(www.find("echo_sleep 0.025;") != std::string::npos);
  CHECK(nginx.find("http2") == std::string::npos);
  CHECK(nginx.find("root \"" + dir.Join("site/www.example.lab") + "\";") != std::string::npos);
}

TEST_CASE("a plan's addresses run on past the first 254 hosts", "[lab]") {
  TempDir dir("lab-plan");
  for (int i = 0; i < 300; ++i) {
    ::mkdir(dir.Join("site").c_str(), 0755);
    char name[32];
    std::snprintf(name, sizeof(name), "h%03d.lab", i);
    REQUIRE(::mkdir(dir.Join(std::string("site/") + name).c_str(), 0755) == 0);
  }
  LabServerOptions options;
  options.site_dir = dir.Join("site");
  options.work_dir = dir.Join("work");
  LabServerPlan plan;
  std::string error;
  REQUIRE(PlanLabServersWith(options, FakePrograms(), &plan, &error));
  REQUIRE(plan.hosts.size() == 300);
  CHECK(plan.hosts[253] == std::pair<std::string, std::string>("h253.lab", "198.19.0.255"));
  CHECK(plan.hosts[254] == std::pair<std::string, std::string>("h254.lab", "198.19.1.0"));
  CHECK(plan.hosts[299] == std::pair<std::string, std::string>("h299.lab", "198.19.1.45"));
  CHECK(plan.addresses.size() == 301);
  CHECK(plan.ready_ports.size() == 601);
}

TEST_CASE("a site with more listening sockets than the open-file limit starts nginx by prlimit",
          "[lab]") {
  TempDir dir("lab-plan");
  ::mkdir(dir.Join("site").c_str(), 0755);
  for (int i = 0; i < 100; ++i) {
    REQUIRE(::mkdir(dir.Join("site/h" + std::to_string(i) + ".lab").c_str(), 0755) == 0);
  }
  LabServerOptions options;
  options.site_dir = dir.Join("site");
  options.work_dir = dir.Join("work");
  struct rlimit saved;
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  struct rlimit low = saved;
  low.rlim_cur = 200;  // 100 hosts need 2 x 100 + 64 in nginx's master, 4096 more in its worker
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
  LabServerPlan plan;
  std::string error;
  const bool ok = PlanLabServersWith(options, FakePrograms(), &plan, &error);
  LabServerPrograms no_prlimit = FakePrograms();
  no_prlimit.prlimit = "";
  LabServerOptions options2 = options;
  options2.work_dir = dir.Join("work2");
  LabServerPlan plan2;
  std::string error2;
  const bool ok2 = PlanLabServersWith(options2, no_prlimit, &plan2, &error2);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &saved) == 0);
  REQUIRE(ok);
  REQUIRE(plan.processes.size() == 2);
  REQUIRE(plan.processes[0].size() == 10);
  CHECK(plan.processes[0][0] == "/opt/lab/prlimit");
  const long long worker =
      saved.rlim_max == RLIM_INFINITY
          ? 264 + 4096
          : std::max<long long>(264, std::min<long long>(264 + 4096, saved.rlim_max));
  CHECK(plan.processes[0][1] == "--nofile=" + std::to_string(worker));
  CHECK(plan.processes[0][2] == "--");
  CHECK(plan.processes[0][3] == "/opt/lab/nginx");
  CHECK_FALSE(ok2);
  CHECK(error2 ==
        "a site of 100 hosts needs 264 open files for nginx, above the limit of 200, and prlimit "
        "(util-linux) is not found");
  CHECK_FALSE(Exists(dir.Join("work2")));
  // Within the limit, nginx starts directly.
  REQUIRE(PlanLabServersWith(options, FakePrograms(), &plan, &error));
  CHECK(plan.processes[0][0] == "/opt/lab/nginx");
}

// Plans `options` expecting failure; checks the error and that nothing of a plan is left.
void ExpectFailure(const TempDir& dir, LabServerOptions options, const LabServerPrograms& programs,
                   const std::string& expected_error) {
  LabServerPlan plan;
  plan.dns_address = "stale";
  std::string error;
  CHECK_FALSE(PlanLabServersWith(options, programs, &plan, &error));
  CHECK(error == expected_error);
  CHECK(error.find('\n') == std::string::npos);
  CHECK(plan.dns_address.empty());
  CHECK(plan.processes.empty());
  CHECK_FALSE(Exists(dir.Join("work")));
}

TEST_CASE("PlanLabServers reports each bad input in one line and leaves nothing", "[lab]") {
  TempDir dir("lab-plan");
  dir.Write("site/a.lab/index.html", "a");
  LabServerOptions options;
  options.site_dir = dir.Join("site");
  options.work_dir = dir.Join("work");
  const LabServerPrograms programs = FakePrograms();

  SECTION("missing site") {
    options.site_dir = dir.Join("nope");
    ExpectFailure(dir, options, programs,
                  "site folder " + dir.Join("nope") + ": No such file or directory");
  }
  SECTION("bad host folder name") {
    dir.Write("site/Bad_Name/index.html", "a");
    ExpectFailure(
        dir, options, programs,
        dir.Join("site/Bad_Name") + ": the folder name is not a valid lowercase host name");
  }
  SECTION("a file instead of a host folder") {
    dir.Write("site/robots.txt", "a");
    ExpectFailure(dir, options, programs,
                  dir.Join("site/robots.txt") +
                      ": not a folder (the site holds one folder per host: SITE/<host>/<path>)");
  }
  SECTION("too many hosts") {
    for (size_t i = 0; i < kLabSiteMaxHosts; ++i) {
      REQUIRE(::mkdir(dir.Join("site/h" + std::to_string(i) + ".lab").c_str(), 0755) == 0);
    }
    ExpectFailure(dir, options, programs,
                  "site folder " + dir.Join("site") + ": more than 4000 hosts");
  }
  SECTION("a bad address prefix") {
    for (const char* bad : {"198", "198.19.0", "198.256", "a.b", "", ".19", "198.", "1234.1"}) {
      INFO(bad);
      options.address_prefix = bad;
      ExpectFailure(dir, options, programs,
                    "address prefix \"" + std::string(bad) +
                        "\": not the first two bytes of an IPv4 /16 (e.g. 198.19)");
    }
  }
  SECTION("a prefix that is not unicast") {
    for (const char* bad : {"0.1", "224.0", "255.255"}) {
      INFO(bad);
      options.address_prefix = bad;
      ExpectFailure(dir, options, programs,
                    "address prefix \"" + std::string(bad) +
                        "\": not a unicast range (the first byte must be 1 to 223)");
    }
  }
  SECTION("a work folder whose parents are made too") {
    options.work_dir = dir.Join("new/parents/work");
    options.site_dir = dir.Join("nope");
    LabServerPlan plan;
    std::string error;
    CHECK_FALSE(PlanLabServersWith(options, programs, &plan, &error));
    CHECK_FALSE(Exists(dir.Join("new")));
  }
  SECTION("a negative or huge think time") {
    options.server_time = Milliseconds(-1);
    ExpectFailure(dir, options, programs, "server time -1 ms: must be between 0 and 60000 ms");
    options.server_time = Milliseconds(60001);
    ExpectFailure(dir, options, programs, "server time 60001 ms: must be between 0 and 60000 ms");
    options.server_time = TimeDelta(0);
    options.server_time_by_host["a.lab"] = Milliseconds(-5);
    ExpectFailure(dir, options, programs,
                  "server time for a.lab -5 ms: must be between 0 and 60000 ms");
  }
  SECTION("think time for a host the site does not have") {
    options.server_time_by_host["b.lab"] = Milliseconds(5);
    ExpectFailure(dir, options, programs,
                  "server time for b.lab: not a host of the site " + dir.Join("site"));
  }
  SECTION("no work folder") {
    options.work_dir = "";
    ExpectFailure(dir, options, programs, "lab servers: no work folder given");
  }
  SECTION("a path nginx cannot read") {
    options.work_dir = dir.Join("wo$rk");
    LabServerPlan plan;
    std::string error;
    CHECK_FALSE(PlanLabServersWith(options, programs, &plan, &error));
    CHECK(error == "work folder " + dir.Join("wo$rk") +
                       ": the path has a character nginx cannot read (quote, backslash, '$', "
                       "control)");
    CHECK_FALSE(Exists(dir.Join("wo$rk")));
  }
  SECTION("missing programs") {
    LabServerPrograms p = programs;
    p.nginx = "";
    ExpectFailure(dir, options, p,
                  "nginx not found (install Debian's nginx-light; tools/scripts/install-deps "
                  "does)");
    p = programs;
    p.dnsmasq = "";
    ExpectFailure(dir, options, p,
                  "dnsmasq not found (install Debian's dnsmasq-base; tools/scripts/install-deps "
                  "does)");
    p = programs;
    p.mime_types = "";
    ExpectFailure(dir, options, p,
                  "nginx's /etc/nginx/mime.types is missing (Debian's nginx-common installs it)");
  }
  SECTION("think time without the echo module, on the default site") {
    // The default site and the CA are written before the module is found missing: all removed.
    LabServerPrograms p = programs;
    p.echo_module = "";
    options.site_dir = "";
    options.server_time = Milliseconds(10);
    ExpectFailure(dir, options, p,
                  "server think time needs nginx's echo module (Debian package "
                  "libnginx-mod-http-echo): /usr/lib/nginx/modules/ngx_http_echo_module.so is "
                  "missing");
    // Without think time the module is not needed.
    options.server_time = TimeDelta(0);
    LabServerPlan plan;
    std::string error;
    CHECK(PlanLabServersWith(options, p, &plan, &error));
  }
}

TEST_CASE("PlanLabServers refuses a work folder it cannot make", "[lab]") {
  TempDir dir("lab-plan");
  dir.Write("file", "x");
  LabServerOptions options;
  options.work_dir = dir.Join("file/work");
  LabServerPlan plan;
  std::string error;
  CHECK_FALSE(PlanLabServersWith(options, FakePrograms(), &plan, &error));
  CHECK(error.rfind("work folder " + dir.Join("file/work") + ": cannot create or write it", 0) ==
        0);
  CHECK(error.find('\n') == std::string::npos);
  CHECK(Read(dir.Join("file")) == "x");
}

TEST_CASE("a failed plan in an existing work folder removes only what it wrote", "[lab]") {
  TempDir dir("lab-plan");
  dir.Write("work/mine.txt", "keep");
  LabServerOptions options;
  options.work_dir = dir.Join("work");
  options.server_time = Milliseconds(10);
  LabServerPrograms programs = FakePrograms();
  programs.echo_module = "";
  LabServerPlan plan;
  std::string error;
  CHECK_FALSE(PlanLabServersWith(options, programs, &plan, &error));
  CHECK(Read(dir.Join("work/mine.txt")) == "keep");
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.Join("work"))) {
    (void)e;
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("FindLabServerPrograms finds nothing in an empty search path", "[lab]") {
  TempDir dir("lab-plan");
  const LabServerPrograms p = FindLabServerPrograms(dir.path());
  CHECK(p.nginx.empty());
  CHECK(p.dnsmasq.empty());
  dir.Write("nginx", "#!/bin/sh\n");
  ::chmod(dir.Join("nginx").c_str(), 0755);
  dir.Write("dnsmasq", "not executable");
  const LabServerPrograms q = FindLabServerPrograms("/nonexistent:" + dir.path());
  CHECK(q.nginx == dir.Join("nginx"));
  CHECK(q.dnsmasq.empty());
}

TEST_CASE("nginx and dnsmasq accept the plan's configurations", "[lab]") {
  // `nginx -t` binds the listening addresses: loopback ones (a free 127.X/16), on ports 80 and
  // 443, which need root.
  if (::geteuid() != 0) SKIP_TEST("nginx -t binds ports 80 and 443, which needs root");
  std::string why;
  if (test::EnsureProgram("nginx", "nginx-light", &why).empty()) SKIP_TEST(why);
  if (test::EnsureProgram("dnsmasq", "dnsmasq-base", &why).empty()) SKIP_TEST(why);
  if (!test::EnsurePackage(
          "nginx's echo module", "libnginx-mod-http-echo",
          [] { return std::filesystem::exists(kNginxEchoModulePath); }, &why)) {
    SKIP_TEST(why);
  }
  TempDir dir("lab-plan");
  LabServerOptions options;
  options.work_dir = dir.Join("work");
  options.address_prefix = test::PickLoopbackPrefix();
  options.server_time = Milliseconds(30);
  options.server_time_by_host["img.site0.lab"] = TimeDelta(0);
  LabServerPlan plan;
  std::string error;
  REQUIRE(PlanLabServers(options, &plan, &error));
  REQUIRE(plan.processes.size() == 2);
  const std::string w = dir.Join("work");
  // `nginx -t` reads the certificates and keys, loads the module and binds the addresses.
  std::vector<std::string> nginx_test = plan.processes[0];
  nginx_test.push_back("-t");
  const test::ProcessResult n = test::RunProcess(nginx_test, std::chrono::seconds(30));
  INFO(n.Describe());
  CHECK(n.exit_code == 0);
  CHECK(n.err.find("test is successful") != std::string::npos);
  std::vector<std::string> dnsmasq_test = plan.processes[1];
  dnsmasq_test.push_back("--test");
  const test::ProcessResult d = test::RunProcess(dnsmasq_test, std::chrono::seconds(30));
  INFO(d.Describe());
  CHECK(d.exit_code == 0);
}

}  // namespace
}  // namespace netstack
