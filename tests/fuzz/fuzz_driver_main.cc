// A main for the fuzz targets in builds without libFuzzer: runs LLVMFuzzerTestOneInput once on
// every file named on the command line or found (recursively, in name order) in a directory
// named there, so CTest replays the seed corpus (and any crash reproducer added to it) in
// every build. Exit status 0 when every input ran; a broken promise traps, and the input that
// did it is named on stderr.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The input being run, for the crash handler.
std::string current_input;

void OnCrash(int sig) {
  static const char kPrefix[] = "fuzz driver: crashed on input ";
  ssize_t ignored = write(STDERR_FILENO, kPrefix, sizeof(kPrefix) - 1);
  ignored = write(STDERR_FILENO, current_input.data(), current_input.size());
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path path(argv[i]);
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      for (const auto& item : std::filesystem::recursive_directory_iterator(path, error)) {
        if (item.is_regular_file()) inputs.push_back(item.path());
      }
    } else if (std::filesystem::is_regular_file(path, error)) {
      inputs.push_back(path);
    } else {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...  (found no inputs)\n", argv[0]);
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  for (int sig : {SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE}) signal(sig, OnCrash);
  for (const auto& path : inputs) {
    current_input = path.string();
    std::ifstream file(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("ran %zu inputs\n", inputs.size());
  return 0;
}
