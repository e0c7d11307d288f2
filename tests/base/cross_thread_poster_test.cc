// UvCrossThreadPoster: tasks from other threads run on the loop in posting order, and the
// handle's lifetime ends cleanly (uv_loop_close succeeds) even with tasks still queued.
#include <uv.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "net/base/clock.h"
#include "net/base/uv_cross_thread_poster.h"
#include "net/base/virtual_scheduler.h"

namespace netstack {
namespace {

TEST_CASE("UvCrossThreadPoster runs tasks from other threads on the loop, in order", "[base]") {
  uv_loop_t loop;
  REQUIRE(uv_loop_init(&loop) == 0);
  const std::thread::id loop_thread = std::this_thread::get_id();
  {
    UvCrossThreadPoster poster(&loop);
    poster.Ref();  // keep the loop alive until every task ran
    constexpr int kThreads = 4, kPerThread = 2000;
    std::vector<std::vector<int>> seen(kThreads);
    std::atomic<bool> off_loop{false};
    int total = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          poster.PostToLoop([&, t, i] {
            if (std::this_thread::get_id() != loop_thread) off_loop = true;
            seen[t].push_back(i);
            if (++total == kThreads * kPerThread) poster.Unref();
          });
        }
      });
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    for (auto& th : threads) th.join();
    CHECK_FALSE(off_loop);
    REQUIRE(total == kThreads * kPerThread);
    for (int t = 0; t < kThreads; ++t) {
      std::vector<int> expected(kPerThread);
      for (int i = 0; i < kPerThread; ++i) expected[i] = i;
      CHECK(seen[t] == expected);  // per-thread posting order kept
    }
  }
  uv_run(&loop, UV_RUN_DEFAULT);  // the close callback frees the handle
  CHECK(uv_loop_close(&loop) == 0);
}

TEST_CASE("UvCrossThreadPoster drops tasks queued at destruction and after it", "[base]") {
  uv_loop_t loop;
  REQUIRE(uv_loop_init(&loop) == 0);
  int ran = 0;
  auto poster = std::make_unique<UvCrossThreadPoster>(&loop);
  std::thread([&] { poster->PostToLoop([&] { ++ran; }); }).join();
  poster.reset();
  uv_run(&loop, UV_RUN_DEFAULT);
  CHECK(ran == 0);
  CHECK(uv_loop_close(&loop) == 0);
}

TEST_CASE("UvCrossThreadPoster: a task that destroys the poster stops the batch", "[base]") {
  uv_loop_t loop;
  REQUIRE(uv_loop_init(&loop) == 0);
  int ran = 0;
  auto poster = std::make_unique<UvCrossThreadPoster>(&loop);
  poster->Ref();
  std::thread([&] {
    poster->PostToLoop([&] {
      ++ran;
      poster.reset();
    });
    poster->PostToLoop([&] { ++ran; });
  }).join();
  uv_run(&loop, UV_RUN_DEFAULT);
  CHECK(ran == 1);
  CHECK(uv_loop_close(&loop) == 0);
}

TEST_CASE("SchedulerClock advances with virtual time from its origin", "[base]") {
  VirtualScheduler scheduler;
  SchedulerClock clock(scheduler, TimeFromUnixSeconds(1'000'000));
  CHECK(ToUnixSeconds(clock.Now()) == 1'000'000);
  scheduler.AdvanceBy(Seconds(90));
  CHECK(ToUnixSeconds(clock.Now()) == 1'000'090);
  ManualClock manual(TimeFromUnixSeconds(5));
  manual.Advance(Milliseconds(1500));
  CHECK(ToUnixMicros(manual.Now()) == 6'500'000);
}

}  // namespace
}  // namespace netstack
