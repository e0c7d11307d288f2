// cache_bench: the disk cache against plain sqlite and files on 100,000 entries (see
// cache_bench.h for the phases and README.md for how to run it). Prints a table on stdout and,
// with --json FILE, every sample. A benchmark, not a test: it fails only when the cache gives
// wrong answers or an operation fails, never on a timing.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdio>
#include <fstream>
#include <string>

#include "tools/bench/cache_bench.h"
#include "tools/bench/cache_bench_report.h"

namespace {

void OnAlarm(int) {
  static const char kMessage[] = "cache_bench: --timeout-s reached, giving up\n";
  ssize_t ignored = write(2, kMessage, sizeof(kMessage) - 1);
  (void)ignored;
  _exit(3);
}

std::string SelfPath(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string(argv0);
}

}  // namespace

int main(int argc, char** argv) {
  netstack::CacheBenchOptions options;
  int64_t write_mib = 1024;
  int64_t entry_kib = 1024;
  int64_t max_mib = 0;
  int timeout_s = 1800;
  std::string json_path;
  std::string open_child, data_dir;
  int64_t expect = 0, max_bytes = 0;

  CLI::App app{"cache_bench: the disk cache against plain sqlite and files"};
  app.add_option("--entries", options.workload.entries, "entries in the cache")
      ->check(CLI::Range(1, 10'000'000));
  app.add_option("--write-mib", write_mib, "MiB written while the loop's lag is measured")
      ->check(CLI::Range(1, 64 * 1024));
  app.add_option("--write-entry-kib", entry_kib, "size of each entry of that write")
      ->check(CLI::Range(64, 2048));
  app.add_option("--hits", options.hits, "random hits timed")->check(CLI::Range(1, 10'000'000));
  app.add_option("--misses", options.misses, "absent keys timed")->check(CLI::Range(1, 10'000'000));
  app.add_option("--opens", options.opens, "fresh-process opens of each side")
      ->check(CLI::Range(1, 100));
  app.add_option("--seed", options.workload.seed, "the workload's seed");
  app.add_option("--median-bytes", options.workload.median_body_bytes, "median body size")
      ->check(CLI::Range(1.0, 1e7));
  app.add_option("--sigma", options.workload.sigma, "log-normal shape of the body sizes")
      ->check(CLI::Range(0.0, 5.0));
  app.add_option("--raw-batch", options.raw_batch, "raw inserts per transaction")
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--max-mib", max_mib,
                 "the cache's max_bytes (default: twice what is written, so no eviction)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app.add_option("--backend", options.backend, "disk, or memory (checks the harness)")
      ->check(CLI::IsMember({"disk", "memory"}));
  app.add_flag("--backend-first", options.backend_first, "run each phase's backend side first");
  app.add_option("--tmp", options.parent_dir, "where the temporary data directory goes")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--keep", options.keep, "leave the data directory in place");
  app.add_option("--json", json_path, "write every sample to this file");
  app.add_option("--timeout-s", timeout_s, "give up after this long")->check(CLI::Range(1, 86400));
  // The open phase's child (OpenInChild); not for people.
  app.add_option("--open-child", open_child)->group("")->check(CLI::IsMember({"raw", "backend"}));
  app.add_option("--data-dir", data_dir)->group("");
  app.add_option("--expect", expect)->group("");
  app.add_option("--max-bytes", max_bytes)->group("");
  CLI11_PARSE(app, argc, argv);

  signal(SIGALRM, OnAlarm);
  alarm(static_cast<unsigned>(timeout_s));
  options.self_path = SelfPath(argv[0]);
  options.stream.total_bytes = write_mib << 20;
  options.stream.entry_bytes = std::min<int64_t>(entry_kib << 10, options.stream.total_bytes);
  options.max_bytes = max_mib << 20;

  if (!open_child.empty()) {
    options.max_bytes = max_bytes;
    return netstack::RunOpenChild(open_child, data_dir, expect, options);
  }

  netstack::CacheBenchReport report;
  std::string error;
  if (!netstack::RunCacheBench(options, &report, &error)) {
    fprintf(stderr, "cache_bench: %s\n", error.c_str());
    return 1;
  }
  netstack::PrintReport(report, stdout);
  if (!json_path.empty()) {
    nlohmann::json j = report.ToJson(/*with_samples=*/true);
    j["summary"] = netstack::SummaryRows(report);
    std::ofstream file(json_path);
    file << j.dump() << "\n";
    if (!file) {
      fprintf(stderr, "cache_bench: cannot write %s\n", json_path.c_str());
      return 1;
    }
  }
  return 0;
}
