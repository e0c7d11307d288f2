// LabProcesses: programs run inside the lab's namespaces, as a group that cannot outlive the lab.
// The group's first process is a small init (no exec: code of this file) in a new PID namespace
// (and a private mount namespace), entered into a network namespace; it starts every program of
// the group, forwards the lab's signals to them, reports each program's exit on a pipe, and exits
// when the last one has exited. When the init dies, the kernel kills everything left in its PID
// namespace (a daemon's forks included); the init itself dies with the lab (PR_SET_PDEATHSIG),
// so nothing of the group survives even a SIGKILL of the lab.
#ifndef TOOLS_LAB_LAB_PROCESSES_H_
#define TOOLS_LAB_LAB_PROCESSES_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace netstack {

struct LabProcessSpec {
  std::vector<std::vector<std::string>> programs;  // argv of each (argv[0] looked up in PATH)
  int netns_fd = -1;                               // the network namespace to run in
  // When set, bound over /etc/resolv.conf in the group's private mount namespace (as `ip netns
  // exec` does), so the programs resolve names with the lab's DNS server.
  std::string resolv_conf;
  std::vector<std::string> env;  // KEY=VALUE added to (or replacing in) the lab's environment
  // Per program: a file that takes its stdout and stderr (created or truncated); empty or
  // missing: the program inherits the lab's stdin, stdout and stderr.
  std::vector<std::string> log_files;
};

class LabProcesses {
 public:
  LabProcesses() = default;
  ~LabProcesses();  // kills the group (SIGKILL) if it still runs, and reaps the init
  LabProcesses(const LabProcesses&) = delete;
  LabProcesses& operator=(const LabProcesses&) = delete;

  // Starts the group. False with a one-line `error` (nothing left running) when the init could
  // not be created (needs CAP_SYS_ADMIN) or a log file could not be opened. A program that
  // cannot be executed shows as an exit with status 127 (its message in its log).
  bool Start(const LabProcessSpec& spec, std::string* error);

  // Readable (non-blocking) when a program has exited; then ReadExit gives which one and its
  // wait status (as waitpid's).
  int exit_fd() const { return exit_read_; }
  // kExit: `index` and `wait_status` are set; kNone: no report waiting; kClosed: the init is
  // gone (every program has exited, or it failed before starting them; see running()).
  enum class ExitRead { kExit, kNone, kClosed };
  ExitRead ReadExit(int* index, int* wait_status);

  // Sends `signum` to the init, which forwards it to every program still running.
  void Signal(int signum);
  // Ends the group: SIGTERM to every program, then after `grace_ms` SIGKILL to what is left
  // (the whole PID namespace); reaps the init. Idempotent.
  void Stop(int grace_ms);
  // True from a successful Start until Stop (the init may have exited on its own meanwhile: it
  // is reaped only by Stop or the destructor).
  bool running() const { return init_pid_ > 0; }
  // The init's pid as the lab's /proc numbers it (its namespaces: /proc/PID/ns/...); -1 when not
  // running.
  pid_t init_pid() const { return init_pid_; }

 private:
  pid_t init_pid_ = -1;
  int exit_read_ = -1;
  int lifeline_write_ = -1;  // closing it tells an init that is still starting that we died
};

// The exit status a shell would show for `wait_status`: the code, or 128 + the signal.
int ExitCodeOf(int wait_status);

}  // namespace netstack

#endif  // TOOLS_LAB_LAB_PROCESSES_H_
