// Helpers for the replay and report tests: inline pages and sessions (no files), a TraceSource
// over a vector of events, an observer that keeps every result, and a generated session's text.
#ifndef TESTS_REPLAY_REPLAY_TEST_UTIL_H_
#define TESTS_REPLAY_REPLAY_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "tools/replay/gen/synthetic_session.h"
#include "tools/replay/replay_config.h"
#include "tools/replay/replay_result.h"
#include "tools/replay/trace/session_reader.h"
#include "tools/replay/trace/trace.h"

namespace netstack::test {

// The synthetic session `options` describe (gen-session's generator), written to a temporary
// file and returned as its bytes; `stats` (may be null) gets the generator's counts.
std::string Generate(const SyntheticSessionOptions& options, SessionStats* stats = nullptr);

// A TraceSource over events given up front; optionally fails after them with `error`.
class VectorSource : public TraceSource {
 public:
  explicit VectorSource(std::vector<SessionEvent> events, std::string error = {})
      : events_(std::move(events)), error_(std::move(error)) {}
  bool Next(SessionEvent* event, std::string* error) override;
  const std::string& name() const override { return name_; }

 private:
  std::vector<SessionEvent> events_;
  std::string error_;
  size_t next_ = 0;
  std::string name_ = "inline";
};

// An entry: GET `url`, 200, `body_bytes`, Cache-Control: no-store unless `headers` say
// otherwise (given headers replace the default).
TraceEntry MakeEntry(const std::string& url, int64_t body_bytes = 1000, double start_ms = 0,
                     const std::string& type = "script", HeaderList headers = {});

std::shared_ptr<const TracePage> MakePage(const std::string& id, std::vector<TraceEntry> entries,
                                          int64_t epoch_ms = 1'700'000'000'000);

// The regular files in `dir` whose name ends in `extension` (".har"), sorted; empty when the
// folder is absent (the shared recordings beside the repository may be).
std::vector<std::string> FilesIn(const std::string& dir, const std::string& extension);

SessionEvent Navigate(std::shared_ptr<const TracePage> page, double t_ms = 0);
SessionEvent Wait(double t_ms = 0);
SessionEvent Other(SessionEvent::Type type, double t_ms = 0);

// The 470 ms example's network: unlimited bandwidth, DNS 50 ms, RTT 80 ms, TLS 1.2, server
// 100 ms (every host).
ReplayConfig ExampleConfig();

// The predictor tests' network: unlimited bandwidth, DNS 20 ms, RTT 40 ms, TLS 1.3 (a new HTTPS
// connection takes 100 ms, less than a hover's 200 ms lead), server 100 ms; and
// predictor=`predictor` ("off", "chrome", "loading", "learned").
ReplayConfig FastConfig(const std::string& predictor);

class Recorder : public ReplayObserver {
 public:
  void OnRequest(const RequestRecord& r) override { requests.push_back(r); }
  void OnPage(const PageResult& p) override { pages.push_back(p); }
  // The request of page `page`, entry `entry` (fails the test when missing).
  const RequestRecord& Get(uint64_t page, int entry) const;

  std::vector<RequestRecord> requests;
  std::vector<PageResult> pages;
};

// Replays `events` under `config`; returns Run's result (error in `error`).
bool Replay(const ReplayConfig& config, std::vector<SessionEvent> events, Recorder* recorder,
            std::string* error = nullptr, ReplayTotals* totals = nullptr);

}  // namespace netstack::test

#endif  // TESTS_REPLAY_REPLAY_TEST_UTIL_H_
