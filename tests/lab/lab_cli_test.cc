// `netstack lab` and `netstack shell` through the real binary: bad input is one line and exit 2
// before anything is built, a missing privilege is one line and exit 1, and the lab runs real
// programs against the default site's servers (nginx with the lab CA, dnsmasq) with the set
// network, leaving nothing behind. `netstack shell` is run against a server in a namespace of the
// test's own behind the shell's NAT (CI has no outside network).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/lab/lab_test_util.h"
#include "tests/support/temp_dir.h"
#include "tests/test_skip.h"
#include "tools/lab/lab_namespace.h"
#include "tools/lab/lab_processes.h"
#include "tools/lab/lab_runner.h"
#include "tools/lab/shell_runner.h"

namespace netstack {
namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs netstack with `args` (and before it `prefix`, e.g. setpriv's); stdout and stderr apart.
Result Netstack(const std::vector<std::string>& args, const std::vector<std::string>& prefix = {}) {
  test::TempDir dir("lab-cli");
  std::vector<std::string> argv = prefix;
  argv.push_back(NETSTACK_BIN);
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_args;
  for (std::string& a : argv) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  std::string out = dir.Join("out"), err = dir.Join("err");
  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(o, 1);
    dup2(e, 2);
    execvp(c_args[0], c_args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadAll(out);
  r.err = ReadAll(err);
  return r;
}

// Starts netstack with `args` in the background, its output discarded; returns its pid.
pid_t StartNetstack(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {NETSTACK_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_args;
  for (std::string& a : argv) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDWR);
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    execvp(c_args[0], c_args.data());
    _exit(127);
  }
  return pid;
}

bool OneLine(const std::string& text) {
  return !text.empty() && text.back() == '\n' && text.find('\n') == text.size() - 1;
}

TEST_CASE("netstack lab: bad input is one line and exit 2, before anything is built") {
  test::HostSnapshot before = test::TakeHostSnapshot();
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  test::TempDir dir("lab-cli");
  std::string bad_trace = dir.Write("bad.trace", "12\nx\n");
  std::vector<Case> cases = {
      {{"lab", "--bogus", "--", "true"}, "netstack: The following arguments were not expected: "},
      {{"lab", "--preset", "nope", "--", "true"}, "netstack: --preset: unknown preset 'nope'"},
      {{"lab", "--site", dir.Join("missing"), "--", "true"},
       "netstack: --site: '" + dir.Join("missing") + "' is not a folder\n"},
      {{"lab", "--set", "max_sockets=3", "--", "true"},
       "netstack: --set 'max_sockets=3': the lab takes only network keys"},
      {{"lab", "--set", "rtt_ms=-1", "--", "true"},
       "netstack: --set 'rtt_ms=-1': rtt_ms: -1 is out of range (0..60000)\n"},
      {{"lab", "--loss", "2", "--", "true"}, "netstack: --loss: '2' is out of range (0 to 1)"},
      {{"lab", "--queue-packets", "0", "--", "true"},
       "netstack: --queue-packets: '0' is out of range"},
      {{"lab", "--uplink-trace", dir.Join("missing"), "--", "true"},
       "netstack: --uplink-trace: '" + dir.Join("missing") + "' is not a file\n"},
      {{"lab", "--stats-json", "-", "--", "true"}, "netstack: --stats-json needs a file name"},
      {{"lab"},
       "netstack: lab: give the command to run after --: netstack lab [FLAGS] -- COMMAND "
       "[ARG...]\n"},
      {{"shell", "--dns", "localhost"}, "netstack: --dns: 'localhost' is not an IPv4 address\n"},
  };
  for (const Case& c : cases) {
    Result r = Netstack(c.args);
    INFO(c.args.back() << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(OneLine(r.err));
    CHECK(r.err.rfind(c.error, 0) == 0);
  }
  // A trace that does not parse is found once the lab reads it: exit 2 as well, and the lab
  // built so far is taken down.
  if (test::LabUnavailableReason().empty()) {
    Result r = Netstack({"lab", "--uplink-trace", bad_trace, "--", "true"});
    CHECK(r.code == 2);
    CHECK(OneLine(r.err));
    CHECK(r.err.rfind("netstack lab: --uplink-trace: " + bad_trace + ": line 2", 0) == 0);
  }
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("netstack lab and shell without CAP_NET_ADMIN say what they need, exit 1") {
  if (geteuid() != 0) {
    CHECK(Netstack({"lab", "--", "true"}).err ==
          "netstack lab: needs root or CAP_NET_ADMIN (creating network namespaces)\n");
    return;
  }
  std::vector<std::string> nobody = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                     "--"};
  std::string out;
  if (test::RunCapture({"setpriv", "--version"}, &out) != 0) SKIP_TEST("setpriv is missing");
  Result lab = Netstack({"lab", "--", "true"}, nobody);
  CHECK(lab.code == 1);
  CHECK(lab.err == "netstack lab: needs root or CAP_NET_ADMIN (creating network namespaces)\n");
  Result shell = Netstack({"shell", "--", "true"}, nobody);
  CHECK(shell.code == 1);
  CHECK(shell.err == "netstack shell: needs root or CAP_NET_ADMIN (creating network namespaces)\n");
}

TEST_CASE("netstack lab: ping sees rtt_ms, curl fetches the default site, the status passes") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  Result ping = Netstack(
      {"lab", "--set", "rtt_ms=40", "--", "ping", "-c", "3", "-i", "0.2", "-W", "2", "198.19.0.1"});
  REQUIRE(ping.code == 0);
  double min = 0, avg = 0, max = 0;
  size_t at = ping.out.find("min/avg/max");
  REQUIRE(at != std::string::npos);
  REQUIRE(std::sscanf(ping.out.c_str() + ping.out.find(" = ", at) + 3, "%lf/%lf/%lf", &min, &avg,
                      &max) == 3);
  // The DNS server's address is delayed by dns_ms instead (40 by default, as rtt here).
  CHECK(min >= 40.0);
  CHECK(max < 40.0 + 150);

  // HTTPS with the lab CA, names from the lab's DNS, think time from server_ms, DNS from dns_ms.
  Result curl =
      Netstack({"lab", "--set", "rtt_ms=20", "--set", "dns_ms=100", "--set", "server_ms=200", "--",
                "curl", "-sS", "-o", "/dev/null", "-w",
                "%{http_code} %{time_namelookup} %{time_appconnect} %{time_starttransfer}",
                "https://site0.lab/"});
  INFO(curl.err);
  REQUIRE(curl.code == 0);
  int http_code = 0;
  double dns = 0, tls = 0, first_byte = 0;
  REQUIRE(std::sscanf(curl.out.c_str(), "%d %lf %lf %lf", &http_code, &dns, &tls, &first_byte) ==
          4);
  CHECK(http_code == 200);
  CHECK(dns >= 0.100);
  CHECK(first_byte - tls >= 0.200 + 0.020);

  // The server namespace is named for the command: the servers' addresses are there.
  Result server_ns = Netstack(
      {"lab", "--", "sh", "-c", "nsenter --net=$NETSTACK_LAB_SERVER_NETNS ip -o -4 addr show lo"});
  CHECK(server_ns.code == 0);
  CHECK(server_ns.out.find("198.19.0.1/32") != std::string::npos);

  // A host the site does not serve is bad input.
  Result nowhere = Netstack({"lab", "--set", "nowhere.lab:rtt_ms=5", "--", "true"});
  CHECK(nowhere.code == 2);
  CHECK(nowhere.err ==
        "netstack lab: --set names host 'nowhere.lab', which the site does not serve\n");

  // The lab's relay may run at a real-time priority; the command it starts never does.
  Result policy = Netstack({"lab", "--", "sh", "-c", "chrt -p $$"});
  CHECK(policy.code == 0);
  CHECK_THAT(policy.out, Catch::Contains("SCHED_OTHER"));

  Result fail = Netstack({"lab", "--", "sh", "-c", "exit 9"});
  CHECK(fail.code == 9);
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("netstack shell: the command's traffic goes out over the link through NAT") {
  REQUIRE_LAB();
  std::string out;
  if (test::RunCapture({"iperf3", "--version"}, &out) != 0) SKIP_TEST("iperf3 is missing");
  // The "outside": a namespace of the test's, joined to the root namespace by a veth pair, with
  // no route back to 198.18.0.0/16: only the shell's masquerade makes replies possible.
  LabNamespace outside;
  std::string error;
  REQUIRE(outside.Create(&error));
  std::string veth = "labtv" + std::to_string(getpid() % 100000);
  std::string ns_path = "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(outside.fd());
  LabNamespace here;  // not created: RunIn runs in the test's own namespace
  REQUIRE(here.RunIn(
      {"ip", "link", "add", veth, "type", "veth", "peer", "name", "out0", "netns", ns_path},
      &error));
  REQUIRE(here.RunIn({"ip", "addr", "add", "203.0.113.1/30", "dev", veth}, &error));
  REQUIRE(here.RunIn({"ip", "link", "set", veth, "up"}, &error));
  REQUIRE(outside.RunIn({"ip", "addr", "add", "203.0.113.2/30", "dev", "out0"}, &error));
  REQUIRE(outside.RunIn({"ip", "link", "set", "out0", "up"}, &error));
  LabProcesses server;
  LabProcessSpec spec;
  spec.netns_fd = outside.fd();
  spec.programs = {{"iperf3", "-s", "-B", "203.0.113.2", "-p", "5302"}};
  spec.log_files = {"/dev/null"};
  REQUIRE(server.Start(spec, &error));
  REQUIRE(WaitForServers(outside.fd(), {{"203.0.113.2", 5302}}, &server, {"iperf3"}, {}, 10000,
                         &error));

  test::TempDir dir("lab-shell");
  test::HostSnapshot before = test::TakeHostSnapshot();
  std::string ping_out = dir.Join("ping.txt");
  Result shell = Netstack({"shell", "--set", "rtt_ms=30", "--stats-json", dir.Join("stats.json"),
                           "--", "sh", "-c",
                           "ping -c 3 -i 0.2 -W 2 203.0.113.2 > " + ping_out +
                               " && iperf3 -c 203.0.113.2 -p 5302 -n 200000 > /dev/null && "
                               "cat /etc/resolv.conf"});
  INFO(shell.err);
  CHECK(shell.code == 0);
  std::string ping = ReadAll(ping_out);
  size_t at = ping.find(" = ");
  double min = 0;
  REQUIRE(at != std::string::npos);
  REQUIRE(std::sscanf(ping.c_str() + at + 3, "%lf", &min) == 1);
  CHECK(min >= 30.0);
  CHECK(shell.out.find("# netstack shell") == 0);
  CHECK(ReadAll(dir.Join("stats.json")).find("\"bytes_in\"") != std::string::npos);
  server.Stop(1000);
  here.RunIn({"ip", "link", "del", veth}, &error);
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");

  // A failing command's status passes through, and the shell cleans up after it too.
  Result fail = Netstack({"shell", "--", "sh", "-c", "exit 4"});
  CHECK(fail.code == 4);
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE(
    "after SIGKILL of netstack shell the next lab deletes its nft table, restores ip_forward") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  pid_t shell = StartNetstack({"shell", "--dns", "192.0.2.53", "--", "sleep", "97.96875"});
  std::vector<pid_t> sleeps;
  for (int i = 0; i < 500 && sleeps.empty(); ++i) {
    sleeps = test::ProcessesWith("97.96875", "sleep");
    if (sleeps.empty()) usleep(20000);
  }
  REQUIRE(sleeps.size() == 1);
  std::string table = "netstack_lab_" + std::to_string(shell), out;
  CHECK(test::RunCapture({"nft", "list", "table", "ip", table}, &out) == 0);
  CHECK(test::TakeHostSnapshot().ip_forward == "1");
  kill(shell, SIGKILL);
  int status = 0;
  waitpid(shell, &status, 0);
  CHECK(test::WaitNoProcessWith("sleep 97.96875"));
  // The shell could not undo its table and ip_forward: they are recorded in its work folder.
  CHECK(test::RunCapture({"nft", "list", "table", "ip", table}, &out) == 0);
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) != "");
  // The next lab sweeps them.
  CHECK(Netstack({"lab", "--", "true"}).code == 0);
  CHECK(test::RunCapture({"nft", "list", "table", "ip", table}, &out) != 0);
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

}  // namespace
}  // namespace netstack
