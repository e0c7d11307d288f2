#include "net/base/scheduler.h"

#include <uv.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "net/base/uv_scheduler.h"
#include "net/base/virtual_scheduler.h"

using namespace netstack;
using namespace std::chrono_literals;

TEST_CASE("virtual scheduler runs tasks by due time, then posting order") {
  VirtualScheduler s;
  std::string order;
  s.PostDelayedTask(20ms, [&] { order += "c"; });
  s.PostDelayedTask(10ms, [&] { order += "a"; });
  s.PostDelayedTask(10ms, [&] { order += "b"; });
  s.PostTask([&] { order += "0"; });
  CHECK(s.RunUntilIdle() == 1);
  CHECK(order == "0");
  s.AdvanceBy(10ms);
  CHECK(order == "0ab");
  CHECK(s.Now() == TimeTicks(10ms));
  s.AdvanceBy(5ms);
  CHECK(order == "0ab");
  CHECK(s.Now() == TimeTicks(15ms));
  s.RunAll();
  CHECK(order == "0abc");
  CHECK(s.Now() == TimeTicks(20ms));
}

TEST_CASE("virtual scheduler: time inside a task is its due time") {
  VirtualScheduler s;
  TimeTicks seen{};
  s.PostDelayedTask(7ms, [&] { seen = s.Now(); });
  s.AdvanceBy(100ms);
  CHECK(seen == TimeTicks(7ms));
  CHECK(s.Now() == TimeTicks(100ms));
}

TEST_CASE("virtual scheduler: cancelled tasks never run") {
  VirtualScheduler s;
  int ran = 0;
  TaskId id = s.PostDelayedTask(1ms, [&] { ++ran; });
  CHECK(s.CancelTask(id));
  CHECK_FALSE(s.CancelTask(id));
  s.RunAll();
  CHECK(ran == 0);
}

TEST_CASE("virtual scheduler: tasks posted by tasks run in order") {
  VirtualScheduler s;
  std::vector<int> order;
  s.PostTask([&] {
    order.push_back(1);
    s.PostTask([&] { order.push_back(3); });
  });
  s.PostTask([&] { order.push_back(2); });
  s.RunUntilIdle();
  CHECK(order == std::vector<int>{1, 2, 3});
}

TEST_CASE("RunAll stops at its task budget") {
  VirtualScheduler s;
  std::function<void()> again = [&] { s.PostDelayedTask(1ms, again); };
  s.PostTask(again);
  CHECK(s.RunAll(50) == 50);
}

TEST_CASE("one-shot timer: restart, stop, destruction cancel") {
  VirtualScheduler s;
  int fired = 0;
  {
    OneShotTimer t(s);
    t.Start(10ms, [&] { ++fired; });
    s.AdvanceBy(5ms);
    t.Start(10ms, [&] { ++fired; });  // restart: due at 15 ms
    s.AdvanceBy(9ms);
    CHECK(fired == 0);
    CHECK(t.IsRunning());
    s.AdvanceBy(1ms);
    CHECK(fired == 1);
    CHECK_FALSE(t.IsRunning());
    t.Start(1ms, [&] { ++fired; });
  }  // destroyed while running
  s.RunAll();
  CHECK(fired == 1);
}

TEST_CASE("uv scheduler runs delayed tasks in order on a real loop and closes cleanly") {
  uv_loop_t loop;
  REQUIRE(uv_loop_init(&loop) == 0);
  std::string order;
  {
    UvScheduler s(&loop);
    TimeTicks start = s.Now();
    TimeTicks fired_at{};
    s.PostDelayedTask(20ms, [&] {
      order += "b";
      fired_at = s.Now();
    });
    s.PostDelayedTask(1ms, [&] { order += "a"; });
    TaskId cancelled = s.PostDelayedTask(5ms, [&] { order += "x"; });
    s.CancelTask(cancelled);
    uv_run(&loop, UV_RUN_DEFAULT);
    CHECK(order == "ab");
    CHECK(fired_at - start >= 20ms);  // never early
  }
  uv_run(&loop, UV_RUN_DEFAULT);  // lets the timer's close callback free it
  CHECK(uv_loop_close(&loop) == 0);
}
