// Makes sure a program a fixture needs is installed, installing its Debian package if it is not
// (as root, or with passwordless sudo). Fixtures skip their tests when this fails.
#ifndef TESTS_INTEGRATION_PACKAGE_INSTALLER_H_
#define TESTS_INTEGRATION_PACKAGE_INSTALLER_H_

#include <string>

namespace netstack::test {

// Returns the path of `program` (looked up like FindExecutable). If it is absent, runs
// `apt-get install -y <package>` (after `apt-get update` if the first attempt fails) and looks
// again. Returns "" with *why set if the program is still missing. Blocks up to a few minutes
// in the worst case; tools/scripts/install-deps normally makes this a no-op.
std::string EnsureProgram(const std::string& program, const std::string& package, std::string* why);

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_PACKAGE_INSTALLER_H_
