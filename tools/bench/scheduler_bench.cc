// scheduler_bench: the cost of one task on VirtualScheduler under a replay-like mix, in ns per
// posted task (median of --runs). Not a test: nothing registers it with CTest.
//
// Workload (deterministic, seeded): --actors connections, each a chain of steps. A step posts
// its successor, immediately (half the time) or after 1..20 ms, and half the time restarts the
// actor's idle OneShotTimer (30 s), which cancels the previous one, as the stack restarts
// timeouts per request. Posting stops after --tasks posts; the loop is driven the way `netstack
// replay` drives it (NextTaskTime, then AdvanceBy to it) until nothing is left, so the idle
// timers still pending at the end fire. About a third of the posts are immediate, a third
// delayed and a third cancelled before they are due.
//
// For a repeatable figure on a noisy machine, count instructions instead of time:
//   valgrind --tool=callgrind build/tools/bench/scheduler_bench --tasks 500000 --runs 1
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "net/base/scheduler.h"
#include "net/base/virtual_scheduler.h"

namespace netstack {
namespace {

struct Counts {
  uint64_t posted = 0;
  uint64_t cancelled = 0;
  uint64_t ran = 0;
};

class Workload;

class Actor {
 public:
  Actor(Workload* workload, Scheduler& scheduler) : workload_(workload), idle_(scheduler) {}
  void Step();

 private:
  Workload* workload_;
  OneShotTimer idle_;
};

class Workload {
 public:
  Workload(uint64_t tasks, size_t actors, uint64_t seed) : budget_(tasks), rng_(seed | 1) {
    actors_.reserve(actors);
    for (size_t i = 0; i < actors; ++i) actors_.push_back(std::make_unique<Actor>(this, sched_));
  }

  Counts Run() {
    for (auto& a : actors_) Post(a.get());
    TimeTicks next;
    while (sched_.NextTaskTime(&next))
      sched_.AdvanceBy(std::max(TimeDelta::zero(), next - sched_.Now()));
    return counts_;
  }

  // xorshift64*: cheap and the same on every machine.
  uint64_t Random() {
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    return rng_ * 2685821657736338717ull;
  }

  // Spends one unit of the budget; false once the budget is gone.
  bool Take() {
    if (counts_.posted >= budget_) return false;
    ++counts_.posted;
    return true;
  }

  void Post(Actor* actor) {
    if (!Take()) return;
    uint64_t r = Random();
    auto step = [actor] { actor->Step(); };
    if (r & 1)
      sched_.PostTask(step);
    else
      sched_.PostDelayedTask(TimeDelta(1 + (r >> 8) % 20'000), step);
  }

  Scheduler& scheduler() { return sched_; }
  Counts& counts() { return counts_; }

 private:
  VirtualScheduler sched_{TimeTicks(std::chrono::seconds(1))};
  uint64_t budget_;
  uint64_t rng_;
  Counts counts_;
  std::vector<std::unique_ptr<Actor>> actors_;
};

void Actor::Step() {
  Counts& c = workload_->counts();
  ++c.ran;
  if (workload_->Random() & 1 && workload_->Take()) {
    if (idle_.IsRunning()) ++c.cancelled;
    idle_.Start(std::chrono::seconds(30), [&c] { ++c.ran; });
  }
  workload_->Post(this);
}

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace
}  // namespace netstack

int main(int argc, char** argv) {
  using namespace netstack;
  uint64_t tasks = 5'000'000;
  size_t actors = 10'000;
  int runs = 5;
  uint64_t seed = 42;
  CLI::App app{"scheduler_bench: ns per task on VirtualScheduler (replay-like mix)"};
  app.add_option("--tasks", tasks, "tasks posted per run")->check(CLI::Range(1ull, 1ull << 40));
  app.add_option("--actors", actors, "concurrent task chains")->check(CLI::Range(1, 10'000'000));
  app.add_option("--runs", runs, "runs; the median is reported")->check(CLI::Range(1, 1000));
  app.add_option("--seed", seed, "workload seed");
  CLI11_PARSE(app, argc, argv);

  std::vector<double> ns_per_task;
  Counts counts;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    {
      Workload w(tasks, actors, seed);
      counts = w.Run();
    }  // destruction is part of the cost
    auto elapsed = std::chrono::steady_clock::now() - start;
    double ns = std::chrono::duration<double, std::nano>(elapsed).count();
    ns_per_task.push_back(ns / static_cast<double>(counts.posted));
    std::printf("run %d: %.1f ns/task\n", i + 1, ns_per_task.back());
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("tasks posted %llu (ran %llu, cancelled %llu), actors %zu\n",
              static_cast<unsigned long long>(counts.posted),
              static_cast<unsigned long long>(counts.ran),
              static_cast<unsigned long long>(counts.cancelled), actors);
  std::printf("median %.1f ns/task over %d runs (min %.1f, max %.1f); peak RSS %ld MiB\n",
              MedianOf(ns_per_task), runs,
              *std::min_element(ns_per_task.begin(), ns_per_task.end()),
              *std::max_element(ns_per_task.begin(), ns_per_task.end()), usage.ru_maxrss / 1024);
  return counts.ran + counts.cancelled == counts.posted ? 0 : 1;
}
