// libFuzzer target for the DevTools protocol log reader (tools/replay/trace/devtools_log.h): any
// bytes must give either pages that keep the reader's promises or a one-line error naming the
// file, and never a crash. Checked promises trap (the fuzzer reports them as crashes). See
// README.md for how to run it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tools/replay/trace/devtools_log.h"
#include "tools/replay/trace/har_estimate.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/recording_reader.h"

namespace {

void Check(bool promise) {
  if (!promise) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  netstack::HarFile har;
  std::string error;
  bool ok = netstack::ParseDevtoolsLog(text, "fuzz.json", &har, &error);
  // The recording reader reads what looks like a log the same way.
  if (netstack::SniffRecording(text) == netstack::RecordingKind::kDevtoolsLog) {
    netstack::HarFile again;
    std::string again_error;
    Check(netstack::ParseRecording(text, "fuzz.json", &again, &again_error) == ok);
    Check(again_error == error);
    Check(again.pages.size() == har.pages.size());
  }
  if (!ok) {
    Check(error.rfind("fuzz.json", 0) == 0);
    Check(error.find('\n') == std::string::npos);
    Check(har.pages.empty());
    return 0;
  }
  Check(!har.pages.empty());
  for (size_t p = 0; p < har.pages.size(); ++p) {
    const netstack::TracePage& page = har.pages[p];
    Check(page.new_run == (p == 0));
    Check(!page.entries.empty());
    Check(page.entries[0].parent == -1);
    Check(page.skipped_entries == page.skipped_not_http + page.skipped_invalid_url +
                                      page.skipped_no_response + page.skipped_unfinished);
    Check(page.recorded_onload_ms == -1 || page.recorded_onload_ms >= 0);
    Check(page.recorded_content_load_ms == -1 || page.recorded_content_load_ms >= 0);
    for (size_t i = 0; i < page.entries.size(); ++i) {
      const netstack::TraceEntry& entry = page.entries[i];
      Check(entry.parent < static_cast<int>(i));
      Check(i == 0 || entry.parent >= 0);
      Check(entry.gap_ms >= 0);
      Check(entry.start_ms >= 0 && entry.start_ms <= netstack::kMaxTraceMs);
      Check(i == 0 || entry.start_ms >= page.entries[i - 1].start_ms);
      Check(entry.recorded_total_ms >= 0 && entry.recorded_total_ms <= netstack::kMaxTraceMs);
      Check(entry.response_body_bytes >= 0 &&
            entry.response_body_bytes <= netstack::kMaxTraceBodyBytes);
      Check(entry.request_body_bytes >= 0 &&
            entry.request_body_bytes <= netstack::kMaxTraceBodyBytes);
      Check(entry.recorded_error.empty() == (entry.recorded_error_code == 0));
      Check(entry.url.size() > 7 && (entry.url[0] == 'h' || entry.url[0] == 'H'));
      Check(entry.response_headers.size() <= netstack::kMaxDevtoolsHeaders);
    }
  }
  netstack::EstimateNetwork(&har.pages, netstack::NetworkParams());
  netstack::NetworkParams params;
  for (const auto& [host, protocol] : netstack::RecordedHostProtocols(har.pages)) {
    Check(!host.empty());
    Check(protocol != netstack::TraceProtocol::kUnknown);
  }
  netstack::ApplyHostProtocols(netstack::RecordedHostProtocols(har.pages), &params);
  return 0;
}
