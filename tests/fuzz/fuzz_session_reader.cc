// libFuzzer target for the session reader (tools/replay/trace/session_reader.h): any bytes read as
// a session must give events that keep the reader's promises, then the end or a one-line error
// naming the file and line, and never a crash. HAR paths resolve against the seed corpus, so
// inputs can refer to the HAR seeds ("../har_reader/minimal.har"). See README.md for how to run it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "tools/replay/trace/session_reader.h"

#ifndef FUZZ_CORPUS_DIR
#define FUZZ_CORPUS_DIR "."
#endif

namespace {

void Check(bool promise) {
  if (!promise) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in =
      std::make_unique<std::istringstream>(std::string(reinterpret_cast<const char*>(data), size));
  std::unique_ptr<netstack::TraceSource> source =
      netstack::OpenSessionStream(std::move(in), "fuzz.jsonl", FUZZ_CORPUS_DIR "/session_reader");
  netstack::SessionEvent event;
  std::string error;
  // The host lines first, as the replay reads them; an error ends the source.
  netstack::HostProtocols hosts;
  if (source->ReadHostProtocols(&hosts, &error)) {
    for (const auto& [host, protocol] : hosts) {
      Check(!host.empty());
      Check(protocol != netstack::TraceProtocol::kUnknown);
    }
  } else {
    Check(!error.empty());
    Check(!source->Next(&event, &error));
  }
  double last_t = 0;
  while (source->Next(&event, &error)) {
    Check(event.t_ms >= last_t);
    last_t = event.t_ms;
    Check(event.where.rfind("fuzz.jsonl:", 0) == 0);
    if (event.type == netstack::SessionEvent::Type::kNavigate) {
      Check(event.page != nullptr);
      Check(!event.page->entries.empty());
      Check(!event.url.empty());
      for (size_t i = 0; i < event.page->entries.size(); ++i) {
        Check(event.page->entries[i].parent < static_cast<int>(i));
      }
    }
  }
  if (!error.empty()) {
    Check(error.rfind("fuzz.jsonl", 0) == 0);
    Check(error.find('\n') == std::string::npos);
  }
  return 0;
}
