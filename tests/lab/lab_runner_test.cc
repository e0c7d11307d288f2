// RunLab on the real emulated link, with a plan built here (no nginx or dnsmasq: ping and
// iperf3 as client and server). Checks the link honours rtt (default and per host), rate, the
// queue bound and loss (in --stats-json's counters), that the command's exit status passes
// through, and that nothing is left behind: after a normal exit, a failing command, a server
// that does not come up, SIGINT to the lab, SIGKILL of the command inside and SIGKILL of the lab
// (then the next lab's sweep). Bounds on measured times are loose: a loaded 2-core machine only
// adds delay, so lower bounds are the set values and upper bounds are generous.
#include "tools/lab/lab_runner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/lab/lab_test_util.h"
#include "tests/support/temp_dir.h"
#include "tests/test_skip.h"
#include "tools/lab/lab_host.h"

namespace netstack {
namespace {

// A plan of two hosts (a.lab 198.19.0.2, b.lab 198.19.0.3) and a DNS address (198.19.0.1) with
// `processes` as the servers, ready when `ready` accept.
LabServerPlanner HandPlan(std::vector<std::vector<std::string>> processes,
                          std::vector<std::pair<std::string, int>> ready = {}) {
  return
      [processes, ready](const LabServerOptions& options, LabServerPlan* plan, std::string* error) {
        std::string dir = options.work_dir;
        if (system(("mkdir -p " + dir).c_str()) != 0) {
          *error = "mkdir";
          return false;
        }
        plan->hosts = {{"a.lab", "198.19.0.2"}, {"b.lab", "198.19.0.3"}};
        plan->dns_address = "198.19.0.1";
        plan->addresses = {"198.19.0.1", "198.19.0.2", "198.19.0.3"};
        plan->processes = processes;
        plan->ready_ports = ready;
        plan->ca_file = dir + "/ca.pem";
        plan->resolv_conf = dir + "/resolv.conf";
        std::ofstream(plan->ca_file) << "";
        std::ofstream(plan->resolv_conf) << "nameserver 198.19.0.1\n";
        return true;
      };
}

LabConfig Config(std::vector<std::string> command, std::vector<std::string> sets = {},
                 LabServerPlanner planner = HandPlan({})) {
  LabConfig config;
  config.plan_servers = std::move(planner);
  NetworkParams network;
  for (const std::string& set : sets) {
    size_t eq = set.find('=');
    std::string error;
    REQUIRE(network.Set(set.substr(0, eq), set.substr(eq + 1), &error));
  }
  config.network = network.Resolved();
  config.command = std::move(command);
  return config;
}

// Runs the lab; returns its exit status, its stderr in *err_text.
int Run(const LabConfig& config, std::string* err_text = nullptr) {
  FILE* err = tmpfile();
  int code = RunLab(config, err);
  std::string text;
  rewind(err);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), err)) > 0) text.append(buf, n);
  fclose(err);
  if (err_text != nullptr) *err_text = text;
  if (!text.empty()) UNSCOPED_INFO("lab stderr: " << text);
  return code;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// ping's "rtt min/avg/max/mdev = 40.1/40.3/40.9/0.2 ms": min and max.
bool PingRtt(const std::string& output, double* min, double* max) {
  size_t at = output.find(" = ");
  if (output.find("min/avg/max") == std::string::npos || at == std::string::npos) return false;
  double avg = 0;
  return std::sscanf(output.c_str() + at + 3, "%lf/%lf/%lf", min, &avg, max) == 3;
}

