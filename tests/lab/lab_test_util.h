// Helpers for the lab's tests: whether the machine can run a lab (root, /dev/net/tun, network
// namespaces), and snapshots of what a lab could leave behind (named namespaces, links of the
// root namespace, processes, mounts, work folders) to compare before and after.
#ifndef TESTS_LAB_LAB_TEST_UTIL_H_
#define TESTS_LAB_LAB_TEST_UTIL_H_

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

namespace netstack::test {

// "" when the machine can run a lab; otherwise why not (for SKIP_TEST).
std::string LabUnavailableReason();

// Skips the test case (fails it under NETSTACK_REQUIRE_FIXTURES=1: SKIP_TEST) when the machine
// cannot run a lab. The file using it includes tests/test_skip.h.
#define REQUIRE_LAB()                                                \
  do {                                                               \
    std::string why = ::netstack::test::LabUnavailableReason();      \
    if (!why.empty()) SKIP_TEST("the lab cannot run here: " << why); \
  } while (0)

// What a lab could leave behind on the host.
struct HostSnapshot {
  std::string netns_list;               // `ip netns list`
  std::set<std::string> links;          // interface names of the root namespace
  std::set<std::string> nft_tables;     // `nft list tables`
  std::vector<std::string> lab_mounts;  // /proc/mounts lines naming netstack-lab
  std::set<std::string> work_dirs;      // $TMPDIR/netstack-lab-*
  std::string ip_forward;
};
HostSnapshot TakeHostSnapshot();
// "" when `after` has nothing `before` had not; otherwise what is new, one item per line.
std::string NewSince(const HostSnapshot& before, const HostSnapshot& after);

// Pids of processes whose command line contains `marker` (and whose name, /proc/PID/comm, is
// `comm` when given).
std::vector<pid_t> ProcessesWith(const std::string& marker, const std::string& comm = "");
// Waits (at most `timeout_ms`) until no process's command line contains `marker`.
bool WaitNoProcessWith(const std::string& marker, int timeout_ms = 5000);

// Runs `argv`, returns its exit status (128 + signal) and its stdout+stderr in *output.
int RunCapture(const std::vector<std::string>& argv, std::string* output);

}  // namespace netstack::test

#endif  // TESTS_LAB_LAB_TEST_UTIL_H_
