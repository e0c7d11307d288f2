// Makes sure a program a fixture needs is installed, installing its Debian package if it is not
// (as root, or with passwordless sudo). Fixtures skip their tests when this fails.
#ifndef TESTS_INTEGRATION_PACKAGE_INSTALLER_H_
#define TESTS_INTEGRATION_PACKAGE_INSTALLER_H_

#include <functional>
#include <string>

namespace netstack::test {

// Returns the path of `program` (looked up like FindExecutable). If it is absent, runs
// `apt-get install -y <package>` (after `apt-get update` if the first attempt fails) and looks
// again. Returns "" with *why set if the program is still missing. Blocks up to a few minutes
// in the worst case; tools/scripts/install-deps normally makes this a no-op.
std::string EnsureProgram(const std::string& program, const std::string& package, std::string* why);

// The same for what is not a program in PATH (a Python module): returns true if `present()`
// is, else installs `package` as EnsureProgram does and asks `present()` again. On false,
// *why says what is missing (`what`) and what the installation said.
bool EnsurePackage(const std::string& what, const std::string& package,
                   const std::function<bool()>& present, std::string* why);

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_PACKAGE_INSTALLER_H_
