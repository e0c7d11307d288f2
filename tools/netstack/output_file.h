// OutputFile: where a command writes a file the user named (`gen-session -o PATH`), written so
// that a failure never destroys what was at PATH. A regular file, or a path with nothing there
// yet, is written to a temporary file next to it (".NAME.XXXXXX" in the same directory) that
// Commit renames over PATH, keeping an existing file's permission bits; on failure only that
// temporary is removed, so a file the user had is left whole. Anything else (a device such as
// /dev/null or /dev/full, a FIFO) is written in place and never removed, as is a regular file
// whose directory takes no new files. "-" is stdout. A symbolic link is followed: its target is
// what is replaced.
#ifndef TOOLS_NETSTACK_OUTPUT_FILE_H_
#define TOOLS_NETSTACK_OUTPUT_FILE_H_

#include <cstdio>
#include <string>

namespace netstack {

class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Abandon()s an output that was not committed.
  ~OutputFile();

  // Opens `path` for writing as the file comment says. False with a one-line `error` naming
  // the path ("cannot write /nonexistent/s.jsonl: No such file or directory").
  bool Open(const std::string& path, std::string* error);

  // Where to write; null before Open.
  std::FILE* file() const { return file_; }
  // True when the output is stdout.
  bool is_stdout() const { return file_ == stdout; }
  // True when writing goes to a temporary that Commit renames (a regular file).
  bool replaces() const { return !temp_path_.empty(); }

  // Flushes and closes the output, then renames the temporary over the path. False with a
  // one-line `error` ("write error: No space left on device") after Abandon()ing it.
  bool Commit(std::string* error);

  // Closes the output and removes the temporary if there is one; the path is left as it was
  // (a device or a file written in place keeps what was written). Safe to call twice.
  void Abandon();

 private:
  std::string path_;       // what the user named (a symbolic link resolved)
  std::string temp_path_;  // the temporary being written; empty when writing in place
  std::FILE* file_ = nullptr;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_OUTPUT_FILE_H_
