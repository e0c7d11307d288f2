// libFuzzer target for the HTTP cache's stored-response blob (stream 0,
// net/http/http_response_info.h). Any bytes either parse or give a one-line reason, never an
// exception or a crash. Promises checked: a parsed info has headers and at most kMaxVaryHeaders
// Vary values; Serialize -> Parse -> Serialize is stable (the round trip is exact); ToJson
// (what `netstack cache show` prints) always serializes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/http/http_response_headers.h"
#include "net/http/http_response_info.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view blob(reinterpret_cast<const char*>(data), size);
  netstack::HttpResponseInfo info;
  std::string error;
  if (!netstack::HttpResponseInfo::Parse(blob, &info, &error)) {
    FUZZ_CHECK(!error.empty());
    FUZZ_CHECK(error.find('\n') == std::string::npos);
    return 0;
  }
  FUZZ_CHECK(info.headers != nullptr);
  FUZZ_CHECK(info.vary.size() <= netstack::HttpResponseInfo::kMaxVaryHeaders);
  const std::string serialized = info.Serialize();
  netstack::HttpResponseInfo again;
  FUZZ_CHECK(netstack::HttpResponseInfo::Parse(serialized, &again, &error));
  FUZZ_CHECK(again.Serialize() == serialized);
  FUZZ_CHECK(again.url == info.url);
  FUZZ_CHECK(again.request_time == info.request_time);
  FUZZ_CHECK(again.response_time == info.response_time);
  FUZZ_CHECK(again.vary == info.vary);
  FUZZ_CHECK(again.headers->ToHttpString() == info.headers->ToHttpString());
  info.ToJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
