// The limits of url_request_limits.h on virtual time: a total time (max time) and a minimum rate
// over the whole fetch, and the deadline on a response's headers, against servers that drip
// their headers or their body a byte a second (never silent long enough for the idle timeout).
// Each drip is also run without the limit, to show that the limit is what stops it.
#include "net/http/url_request_limits.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/request/request_test_env.h"

namespace netstack::test {
namespace {

// `text`, one byte a second: each read completes a second after it was asked for.
std::vector<ScriptedRead> Drip(const std::string& text) {
  std::vector<ScriptedRead> reads;
  for (char c : text)
    reads.push_back(ScriptedRead::Data(std::string(1, c), IoMode::kAsync, Seconds(1)));
  return reads;
}

// Headers at once, then `body` a byte a second (a Content-Length response).
std::vector<ScriptedRead> BodyDrip(const std::string& body) {
  std::vector<ScriptedRead> reads = {ScriptedRead::Data(
      "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n",
      IoMode::kAsync)};
  for (ScriptedRead& r : Drip(body)) reads.push_back(std::move(r));
  return reads;
}

const std::string kDrippedResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

void CheckFailed(const RecordingDelegate& d, const UrlRequest& r, int expected) {
  INFO("error_message: " << r.error_message());
  CHECK(d.result == expected);
  CHECK(d.completions == 1);
  CHECK(d.calls_after_complete == 0);
  CHECK(r.error() == expected);
  CHECK(IsOneLine(r.error_message()));
  CHECK(r.error_message().rfind(ErrorToMessage(expected), 0) == 0);
}

UrlRequestContext::Config WithLimits(const TransferLimits& limits) {
  UrlRequestContext::Config config = RequestTestEnv::DefaultConfig();
  config.limits = limits;
  return config;
}

TEST_CASE("without limits a byte-a-second drip is never stopped", "[request][limits]") {
  // The finding: the idle timeout (60 s here) only measures silence.
  TransferLimits none;
  none.headers_timeout = TimeDelta::zero();
  RequestTestEnv env(WithLimits(none));
  env.AddHost("a.test");
  env.factory->AddSocket(Drip(kDrippedResponse));
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CHECK(d.result == OK);
  CHECK(d.data == "ok");
  CHECK(r->end_time() - r->start_time() > Seconds(static_cast<int64_t>(kDrippedResponse.size())));
}

TEST_CASE("max time stops a server dripping its headers", "[request][limits]") {
  TransferLimits limits;
  limits.max_time = Seconds(5);
  RequestTestEnv env(WithLimits(limits));
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket(Drip(kDrippedResponse));
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CheckFailed(d, *r, ERR_TIMED_OUT);
  CHECK(r->error_message().find("total time limit of 5 s") != std::string::npos);
  CHECK(r->end_time() - r->start_time() == Seconds(5));
  CHECK(d.response_started == 0);
  CHECK(conn->destroyed);
  CHECK(env.context->socket_pool()->IdleSocketCount() == 0);
}

TEST_CASE("max time stops a server dripping its body", "[request][limits]") {
  TransferLimits limits;
  limits.max_time = Seconds(10);
  RequestTestEnv env(WithLimits(limits));
  env.AddHost("a.test");
  const std::string body(100, 'x');
  FakeConnection* conn = env.factory->AddSocket(BodyDrip(body));
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CheckFailed(d, *r, ERR_TIMED_OUT);
  CHECK(d.response_started == 1);
  CHECK(!d.data.empty());
  CHECK(d.data.size() < body.size());
  CHECK(r->response_headers() != nullptr);
  CHECK(conn->destroyed);
}

TEST_CASE("max time covers the whole redirect chain", "[request][limits]") {
  // Each hop takes 3 s: a 5 s limit ends the fetch in the second hop, a 7 s one does not.
  const int64_t max_seconds = GENERATE(5, 7);
  INFO("max time " << max_seconds << " s");
  TransferLimits limits;
  limits.max_time = Seconds(max_seconds);
  RequestTestEnv env(WithLimits(limits));
  env.AddHost("a.test");
  env.factory->AddSocket({
      ScriptedRead::Data(Redirect(302, "/b"), IoMode::kAsync, Seconds(3)),
      ScriptedRead::Data(Response("200 OK", "final"), IoMode::kAsync, Seconds(3)),
  });
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/a"), &d);
  CHECK(r->redirect_chain() == std::vector<std::string>{"http://a.test/b"});
  if (max_seconds == 5) {
    CheckFailed(d, *r, ERR_TIMED_OUT);
    CHECK(r->end_time() - r->start_time() == Seconds(5));
  } else {
    CHECK(d.result == OK);
    CHECK(d.data == "final");
  }
}

TEST_CASE("a speed limit stops a body drip, with its own error", "[request][limits]") {
  TransferLimits limits;
  limits.min_bytes_per_second = 100;
  limits.low_speed_time = Seconds(3);
  RequestTestEnv env(WithLimits(limits));
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket(BodyDrip(std::string(100, 'x')));
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CheckFailed(d, *r, ERR_TRANSFER_TOO_SLOW);
  CHECK(r->error_message().find("less than 100 bytes/s for the last 3 s") != std::string::npos);
  // Slow from the start: three one-second checks.
  CHECK(r->end_time() - r->start_time() == Seconds(3));
  CHECK(d.response_started == 1);
  CHECK(conn->destroyed);
}

TEST_CASE("a speed limit stops a headers drip (header bytes do not count)", "[request][limits]") {
  TransferLimits limits;
  limits.min_bytes_per_second = 1;
  limits.low_speed_time = Seconds(10);
  RequestTestEnv env(WithLimits(limits));
  env.AddHost("a.test");
  env.factory->AddSocket(Drip(kDrippedResponse));
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CheckFailed(d, *r, ERR_TRANSFER_TOO_SLOW);
  CHECK(d.response_started == 0);
}

TEST_CASE("a transfer at or above the speed limit completes", "[request][limits]") {
  TransferLimits limits;
  limits.min_bytes_per_second = 1000;
  limits.low_speed_time = Seconds(2);
  RequestTestEnv env(WithLimits(limits));
  env.AddHost("a.test");
  // 10 KiB in 1 KiB parts every 500 ms: 2 KiB/s for 5 s.
  std::vector<ScriptedRead> reads = {
      ScriptedRead::Data("HTTP/1.1 200 OK\r\nContent-Length: 10240\r\n\r\n", IoMode::kAsync)};
  for (int i = 0; i < 10; ++i) {
    reads.push_back(ScriptedRead::Data(std::string(1024, 'x'), IoMode::kAsync, Milliseconds(500)));
  }
  env.factory->AddSocket(reads);
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CHECK(d.result == OK);
  CHECK(d.data.size() == 10240);
  CHECK(r->end_time() - r->start_time() > Seconds(4));  // the checks ran meanwhile
}

TEST_CASE("the headers timeout stops a headers drip and closes the socket", "[request][limits]") {
  TransferLimits limits;
  limits.headers_timeout = Seconds(10);
  RequestTestEnv env(WithLimits(limits));
  env.AddHost("a.test");
  FakeConnection* conn = env.factory->AddSocket(Drip(kDrippedResponse));
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CheckFailed(d, *r, ERR_TIMED_OUT);
  CHECK(r->error_message().find("response headers were not complete 10 s after the request") !=
        std::string::npos);
  CHECK(d.response_started == 0);
  CHECK(conn->destroyed);
  CHECK(env.context->socket_pool()->IdleSocketCount() == 0);
  // The request was sent at once: it ended 10 s later (plus the DNS and connect steps).
  const LoadTimingInfo& timing = r->load_timing_info();
  REQUIRE(timing.send_end != TimeTicks{});
  CHECK(r->end_time() - timing.send_end == Seconds(10));
}

TEST_CASE("the headers timeout does not bound the body", "[request][limits]") {
  TransferLimits limits;
  limits.headers_timeout = Seconds(2);
  RequestTestEnv env(WithLimits(limits));
  env.AddHost("a.test");
  env.factory->AddSocket(BodyDrip("abcdef"));
  RecordingDelegate d;
  auto r = env.Fetch(env.Params("http://a.test/"), &d);
  CHECK(d.result == OK);
  CHECK(d.data == "abcdef");
}

TEST_CASE("TransferRateMonitor: a stall is too slow after exactly the speed time",
          "[request][limits]") {
  TransferRateMonitor monitor(1000, Seconds(30), TimeTicks{}, 0);
  int checks = 0;
  bool slow = false;
  while (!slow && checks < 100) {
    ++checks;
    slow = monitor.Sample(TimeTicks{} + Seconds(checks), 0);
  }
  CHECK(slow);
  CHECK(checks == 30);
}

TEST_CASE("TransferRateMonitor: the rate is averaged over the last five checks",
          "[request][limits]") {
  TransferRateMonitor monitor(1000, Seconds(30), TimeTicks{}, 0);
  // 10 KB/s for 10 s, then nothing: the 5 s average falls below 1000 B/s at the 15th check
  // (slow since the 14th), so the 44th check is the first too slow.
  int first_slow = 0;
  for (int i = 1; i <= 100 && first_slow == 0; ++i) {
    const int64_t bytes = 10000 * std::min(i, 10);
    if (monitor.Sample(TimeTicks{} + Seconds(i), bytes)) first_slow = i;
    if (i <= 14) CHECK(monitor.last_rate() >= 1000);
  }
  CHECK(first_slow == 44);
}

TEST_CASE("TransferRateMonitor: catching up restarts the count", "[request][limits]") {
  TransferRateMonitor monitor(1000, Seconds(30), TimeTicks{}, 0);
  for (int i = 1; i <= 28; ++i) REQUIRE_FALSE(monitor.Sample(TimeTicks{} + Seconds(i), 0));
  // A burst lifts the 5 s average over the limit (10000 / 5 s) until it leaves the window.
  CHECK_FALSE(monitor.Sample(TimeTicks{} + Seconds(29), 10000));
  int first_slow = 0;
  for (int i = 30; i <= 100 && first_slow == 0; ++i) {
    if (monitor.Sample(TimeTicks{} + Seconds(i), 10000)) first_slow = i;
  }
  // Slow again from the 34th check (the burst left the window), since the 33rd: 33 + 30.
  CHECK(first_slow == 63);
}

TEST_CASE("FormatSeconds prints what a user typed", "[request][limits]") {
  CHECK(FormatSeconds(Seconds(300)) == "300");
  CHECK(FormatSeconds(Milliseconds(250)) == "0.25");
  CHECK(FormatSeconds(Milliseconds(1)) == "0.001");
}

}  // namespace
}  // namespace netstack::test
