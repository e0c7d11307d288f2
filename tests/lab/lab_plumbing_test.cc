// The lab's plumbing without the link: anonymous namespaces, TUN devices carrying packets (through
// a plain copying relay here), process groups (exit status, signals, leftovers killed), and the
// host-side cleanup (work folders of dead labs swept). Needs root and /dev/net/tun: skips
// without them, fails under NETSTACK_REQUIRE_FIXTURES=1.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "tests/lab/lab_test_util.h"
#include "tests/test_skip.h"
#include "tools/lab/lab_host.h"
#include "tools/lab/lab_namespace.h"
#include "tools/lab/lab_processes.h"
#include "tools/lab/tun_device.h"

namespace netstack {
namespace {

// Waits for the group's first exit report, at most `timeout_ms`; -1 if none came.
int WaitExit(LabProcesses* group, int timeout_ms = 10000) {
  pollfd p{group->exit_fd(), POLLIN, 0};
  if (poll(&p, 1, timeout_ms) != 1) return -1;
  int index = 0, status = 0;
  if (group->ReadExit(&index, &status) != LabProcesses::ExitRead::kExit) return -1;
  return ExitCodeOf(status);
}

// Copies packets between two descriptors until `stop`.
void PlainRelay(int a, int b, std::atomic<bool>* stop) {
  char packet[65536];
  while (!*stop) {
    pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    if (poll(p, 2, 50) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (!(p[i].revents & POLLIN)) continue;
      ssize_t n = read(p[i].fd, packet, sizeof(packet));
      if (n > 0) {
        ssize_t ignored = write(i == 0 ? b : a, packet, n);
        (void)ignored;
      }
    }
  }
}

TEST_CASE("a lab namespace is anonymous and has its loopback up") {
  REQUIRE_LAB();
  test::HostSnapshot before = test::TakeHostSnapshot();
  {
    LabNamespace ns;
    std::string error;
    REQUIRE(ns.Create(&error));
    CHECK(ns.fd() >= 0);
    CHECK(ns.RunIn({"ip", "link", "show", "lo", "up"}, &error));
    // The namespace is not the caller's: a device made in it is not in the root namespace.
    int tun = OpenTunDevice(ns.fd(), "labtest0", &error);
    REQUIRE(tun >= 0);
    CHECK(ns.RunIn({"ip", "link", "show", "labtest0"}, &error));
    std::string out;
    CHECK(test::RunCapture({"ip", "link", "show", "labtest0"}, &out) != 0);
    close(tun);
  }
  CHECK(test::NewSince(before, test::TakeHostSnapshot()) == "");
}

TEST_CASE("RunIn reports a failing command with its stderr") {
  REQUIRE_LAB();
  LabNamespace ns;
  std::string error;
  REQUIRE(ns.Create(&error));
  CHECK_FALSE(ns.RunIn({"ip", "link", "set", "nosuchdev0", "up"}, &error));
  CHECK(error.find("'ip link set nosuchdev0 up' failed") == 0);
  CHECK(error.size() < 400);
  CHECK_FALSE(ns.RunIn({"netstack-no-such-program"}, &error));
  CHECK(error.find("cannot run the program") != std::string::npos);
}

TEST_CASE("a TUN device name longer than 15 bytes is refused") {
  std::string error;
  CHECK(OpenTunDevice(-1, "a-name-of-16-byt", &error) == -1);
  CHECK(error == "TUN device name 'a-name-of-16-byt' must have 1 to 15 bytes");
}

TEST_CASE("two namespaces' TUN devices carry pings through a relay") {
  REQUIRE_LAB();
  LabNamespace a, b;
  std::string error;
  REQUIRE(a.Create(&error));
  REQUIRE(b.Create(&error));
  int ta = OpenTunDevice(a.fd(), "lab0", &error);
  int tb = OpenTunDevice(b.fd(), "lab0", &error);
  REQUIRE(ta >= 0);
  REQUIRE(tb >= 0);
  REQUIRE(a.RunIn({"ip", "addr", "add", "198.18.0.1/16", "dev", "lab0"}, &error));
  REQUIRE(a.RunIn({"ip", "link", "set", "lab0", "up"}, &error));
  REQUIRE(a.RunIn({"ip", "route", "add", "198.19.0.0/16", "dev", "lab0"}, &error));
  REQUIRE(b.RunIn({"ip", "addr", "add", "198.19.0.2/32", "dev", "lo"}, &error));
  REQUIRE(b.RunIn({"ip", "link", "set", "lab0", "up"}, &error));
  REQUIRE(b.RunIn({"ip", "route", "add", "198.18.0.0/16", "dev", "lab0"}, &error));
  std::atomic<bool> stop{false};
  std::thread relay(PlainRelay, ta, tb, &stop);
  LabProcesses ping;
  LabProcessSpec spec;
  spec.netns_fd = a.fd();
  spec.programs = {{"ping", "-c", "2", "-i", "0.2", "-W", "2", "198.19.0.2"}};
  spec.log_files = {"/dev/null"};
  REQUIRE(ping.Start(spec, &error));
  CHECK(WaitExit(&ping) == 0);
  ping.Stop(0);
  stop = true;
  relay.join();
  close(ta);
  close(tb);
}

TEST_CASE("a process group passes the exit status through and leaves no process behind") {
  REQUIRE_LAB();
  LabNamespace ns;
  std::string error;
  REQUIRE(ns.Create(&error));
  LabProcesses group;
  LabProcessSpec spec;
  spec.netns_fd = ns.fd();
  // The shell leaves a background sleep behind: the group's end kills it.
  spec.programs = {{"sh", "-c", "sleep 97.125 & exit 3"}};
  REQUIRE(group.Start(spec, &error));
  CHECK(WaitExit(&group) == 3);
  group.Stop(1000);
  CHECK(test::WaitNoProcessWith("sleep 97.125"));
}

TEST_CASE("a process group forwards signals and a command killed inside reports 128 + signal") {
  REQUIRE_LAB();
  LabNamespace ns;
  std::string error;
  REQUIRE(ns.Create(&error));
  LabProcesses group;
  LabProcessSpec spec;
  spec.netns_fd = ns.fd();
  spec.programs = {{"sleep", "97.25"}};
  REQUIRE(group.Start(spec, &error));
  SECTION("a signal to the group") {
    // Give the init time to start its program.
    for (int i = 0; i < 250 && test::ProcessesWith("sleep 97.25").empty(); ++i) usleep(20000);
    group.Signal(SIGTERM);
    CHECK(WaitExit(&group) == 128 + SIGTERM);
  }
  SECTION("SIGKILL of the program itself") {
    std::vector<pid_t> pids;
    for (int i = 0; i < 250 && pids.empty(); ++i) {
      pids = test::ProcessesWith("sleep 97.25");
      usleep(20000);
    }
    REQUIRE(pids.size() == 1);
    kill(pids[0], SIGKILL);
    CHECK(WaitExit(&group) == 128 + SIGKILL);
  }
  group.Stop(1000);
  CHECK(test::WaitNoProcessWith("sleep 97.25"));
}

TEST_CASE("Stop kills a program that ignores SIGTERM") {
  REQUIRE_LAB();
  LabNamespace ns;
  std::string error;
  REQUIRE(ns.Create(&error));
  LabProcesses group;
  LabProcessSpec spec;
  spec.netns_fd = ns.fd();
  spec.programs = {{"sh", "-c", "trap '' TERM; sleep 97.375; sleep 97.375"}};
  REQUIRE(group.Start(spec, &error));
  for (int i = 0; i < 250 && test::ProcessesWith("sleep 97.375").empty(); ++i) usleep(20000);
  group.Stop(300);
  CHECK_FALSE(group.running());
  CHECK(test::WaitNoProcessWith("sleep 97.375"));
}

TEST_CASE("a program that cannot be run reports 127 and its reason in its log") {
  REQUIRE_LAB();
  LabNamespace ns;
  std::string error;
  REQUIRE(ns.Create(&error));
  char dir_template[] = "/tmp/netstack-labtest-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  std::string log = std::string(dir_template) + "/x.log";
  LabProcesses group;
  LabProcessSpec spec;
  spec.netns_fd = ns.fd();
  spec.programs = {{"netstack-no-such-program"}};
  spec.log_files = {log};
  REQUIRE(group.Start(spec, &error));
  CHECK(WaitExit(&group) == 127);
  group.Stop(0);
  std::string text;
  test::RunCapture({"cat", log}, &text);
  CHECK(text.find("cannot run 'netstack-no-such-program'") != std::string::npos);
  std::filesystem::remove_all(dir_template);
}

TEST_CASE("a lab killed with SIGKILL leaves no process and no namespace behind") {
  REQUIRE_LAB();
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  pid_t lab = fork();
  if (lab == 0) {
    // A stand-in lab: a namespace, a TUN device, a group running a sleep; then it waits to die.
    LabNamespace ns;
    std::string error;
    if (!ns.Create(&error)) _exit(1);
    int tun = OpenTunDevice(ns.fd(), "lab0", &error);
    LabProcesses group;
    LabProcessSpec spec;
    spec.netns_fd = ns.fd();
    spec.programs = {{"sleep", "97.5"}};
    if (tun < 0 || !group.Start(spec, &error)) _exit(1);
    struct stat st {};
    fstat(ns.fd(), &st);
    uint64_t inode = st.st_ino;
    ssize_t ignored = write(ready[1], &inode, sizeof(inode));
    (void)ignored;
    pause();
    _exit(0);
  }
  close(ready[1]);
  uint64_t inode = 0;
  REQUIRE(read(ready[0], &inode, sizeof(inode)) == sizeof(inode));
  close(ready[0]);
  for (int i = 0; i < 250 && test::ProcessesWith("sleep 97.5").empty(); ++i) usleep(20000);
  CHECK_FALSE(test::ProcessesWith("sleep 97.5").empty());
  kill(lab, SIGKILL);
  waitpid(lab, nullptr, 0);
  CHECK(test::WaitNoProcessWith("sleep 97.5"));
  // Nothing refers to the namespace any more: no process's ns/net, no descriptor.
  std::string needle = "net:[" + std::to_string(inode) + "]";
  std::string out;
  test::RunCapture({"sh", "-c", "ls -l /proc/[0-9]*/ns/net /proc/[0-9]*/fd 2>/dev/null"}, &out);
  CHECK(out.find(needle) == std::string::npos);
}

TEST_CASE("the sweep removes the work folders of dead labs and keeps live ones") {
  std::string error;
  std::string mine = MakeLabWorkDir(&error);
  REQUIRE_FALSE(mine.empty());
  struct stat st {};
  REQUIRE(stat(mine.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0755);
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const char* tmp = std::getenv("TMPDIR");
  std::string root = tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp";
  std::string theirs = root + "/netstack-lab-" + std::to_string(dead) + "-abcdef";
  std::filesystem::create_directories(theirs + "/sub");
  CHECK(SweepDeadLabs() >= 1);
  CHECK_FALSE(std::filesystem::exists(theirs));
  CHECK(std::filesystem::exists(mine));
  RemoveLabWorkDir(mine);
  CHECK_FALSE(std::filesystem::exists(mine));
}

TEST_CASE("without CAP_NET_ADMIN the lab says what it needs") {
  if (geteuid() != 0) {
    std::string error;
    CHECK_FALSE(HasLabPrivileges(&error));
    CHECK(error == "needs root or CAP_NET_ADMIN (creating network namespaces)");
    return;
  }
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t child = fork();
  if (child == 0) {
    // Dropping to nobody clears the effective capabilities.
    if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(2);
    std::string error;
    bool ok = HasLabPrivileges(&error);
    ssize_t ignored = write(fds[1], error.data(), error.size());
    (void)ignored;
    _exit(ok ? 1 : 0);
  }
  close(fds[1]);
  char buf[256];
  ssize_t n = read(fds[0], buf, sizeof(buf));
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(std::string(buf, n > 0 ? n : 0) ==
        "needs root or CAP_NET_ADMIN (creating network namespaces)");
}

}  // namespace
}  // namespace netstack
