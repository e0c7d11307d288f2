// The cache benchmark's figures as rows (metric, unit, backend, raw, ratio) and as a table. The
// same rows go into the JSON file ("summary"), so tools/bench/cache-bench takes medians of
// them across runs without knowing what they are.
#ifndef TOOLS_BENCH_CACHE_BENCH_REPORT_H_
#define TOOLS_BENCH_CACHE_BENCH_REPORT_H_

#include <cstdio>
#include <nlohmann/json.hpp>

#include "tools/bench/cache_bench.h"

namespace netstack {

// [{"metric", "unit", "backend", "raw"}, ...]; "raw" is null where the floor has no
// counterpart.
nlohmann::json SummaryRows(const CacheBenchReport& report);

// The header line (workload, plan, limits) and the rows with backend/raw ratios.
void PrintReport(const CacheBenchReport& report, FILE* out);

}  // namespace netstack

#endif  // TOOLS_BENCH_CACHE_BENCH_REPORT_H_