TEST_CASE("the lab delays pings by rtt_ms and a host's own rtt_ms, and leaves nothing behind") {
  REQUIRE_LAB();
  test::TempDir dir("lab");
  test::HostSnapshot before = test::TakeHostSnapshot();
  std::string out_a = dir.Join("a.txt"), out_b = dir.Join("b.txt");
  LabConfig config = Config({"sh", "-c",
                             "ping -c 5 -i 0.2 -W 2 198.19.0.2 > " + out_a +
                                 " && ping -c 3 -i 0.2 -W 2 198.19.0.3 > " + out_b},
                            {"rtt_ms=40", "b.lab:rtt_ms=100"});
  REQUIRE(Run(config) == 0);
  double min = 0, max = 0;
  REQUIRE(PingRtt(ReadAll(out_a), &min, &max));
  CHECK(min >= 40.0);
  CHECK(max < 40.0 + 150);
  REQUIRE(PingRtt(ReadAll(out_b), &min, &max));
  CHECK(min >= 100.0);
  CHECK(max < 100.0 + 150);
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("the lab's command sees the lab's resolv.conf and environment") {
  REQUIRE_LAB();
  test::TempDir dir("lab");
  std::string out = dir.Join("env.txt");
  LabConfig config = Config(
      {"sh", "-c",
       "cat /etc/resolv.conf > " + out +
           "; env | grep -E '^(NETSTACK_LAB|SSL_CERT_FILE|CURL_CA_BUNDLE)' | sort >> " + out});
  REQUIRE(Run(config) == 0);
  std::string text = ReadAll(out);
  CHECK(text.find("nameserver 198.19.0.1") != std::string::npos);
  CHECK(text.find("NETSTACK_LAB=1") != std::string::npos);
  CHECK(text.find("NETSTACK_LAB_CA=/") != std::string::npos);
  CHECK(text.find("SSL_CERT_FILE=/") != std::string::npos);
  CHECK(text.find("CURL_CA_BUNDLE=/") != std::string::npos);
  // A plan without processes has no server init: no server namespace to name.
  CHECK(text.find("NETSTACK_LAB_SERVER_NETNS") == std::string::npos);
  // The host's own resolv.conf is untouched.
  CHECK(ReadAll("/etc/resolv.conf").find("nameserver 198.19.0.1") == std::string::npos);
}

TEST_CASE("the lab passes a failing command's exit status through and cleans up") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  CHECK(Run(Config({"sh", "-c", "exit 7"})) == 7);
  CHECK(Run(Config({"netstack-no-such-program"})) == 127);
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("the lab's downlink rate bounds a transfer, and the servers are stopped at the end") {
  REQUIRE_LAB();
  std::string out;
  if (test::RunCapture({"iperf3", "--version"}, &out) != 0) SKIP_TEST("iperf3 is missing");
  test::TempDir dir("lab");
  test::HostSnapshot before = test::TakeHostSnapshot();
  std::string times = dir.Join("times.txt");
  // 1,000,000 bytes at 4 Mbit/s take at least 2 s (TCP and IP headers only add to it).
  LabConfig config = Config(
      {"sh", "-c",
       "date +%s.%N > " + times +
           "; iperf3 -c 198.19.0.2 -p 5301 -R -n 1000000 > /dev/null; r=$?; date +%s.%N >> " +
           times + "; exit $r"},
      {"rtt_ms=20", "down_kbps=4000"},
      HandPlan({{"iperf3", "-s", "-B", "198.19.0.2", "-p", "5301"}}, {{"198.19.0.2", 5301}}));
  config.stats_json = dir.Join("stats.json");
  REQUIRE(Run(config) == 0);
  double start = 0, end = 0;
  REQUIRE(std::sscanf(ReadAll(times).c_str(), "%lf %lf", &start, &end) == 2);
  CHECK(end - start >= 2.0);
  CHECK(end - start < 2.0 * 4);
  auto stats = nlohmann::json::parse(ReadAll(config.stats_json));
  CHECK(stats["down"]["bytes_out"].get<uint64_t>() >= 1'000'000);
  CHECK(test::WaitNoProcessWith("-p 5301"));
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("the queue bound and random loss show in --stats-json's counters") {
  REQUIRE_LAB();
  test::TempDir dir("lab");
  LabConfig config = Config(
      {"sh", "-c", "ping -c 60 -l 20 -i 0.005 -s 1400 -W 1 -q 198.19.0.2 > /dev/null; exit 0"},
      {"rtt_ms=10", "up_kbps=1000"});
  config.link_flags.queue_packets = 4;
  config.link_flags.loss = 0.2;
  config.link_flags.seed = 7;
  config.stats_json = dir.Join("stats.json");
  REQUIRE(Run(config) == 0);
  auto stats = nlohmann::json::parse(ReadAll(config.stats_json));
  INFO(stats.dump());
  // 20 packets of 1428 bytes at once (-l 20), at 1 Mbit/s (11.4 ms each): the queue of 4
  // overflows.
  CHECK(stats["up"]["queue_drops"].get<uint64_t>() > 0);
  CHECK(stats["up"]["max_queue_packets"].get<uint64_t>() <= 4);
  CHECK(stats["up"]["loss_drops"].get<uint64_t>() + stats["down"]["loss_drops"].get<uint64_t>() >
        0);
  CHECK(stats["up"]["packets_in"].get<uint64_t>() >= 60);
}

TEST_CASE("a server that does not come up is named with its stderr, and nothing is left") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  std::string err;
  LabConfig config =
      Config({"true"}, {},
             HandPlan({{"sh", "-c", "echo it went wrong >&2; exit 3"}}, {{"198.19.0.2", 80}}));
  CHECK(Run(config, &err) == 1);
  CHECK(err ==
        "netstack lab: the servers did not come up: sh exited (status 3) before accepting "
        "connections: it went wrong\n");
  config = Config({"true"}, {}, HandPlan({{"sleep", "97.875"}}, {{"198.19.0.2", 80}}));
  config.ready_timeout_ms = 300;
  CHECK(Run(config, &err) == 1);
  CHECK(err.find("netstack lab: the servers did not come up: nothing accepts connections on "
                 "198.19.0.2:80 after 300 ms") == 0);
  CHECK(test::WaitNoProcessWith("sleep 97.875"));
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

// Runs the lab in a child process (so it can be signalled); returns its pid.
pid_t RunLabInChild(const LabConfig& config) {
  pid_t pid = fork();
  if (pid == 0) {
    FILE* err = fopen("/dev/null", "w");
    _exit(RunLab(config, err));
  }
  return pid;
}

std::vector<pid_t> WaitForProcess(const std::string& marker, const std::string& comm) {
  std::vector<pid_t> pids;
  for (int i = 0; i < 500 && pids.empty(); ++i) {
    pids = test::ProcessesWith(marker, comm);
    if (pids.empty()) usleep(20000);
  }
  return pids;
}

int WaitStatus(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_CASE("SIGINT to the lab reaches the command, and the lab cleans up") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  pid_t lab = RunLabInChild(Config({"sleep", "97.625"}));
  REQUIRE(WaitForProcess("97.625", "sleep").size() == 1);
  kill(lab, SIGINT);
  CHECK(WaitStatus(lab) == 128 + SIGINT);
  CHECK(test::WaitNoProcessWith("sleep 97.625"));
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("a command that ignores the forwarded signal is killed after the grace") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  LabConfig config = Config({"sh", "-c", "trap '' INT TERM HUP; sleep 97.953125; sleep 97.953125"});
  config.signal_grace_ms = 300;
  pid_t lab = RunLabInChild(config);
  REQUIRE(WaitForProcess("97.953125", "sleep").size() == 1);
  kill(lab, SIGTERM);
  CHECK(WaitStatus(lab) == 128 + SIGTERM);
  CHECK(test::WaitNoProcessWith("sleep 97.953125"));
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("SIGTERM while the lab waits for its servers stops the build and cleans up") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  LabConfig config = Config({"true"}, {}, HandPlan({{"sleep", "97.9375"}}, {{"198.19.0.2", 80}}));
  config.ready_timeout_ms = 60000;
  pid_t lab = RunLabInChild(config);
  REQUIRE(WaitForProcess("97.9375", "sleep").size() == 1);
  kill(lab, SIGTERM);
  CHECK(WaitStatus(lab) == 128 + SIGTERM);
  CHECK(test::WaitNoProcessWith("sleep 97.9375"));
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("SIGKILL of the command inside ends the lab with 137, and it cleans up") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  pid_t lab = RunLabInChild(Config({"sh", "-c", "sleep 97.75; true"}));
  std::vector<pid_t> shells = WaitForProcess("sleep 97.75; true", "sh");
  REQUIRE(shells.size() == 1);
  REQUIRE(WaitForProcess("97.75", "sleep").size() == 1);
  kill(shells[0], SIGKILL);
  CHECK(WaitStatus(lab) == 128 + SIGKILL);
  // The shell's child went with its PID namespace.
  CHECK(test::WaitNoProcessWith("sleep 97.75"));
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("after SIGKILL of the lab nothing runs, and the next lab sweeps its work folder") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  pid_t lab = RunLabInChild(Config({"sleep", "97.8125"}));
  REQUIRE(WaitForProcess("97.8125", "sleep").size() == 1);
  kill(lab, SIGKILL);
  CHECK(WaitStatus(lab) == 128 + SIGKILL);
  CHECK(test::WaitNoProcessWith("sleep 97.8125"));
  // Only the work folder is left (no namespace, device, mount or process): the sweep takes it.
  std::string left = test::NewSince(before, test::TakeHostSnapshot());
  CHECK(left.find("work dir netstack-lab-" + std::to_string(lab) + "-") == 0);
  SweepDeadLabs();
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

}  // namespace
}  // namespace netstack
