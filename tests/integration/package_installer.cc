#include "tests/integration/package_installer.h"

#include <unistd.h>

#include <mutex>
#include <vector>

#include "tests/integration/process_runner.h"

namespace netstack::test {
namespace {

ProcessResult AptGet(const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  if (::geteuid() != 0) argv = {"sudo", "-n"};
  argv.insert(argv.end(), {"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-q"});
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, std::chrono::minutes(5));
}

}  // namespace

bool EnsurePackage(const std::string& what, const std::string& package,
                   const std::function<bool()>& present, std::string* why) {
  // One installer at a time within this process; apt's own lock handles other processes.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (present()) return true;
  if (::geteuid() != 0 && FindExecutable("sudo").empty()) {
    *why = what + " is not installed and we are neither root nor have sudo (install " + package +
           ", e.g. with tools/scripts/install-deps)";
    return false;
  }
  ProcessResult r = AptGet({"install", "-y", "--no-install-recommends", package});
  if (r.exit_code != 0) {
    AptGet({"update"});
    r = AptGet({"install", "-y", "--no-install-recommends", package});
  }
  if (present()) return true;
  *why = what + " is not installed and `apt-get install " + package + "` failed: " + r.Describe();
  return false;
}

std::string EnsureProgram(const std::string& program, const std::string& package,
                          std::string* why) {
  std::string path;
  EnsurePackage(
      program, package, [&] { return !(path = FindExecutable(program)).empty(); }, why);
  return path;
}

}  // namespace netstack::test
