// A scratch directory for one test or fixture (cache databases, certificates, server configs,
// traces), removed with its contents afterwards, and whole-file helpers. Standard library only,
// so any test may use it, the integration fixtures included.
#ifndef TESTS_SUPPORT_TEMP_DIR_H_
#define TESTS_SUPPORT_TEMP_DIR_H_

#include <string>

namespace netstack::test {

class TempDir {
 public:
  // Creates a fresh directory under $TMPDIR (else the system's temporary directory) named
  // netstack-<prefix>-XXXXXX. It is made world-readable and traversable, so servers that drop
  // privileges (nginx workers) can read the files put in it. path() is "" if it could not be
  // made (a test that needs it checks).
  explicit TempDir(const std::string& prefix = "test");
  // Removes the tree, unless NETSTACK_KEEP_TEST_DIRS is set in the environment (then it is kept
  // for post-mortem reading and its path printed to stderr).
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string Join(const std::string& name) const { return path_ + "/" + name; }
  // Writes (replaces) `name`, relative to the directory, making its parent directories;
  // returns its full path. A failure to write fails the test that reads it back.
  std::string Write(const std::string& name, const std::string& contents) const;

 private:
  std::string path_;
};

// Reads a whole file; returns false if it cannot be opened. Files over `max_bytes` are cut.
bool ReadFileToString(const std::string& path, std::string* out, size_t max_bytes = 256 << 20);

// Writes (replaces) a file; returns false on any error.
bool WriteStringToFile(const std::string& path, const std::string& data);

}  // namespace netstack::test

#endif  // TESTS_SUPPORT_TEMP_DIR_H_
