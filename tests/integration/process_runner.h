// Child processes for integration tests: run a program to completion with captured output and a
// hard deadline (RunProcess), or keep a server running in the background (ChildProcess).
//
// Children are started with posix_spawn, so this is safe in a test process that already runs
// server threads (no code runs between fork and exec). Every pipe is close-on-exec, so one
// child never inherits another's descriptors.
#ifndef TESTS_INTEGRATION_PROCESS_RUNNER_H_
#define TESTS_INTEGRATION_PROCESS_RUNNER_H_

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace netstack::test {

// What a finished (or killed) child left behind.
struct ProcessResult {
  // False if the program could not be started at all (spawn_error says why).
  bool started = false;
  std::string spawn_error;
  // The exit status if the child exited normally, else -1.
  int exit_code = -1;
  // The signal that ended the child, or 0.
  int term_signal = 0;
  // True if the deadline passed and the child was killed with SIGKILL.
  bool timed_out = false;
  std::string out;
  std::string err;
  double elapsed_ms = 0;

  // True if stderr carries an AddressSanitizer/UBSan/LeakSanitizer report: a sanitized child
  // may exit with the code a test expects and still be broken.
  bool HasSanitizerReport() const;
  // A short human description for test failure messages: exit status, timeout, stderr tail.
  std::string Describe() const;
};

// Runs argv[0] (searched in PATH, plus /usr/sbin and /sbin) with argv, stdin from /dev/null,
// capturing stdout and stderr (each bounded at max_output bytes; extra output is read and
// dropped). The child is killed with SIGKILL when `timeout` passes; the call then returns with
// timed_out set. Blocks the calling thread until the child is reaped. `env` changes the child's
// environment (inherited otherwise): "NAME=value" sets NAME, a bare "NAME" removes it.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         std::chrono::milliseconds timeout = std::chrono::seconds(60),
                         size_t max_output = 64 << 20, const std::vector<std::string>& env = {});

// Finds an executable by name in PATH, /usr/sbin, /sbin, /usr/local/sbin. Returns "" if absent.
// A name containing '/' is returned as is if it is executable.
std::string FindExecutable(const std::string& name);

// A long-running child (a server). Output goes to the given files. The destructor stops it.
class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts argv (PATH lookup as in RunProcess); stdout and stderr are appended to the given
  // paths ("" means /dev/null). Returns false with *error set if the program cannot start.
  bool Start(const std::vector<std::string>& argv, const std::string& stdout_path,
             const std::string& stderr_path, std::string* error);

  // True if the child has been started and has not exited yet (reaps it if it has).
  bool IsRunning();

  // Sends `sig`, waits up to `grace` for the exit, then SIGKILLs and reaps. Idempotent.
  void Stop(int sig, std::chrono::milliseconds grace = std::chrono::seconds(5));

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_PROCESS_RUNNER_H_
