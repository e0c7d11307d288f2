#include "tools/bench/bench_result.h"

namespace netstack {

nlohmann::json BenchResult::ToJson(bool with_samples) const {
  auto rate = [](double count, double s) { return s > 0 ? count / s : 0.0; };
  constexpr double kMB = 1e6;
  nlohmann::json j;
  j["insert"] = {{"entries", insert.entries},
                 {"bytes", insert.bytes},
                 {"loop_s", insert.loop_s},
                 {"flush_s", insert.flush_s},
                 {"failures", insert.failures},
                 {"entries_per_s_loop", rate(insert.entries, insert.loop_s)},
                 {"entries_per_s_flush", rate(insert.entries, insert.flush_s)},
                 {"mb_per_s_loop", rate(insert.bytes / kMB, insert.loop_s)},
                 {"mb_per_s_flush", rate(insert.bytes / kMB, insert.flush_s)}};
  j["open_ms"] = open_ms;
  j["open_ms_median"] = MedianOf(open_ms);
  j["hit_us"] = hit_us.ToJson(with_samples);
  j["hit_no_wait_us"] = hit_no_wait_us.ToJson(with_samples);
  j["hit_failures"] = hit_failures;
  j["miss_us"] = miss_us.ToJson(with_samples);
  j["miss_failures"] = miss_failures;
  if (!miss_db_us.empty()) j["miss_db_us"] = miss_db_us.ToJson(with_samples);
  j["stream"] = {{"bytes", stream.bytes},
                 {"entries", stream.entries},
                 {"loop_s", stream.loop_s},
                 {"flush_s", stream.flush_s},
                 {"failures", stream.failures},
                 {"mb_per_s_flush", rate(stream.bytes / kMB, stream.flush_s)},
                 {"lag_us", stream.lag_us.ToJson(with_samples)},
                 {"blocked_us", stream.blocked_us.ToJson(with_samples)}};
  return j;
}

}  // namespace netstack
