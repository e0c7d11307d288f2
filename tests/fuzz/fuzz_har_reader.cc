// libFuzzer target for the HAR reader (tools/replay/trace/har_reader.h): any bytes must give either
// pages that keep the reader's promises or a one-line error, and never a crash. Checked
// promises trap (the fuzzer reports them as crashes). See README.md for how to run it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tools/replay/trace/har_estimate.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/host_protocol.h"

namespace {

void Check(bool promise) {
  if (!promise) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  netstack::LooksLikeHar(text);
  netstack::HarFile har;
  std::string error;
  if (!netstack::ParseHar(text, "fuzz.har", &har, &error)) {
    Check(error.rfind("fuzz.har", 0) == 0);
    Check(error.find('\n') == std::string::npos);
    return 0;
  }
  Check(har.pages.empty() || har.pages[0].new_run);
  for (const netstack::TracePage& page : har.pages) {
    Check(!page.entries.empty());
    Check(page.entries[0].parent == -1);
    Check(page.skipped_entries == page.skipped_not_http + page.skipped_invalid_url +
                                      page.skipped_no_response + page.skipped_unfinished);
    for (size_t i = 0; i < page.entries.size(); ++i) {
      const netstack::TraceEntry& entry = page.entries[i];
      Check(entry.parent < static_cast<int>(i));
      Check(i == 0 || entry.parent >= 0);
      Check(entry.gap_ms >= 0);
      Check(entry.start_ms >= 0);
      Check(entry.response_body_bytes >= 0);
      Check(entry.url.size() > 7 && (entry.url[0] == 'h' || entry.url[0] == 'H'));
      Check(entry.status >= 0);
      Check(entry.recorded_error.empty() == (entry.recorded_error_code == 0));
      Check(entry.recorded_error.size() <= 256 && entry.connection_id.size() <= 256);
      Check(!entry.recorded_warm_connection ||
            (entry.timings.dns <= 0 && entry.timings.connect <= 0 && !entry.recorded_from_cache &&
             entry.recorded_error.empty()));
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
