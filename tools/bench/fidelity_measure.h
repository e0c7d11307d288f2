// How close one replay comes to the recording it replays: the measurement behind
// replay_fidelity (tools/bench/replay_fidelity.cc). For one recording (a HAR or any file the
// trace readers take), Measure estimates the network from the recording's own timings, replays
// it in both placements and compares, page by page and request by request:
//
//   - page load, two figures: the replayed onLoad against the recorded one (pages whose
//     recording has an onLoad), and the replayed last request's end against the recorded one;
//   - per request: end time (ms after the page's start) absolute percentage error; entries the
//     browser served from its own cache when recording and failed replays are excluded;
//   - Spearman's rank correlation of request end times within each page;
//   - error causes: each compared request's end-time error split into where it came from (its
//     start, inherited from parents and gaps, and each phase: queued, DNS, TCP, TLS, send, wait,
//     receive, other), summed as absolute milliseconds, so the largest remaining causes can be
//     tabled;
//   - the noise floor: where a file holds several runs of one page (pages with the same URL),
//     each run's recorded page load against the median of the other runs'.
//
// A measurement, not a test: figures are returned, never judged.
#ifndef TOOLS_BENCH_FIDELITY_MEASURE_H_
#define TOOLS_BENCH_FIDELITY_MEASURE_H_

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace netstack {

// Where a request's end-time error came from (replayed minus recorded, ms).
// kOther is what neither side's phases account for (a recording whose phases fall short of its
// "time", a replay's gap between phases), so the causes of one request add up to its error.
enum class ErrorCause {
  kStart,
  kQueued,
  kDns,
  kConnect,
  kTls,
  kSend,
  kWait,
  kReceive,
  kOther,
  kCount
};
const char* ErrorCauseName(ErrorCause cause);

struct ErrorCauses {
  // Per cause: the sum over requests of |replayed - recorded| and of (replayed - recorded).
  std::array<double, static_cast<size_t>(ErrorCause::kCount)> absolute_ms{}, signed_ms{};
  uint64_t requests = 0;
  void Add(ErrorCause cause, double replayed_minus_recorded);
  void Merge(const ErrorCauses& other);
  double TotalAbsoluteMs() const;
};

// One placement's comparison for one recording, or merged over several.
struct Fidelity {
  // Per page with a recorded onLoad, and per page with a recorded last end.
  std::vector<double> onload_ape, last_end_ape;
  std::vector<double> recorded_onload, replayed_onload, recorded_last_end, replayed_last_end;
  // The page-load figure of each page: onLoad where recorded, else the last end.
  std::vector<double> recorded_page_load, replayed_page_load;
  std::vector<double> request_ape, request_spearman;  // request_spearman: one per page
  uint64_t requests_compared = 0, excluded_cache = 0, excluded_failed = 0;
  ErrorCauses causes;

  void Merge(const Fidelity& other);
  nlohmann::json ToJson() const;
};

// The spread of the recording itself: runs of one page against each other.
struct NoiseFloor {
  std::vector<double> onload_ape, last_end_ape;  // one per run in a group of >= 2 runs
  void Merge(const NoiseFloor& other);
  nlohmann::json ToJson() const;
};

struct FileOutcome {
  std::string path, file, kind, creator, error;  // kind: "har" or "devtools"
  size_t pages = 0, entries = 0, skipped = 0;
  Fidelity dependency, offset;
  NoiseFloor noise;
  nlohmann::json ToJson() const;
};

// Reads the recording at `path`, estimates its network, applies `sets` ("KEY=VALUE", after the
// estimate), replays it with dependency and then offset placement (cache off: the recording
// says which entries the browser's cache served) and compares. On failure `error` is set
// (one line) and the figures are empty.
FileOutcome Measure(const std::string& path, const std::vector<std::string>& sets);

}  // namespace netstack

#endif  // TOOLS_BENCH_FIDELITY_MEASURE_H_
