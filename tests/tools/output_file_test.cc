// OutputFile never removes what it did not create: a failed write leaves a user's file whole
// and a device in place.
#include "tools/netstack/output_file.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

using namespace netstack;
using test::ReadFileToString;
using test::TempDir;

namespace {

// The names in `dir` (to see that no temporary is left behind).
std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
  }
  return names;
}

bool IsCharDevice(const char* path) {
  struct stat st;
  return ::stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

}  // namespace

TEST_CASE("output file: a new file appears only when complete") {
  TempDir dir("output-file");
  REQUIRE(!dir.path().empty());
  const std::string path = dir.Join("s.jsonl");
  OutputFile out;
  std::string error;
  REQUIRE(out.Open(path, &error));
  CHECK(out.replaces());
  std::fputs("line\n", out.file());
  CHECK(::access(path.c_str(), F_OK) != 0);  // not there before Commit
  REQUIRE(out.Commit(&error));
  std::string text;
  REQUIRE(ReadFileToString(path, &text));
  CHECK(text == "line\n");
  CHECK(Names(dir.path()) == std::vector<std::string>{"s.jsonl"});
}

TEST_CASE("output file: an abandoned write leaves an existing file whole, mode kept") {
  TempDir dir("output-file");
  const std::string path = dir.Write("s.jsonl", "the user's data\n");
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  {
    OutputFile out;
    std::string error;
    REQUIRE(out.Open(path, &error));
    std::fputs("half a sess", out.file());
    out.Abandon();
  }
  std::string text;
  REQUIRE(ReadFileToString(path, &text));
  CHECK(text == "the user's data\n");
  CHECK(Names(dir.path()) == std::vector<std::string>{"s.jsonl"});
  // Destroyed without Commit: the same.
  {
    OutputFile out;
    std::string error;
    REQUIRE(out.Open(path, &error));
    std::fputs("half a sess", out.file());
  }
  REQUIRE(ReadFileToString(path, &text));
  CHECK(text == "the user's data\n");
  // Committed: replaced, with the file's permission bits.
  OutputFile out;
  std::string error;
  REQUIRE(out.Open(path, &error));
  std::fputs("new\n", out.file());
  REQUIRE(out.Commit(&error));
  REQUIRE(ReadFileToString(path, &text));
  CHECK(text == "new\n");
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
}

TEST_CASE("output file: devices are written in place and never removed") {
  OutputFile null_out;
  std::string error;
  REQUIRE(null_out.Open("/dev/null", &error));
  CHECK_FALSE(null_out.replaces());
  std::fputs("discarded\n", null_out.file());
  REQUIRE(null_out.Commit(&error));
  CHECK(IsCharDevice("/dev/null"));

  // /dev/full fails every write with ENOSPC: an error, and the device is still there.
  if (::access("/dev/full", W_OK) == 0) {
    OutputFile full;
    REQUIRE(full.Open("/dev/full", &error));
    std::string big(1 << 16, 'x');
    std::fwrite(big.data(), 1, big.size(), full.file());
    CHECK_FALSE(full.Commit(&error));
    CHECK(error == "write error: No space left on device");
    CHECK(IsCharDevice("/dev/full"));
  }
}

TEST_CASE("output file: a path that cannot be written is one error") {
  OutputFile out;
  std::string error;
  CHECK_FALSE(out.Open("/nonexistent-dir/s.jsonl", &error));
  CHECK(error == "cannot write /nonexistent-dir/s.jsonl: No such file or directory");
  CHECK_FALSE(out.Open("", &error));
  CHECK(error == "cannot write '': not a file name");
  TempDir dir("output-file");
  CHECK_FALSE(out.Open(dir.path() + "/", &error));
  CHECK(error == "cannot write '" + dir.path() + "/': not a file name");
  CHECK_FALSE(out.Open(dir.path(), &error));
  CHECK(error == "cannot write " + dir.path() + ": Is a directory");
}
