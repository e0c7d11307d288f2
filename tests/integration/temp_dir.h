// A scratch directory for one fixture (server configs, logs, certificates), removed with its
// contents when the TempDir goes away, plus small whole-file helpers.
#ifndef TESTS_INTEGRATION_TEMP_DIR_H_
#define TESTS_INTEGRATION_TEMP_DIR_H_

#include <string>

namespace netstack::test {

class TempDir {
 public:
  // Creates a fresh directory under $TMPDIR (or /tmp) named after `prefix`. The directory is
  // made world-readable and traversable, so servers that drop privileges (nginx workers) can
  // read the files put in it. path() is "" if creation failed.
  explicit TempDir(const std::string& prefix);
  // Removes the directory tree unless NETSTACK_KEEP_TEST_DIRS is set in the environment (then
  // it is kept for post-mortem reading and its path printed to stderr).
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Reads a whole file; returns false if it cannot be opened. Files over `max_bytes` are cut.
bool ReadFileToString(const std::string& path, std::string* out, size_t max_bytes = 256 << 20);

// Writes (replaces) a file; returns false on any error.
bool WriteStringToFile(const std::string& path, const std::string& data);

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_TEMP_DIR_H_
