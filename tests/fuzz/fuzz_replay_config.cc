// libFuzzer target for `replay --config FILE` and `--set` (tools/replay/replay_config.h). The
// input is written to a scratch file and applied as a config file (JSON or KEY=VALUE lines);
// a one-line input with '=' is also applied as an inline list. Promises checked: Apply either
// succeeds or gives a one-line error naming the file; an applied config round-trips (ToJson
// written as a file and applied to a fresh config gives the same ToJson); Describe is one line.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_check.h"
#include "tools/replay/replay_config.h"

namespace {

// A scratch file of this process (removed at exit).
const std::string& ScratchPath() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string p = std::string(tmp && *tmp ? tmp : "/tmp") + "/fuzz_replay_config." +
                    std::to_string(getpid()) + ".conf";
    std::atexit([] { std::remove(ScratchPath().c_str()); });
    return p;
  }();
  return path;
}

void Write(std::string_view bytes) {
  std::ofstream out(ScratchPath(), std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) __builtin_trap();
}

void CheckApplied(const netstack::ReplayConfig& config) {
  FUZZ_CHECK(config.Describe().find('\n') == std::string::npos);
  const nlohmann::json json = config.ToJson();
  Write(json.dump());
  netstack::ReplayConfig again;
  std::string error;
  FUZZ_CHECK(again.Apply(ScratchPath(), &error));
  FUZZ_CHECK(again.ToJson() == json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Write(text);
  netstack::ReplayConfig config;
  std::string error;
  if (config.Apply(ScratchPath(), &error)) {
    CheckApplied(config);
  } else {
    FUZZ_CHECK(!error.empty());
    FUZZ_CHECK(error.find('\n') == std::string::npos);
    FUZZ_CHECK(error.find(ScratchPath()) != std::string::npos);
  }

  if (text.find('=') != std::string_view::npos && text.find('/') == std::string_view::npos &&
      text.find('\n') == std::string_view::npos && text.find('\0') == std::string_view::npos) {
    netstack::ReplayConfig inline_config;
    error.clear();
    if (inline_config.Apply(std::string(text), &error)) {
      CheckApplied(inline_config);
    } else {
      FUZZ_CHECK(error.find('\n') == std::string::npos);
    }
  }
  return 0;
}
