// libFuzzer target for the internals server's input path: the request reader
// (net/server/http_request_reader.h) reads the input as a connection's bytes (pipelined
// requests), and each complete request goes to the router (tools/internals/internals_router.h)
// with its JSON body, in front of a host with no stack (as a replay between passes). The token
// is kToken and the port kPort, so inputs can pass the Host and token checks.
// Promises checked: the reader consumes what it is given and no more, stops for good on an
// error with 400/413/431/505 and a one-line reason, keeps within its bounds; the router answers
// every request exactly once, with a valid status, and a JSON answer is valid JSON.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/base/clock.h"
#include "net/base/net_log_ring.h"
#include "net/base/stack_histograms.h"
#include "net/server/http_request_reader.h"
#include "tests/fuzz/fuzz_check.h"
#include "tools/internals/internals_host.h"
#include "tools/internals/internals_router.h"

namespace {

constexpr int kPort = 9333;
constexpr char kToken[] = "00112233445566778899aabbccddeeff";
constexpr size_t kMaxRequests = 16;

// A host with no stack to show.
class NoStackHost : public netstack::InternalsHost {
 public:
  netstack::UrlRequestContext* context() override { return nullptr; }
  netstack::Predictor* predictor() override { return nullptr; }
  const netstack::Clock& clock() override { return clock_; }
  int64_t time_tick_offset_ms() override { return 1'700'000'000'000; }
  nlohmann::json GetInfo() override {
    return {{"mode", "internals"}, {"command_line", "netstack internals"},
            {"profile", nullptr},  {"predictor_policy", "off"},
            {"can_fetch", false},  {"replay", nullptr}};
  }
  void Quit() override {}

 private:
  netstack::ManualClock clock_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static NoStackHost host;
  static netstack::NetLogRing ring;
  static netstack::StackHistograms histograms;
  static netstack::InternalsRouter router(&host, &ring, &histograms,
                                          {kToken, kPort, "127.0.0.1", "netstack internals"});

  netstack::HttpRequestReader::Limits limits;
  limits.max_head_bytes = 4096;
  limits.max_body_bytes = 4096;
  netstack::HttpRequestReader reader(limits);
  const char* bytes = reinterpret_cast<const char*>(data);
  size_t offset = 0;
  for (size_t requests = 0; requests < kMaxRequests && offset < size;) {
    size_t n = reader.Feed(bytes + offset, size - offset);
    FUZZ_CHECK(n <= size - offset);
    offset += n;
    if (reader.state() == netstack::HttpRequestReader::State::kError) {
      const int status = reader.error_status();
      FUZZ_CHECK(status == 400 || status == 413 || status == 431 || status == 505);
      FUZZ_CHECK(!reader.error_message().empty());
      FUZZ_CHECK(reader.error_message().find('\n') == std::string::npos);
      FUZZ_CHECK(reader.Feed(bytes, size) == 0);
      break;
    }
    if (reader.state() != netstack::HttpRequestReader::State::kRequest) {
      FUZZ_CHECK(offset == size);  // it wants more: it took everything
      break;
    }
    ++requests;
    netstack::HttpServerRequest request = reader.TakeRequest();
    FUZZ_CHECK(request.body.size() <= limits.max_body_bytes);
    FUZZ_CHECK(request.body_bytes == request.body.size());
    int calls = 0;
    netstack::HttpServerResponse answer;
    router.Handle(request, [&](netstack::HttpServerResponse response) {
      ++calls;
      answer = std::move(response);
    });
    FUZZ_CHECK(calls == 1);
    FUZZ_CHECK(answer.status >= 200 && answer.status <= 599);
    if (answer.content_type.rfind("application/json", 0) == 0) {
      FUZZ_CHECK(!nlohmann::json::parse(answer.body, nullptr, false).is_discarded());
    }
  }
  return 0;
}
