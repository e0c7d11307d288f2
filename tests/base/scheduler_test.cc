#include "net/base/scheduler.h"

#include <uv.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <random>
#include <set>
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

TEST_CASE("RunUntil runs what is due, then jumps to each next task until the condition holds") {
  VirtualScheduler s(TimeTicks(1s));
  std::vector<std::string> ran;
  bool done = false;
  s.PostTask([&] { ran.push_back("now"); });
  s.PostDelayedTask(30ms, [&] {
    ran.push_back("30");
    s.PostTask([&] { ran.push_back("30+0"); });  // posted for now: runs before the check
    done = true;
  });
  s.PostDelayedTask(40ms, [&] { ran.push_back("40"); });
  s.PostDelayedTask(5min, [&] { ran.push_back("idle timeout"); });

  int checks = 0;
  CHECK(s.RunUntil([&] {
    ++checks;
    return done;
  }));
  CHECK(ran == std::vector<std::string>{"now", "30", "30+0"});
  CHECK(s.Now() == TimeTicks(1s + 30ms));  // not past the task that made it true
  CHECK(checks == 2);                      // after "now", after the 30 ms tasks
  CHECK(s.pending_tasks() == 2);           // later timers stay pending

  SECTION("a condition already true runs only what is due now") {
    s.PostTask([&] { ran.push_back("now again"); });
    CHECK(s.RunUntil([] { return true; }));
    CHECK(ran.back() == "now again");
    CHECK(s.Now() == TimeTicks(1s + 30ms));
  }
  SECTION("tasks running out first: false, everything ran") {
    CHECK_FALSE(s.RunUntil([] { return false; }));
    CHECK(ran.back() == "idle timeout");
    CHECK(s.pending_tasks() == 0);
    CHECK(s.Now() == TimeTicks(1s + 5min));
  }
}

TEST_CASE("RunUntil is bounded: a self-rescheduling task cannot make it hang") {
  VirtualScheduler s;
  int ticks = 0;
  std::function<void()> again = [&] {
    ++ticks;
    s.PostDelayedTask(1ms, again);
  };
  s.PostTask(again);
  CHECK_FALSE(s.RunUntil([] { return false; }, 100));
  CHECK(ticks == 101);  // the first at once, then one per jump
  CHECK(s.Now() == TimeTicks(100ms));
}

TEST_CASE("RunUntil: work the condition posts for now runs before time moves") {
  VirtualScheduler s;
  int pumped = 0;
  bool answered = false;
  s.PostDelayedTask(1s, [] {});
  // As a test that pumps another thread's completions inside its condition: the completion
  // arrives as a task for now, and RunUntil runs it at the current time.
  CHECK(s.RunUntil([&] {
    if (answered) return true;
    if (pumped++ == 0) s.PostTask([&] { answered = true; });
    return false;
  }));
  CHECK(s.Now() == TimeTicks());
  CHECK(s.pending_tasks() == 1);
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

// TaskQueue against a reference model: random pushes (many due times equal, some in the past,
// so both the FIFO and the heap paths and their merge are exercised), cancels of pending,
// popped, cancelled and never issued ids, and pops as time moves on.
TEST_CASE("task queue matches a reference model under random pushes, cancels and pops") {
  TaskQueue q;
  std::mt19937_64 rng(20240607);
  std::map<std::pair<int64_t, uint64_t>, TaskId> pending;  // (due, posting order) -> id
  std::map<TaskId, std::pair<int64_t, uint64_t>> by_id;
  std::vector<TaskId> issued;
  std::set<TaskId> unique;
  uint64_t seq = 0;
  uint64_t ran_seq = UINT64_MAX;
  int64_t now = 1000;
  for (int step = 0; step < 40'000; ++step) {
    int op = static_cast<int>(rng() % 16);
    if (op < 7) {
      int64_t due = now;
      if (op >= 3) due += static_cast<int64_t>(rng() % 40) - 5;
      TaskId id = q.Push(TimeTicks(TimeDelta(due)), [&ran_seq, s = seq] { ran_seq = s; });
      REQUIRE(id != kNoTask);
      REQUIRE(unique.insert(id).second);
      pending[{due, seq}] = id;
      by_id[id] = {due, seq};
      issued.push_back(id);
      ++seq;
    } else if (op < 10) {
      TaskId id = op == 9 ? rng() : issued.empty() ? kNoTask : issued[rng() % issued.size()];
      auto it = by_id.find(id);
      REQUIRE(q.Cancel(id) == (it != by_id.end()));
      if (it != by_id.end()) {
        pending.erase(it->second);
        by_id.erase(it);
      }
    } else if (op < 15) {
      std::function<void()> task;
      TimeTicks due{};
      bool expect = !pending.empty() && pending.begin()->first.first <= now;
      REQUIRE(q.PopDue(TimeTicks(TimeDelta(now)), &task, &due) == expect);
      if (expect) {
        task();
        REQUIRE(ran_seq == pending.begin()->first.second);
        REQUIRE(due == TimeTicks(TimeDelta(pending.begin()->first.first)));
        REQUIRE_FALSE(q.Cancel(pending.begin()->second));
        by_id.erase(pending.begin()->second);
        pending.erase(pending.begin());
      }
    } else {
      now += static_cast<int64_t>(rng() % 8);
    }
    REQUIRE(q.size() == pending.size());
    REQUIRE(q.empty() == pending.empty());
    TimeTicks next{};
    REQUIRE(q.NextDue(&next) == !pending.empty());
    if (!pending.empty()) REQUIRE(next == TimeTicks(TimeDelta(pending.begin()->first.first)));
    // Dead entries never exceed the live ones by much (the sweep's bound).
    REQUIRE(q.entries_for_testing() <= std::max<size_t>(64, 2 * q.size() + 1));
  }
}

TEST_CASE("task queue: a slot whose generations are used up is never reused") {
  TaskQueue q;
  q.set_retire_generation_for_testing(6);  // Each slot serves three tasks, then retires.
  std::set<TaskId> ids;
  std::vector<uint32_t> slots;
  for (int i = 0; i < 9; ++i) {
    TaskId id = q.Push(TimeTicks{}, [] {});
    REQUIRE(ids.insert(id).second);
    slots.push_back(static_cast<uint32_t>(id));  // The id's low 32 bits name its slot.
    std::function<void()> task;
    REQUIRE(q.PopDue(TimeTicks{}, &task));
    CHECK_FALSE(q.Cancel(id));
  }
  CHECK(slots == std::vector<uint32_t>{0, 0, 0, 1, 1, 1, 2, 2, 2});
}

TEST_CASE("task queue: restarted timers leave bounded garbage") {
  TaskQueue q;
  for (int i = 0; i < 10; ++i) q.Push(TimeTicks(TimeDelta(1)), [] {});
  TaskId timer = kNoTask;
  for (int i = 0; i < 100'000; ++i) {
    if (timer != kNoTask) REQUIRE(q.Cancel(timer));
    timer = q.Push(TimeTicks(std::chrono::seconds(30 + i)), [] {});
  }
  CHECK(q.size() == 11);
  CHECK(q.entries_for_testing() <= 64);

  // Cancelled far-off tasks are swept when the live ones run out, not only on Cancel.
  TaskQueue p;
  std::vector<TaskId> far;
  for (int i = 0; i < 200; ++i) p.Push(TimeTicks(TimeDelta(1)), [] {});
  p.Push(TimeTicks(std::chrono::minutes(30)), [] {});  // keeps the dead ones from surfacing
  for (int i = 0; i < 100; ++i) far.push_back(p.Push(TimeTicks(std::chrono::hours(1)), [] {}));
  for (TaskId id : far) REQUIRE(p.Cancel(id));
  CHECK(p.entries_for_testing() == 301);  // a third dead: not yet worth a sweep
  std::function<void()> task;
  while (p.PopDue(TimeTicks(TimeDelta(1)), &task)) {
  }
  CHECK(p.size() == 1);
  CHECK(p.entries_for_testing() <= 64);
}

TEST_CASE("scheduler: CancelTask destroys the function at once, popping after the task ran") {
  VirtualScheduler s;
  auto token = std::make_shared<int>(0);
  TaskId id = s.PostDelayedTask(1ms, [token] {});
  CHECK(token.use_count() == 2);
  CHECK(s.CancelTask(id));
  CHECK(token.use_count() == 1);
  s.PostTask([token] {});
  s.RunUntilIdle();
  CHECK(token.use_count() == 1);  // Released as soon as it ran.
  CHECK(s.pending_tasks() == 0);
}

// A function whose destructor posts and cancels tasks: the queue must be consistent while it is
// destroyed, even if the slot storage grows under it.
struct PostsOnDestruction {
  VirtualScheduler* s;
  std::shared_ptr<int> posted;
  PostsOnDestruction(VirtualScheduler* s, std::shared_ptr<int> posted) : s(s), posted(posted) {}
  PostsOnDestruction(const PostsOnDestruction&) = default;
  ~PostsOnDestruction() {
    if (!s || posted.use_count() != 2) return;  // Only the copy held by the scheduler posts.
    for (int i = 0; i < 100; ++i) s->CancelTask(s->PostTask([p = posted] { ++*p; }));
    s->PostTask([p = posted] { ++*p; });
  }
  void operator()() const {}
};

TEST_CASE("scheduler: a cancelled function's destructor may post and cancel tasks") {
  VirtualScheduler s;
  auto posted = std::make_shared<int>(0);
  TaskId id = s.PostDelayedTask(5ms, std::function<void()>(PostsOnDestruction(&s, posted)));
  CHECK(s.CancelTask(id));
  CHECK(s.pending_tasks() == 1);
  s.RunAll();
  CHECK(*posted == 1);
}

TEST_CASE("scheduler: a running task cannot cancel itself, its id stays dead") {
  VirtualScheduler s;
  TaskId self = kNoTask;
  bool cancelled = true;
  self = s.PostTask([&] { cancelled = s.CancelTask(self); });
  s.RunUntilIdle();
  CHECK_FALSE(cancelled);
  CHECK_FALSE(s.CancelTask(self));
  TaskId next = s.PostTask([] {});
  CHECK(next != self);  // The slot is reused, the id is not.
}

TEST_CASE("virtual scheduler: AdvanceBy runs chains posted inside the window at their times") {
  VirtualScheduler s;
  std::vector<int64_t> at;
  std::function<void()> tick = [&] {
    at.push_back(s.Now().time_since_epoch().count());
    s.PostTask([&] { at.push_back(-s.Now().time_since_epoch().count()); });
    if (at.size() < 10) s.PostDelayedTask(3ms, tick);
  };
  s.PostDelayedTask(1ms, tick);
  CHECK(s.AdvanceBy(8ms) == 6);  // ticks at 1, 4, 7 ms, each followed by its immediate task
  CHECK(at == std::vector<int64_t>{1000, -1000, 4000, -4000, 7000, -7000});
  CHECK(s.Now() == TimeTicks(8ms));
  TimeTicks next{};
  REQUIRE(s.NextTaskTime(&next));
  CHECK(next == TimeTicks(10ms));
}

TEST_CASE("virtual scheduler: a task posted for now runs after earlier tasks due now") {
  VirtualScheduler s;
  std::string order;
  s.PostDelayedTask(10ms, [&] {
    order += "a";
    s.PostTask([&] { order += "c"; });  // due 10 ms, posted after b
  });
  s.PostDelayedTask(10ms, [&] { order += "b"; });
  s.PostDelayedTask(20ms, [&] { order += "d"; });
  s.RunAll();
  CHECK(order == "abcd");
}

TEST_CASE("one-shot timer: restart from its own callback, destruction from its callback") {
  VirtualScheduler s;
  OneShotTimer t(s);
  int fired = 0;
  std::function<void()> again = [&] {
    if (++fired < 3) t.Start(2ms, again);
  };
  t.Start(2ms, again);
  s.RunAll();
  CHECK(fired == 3);
  CHECK(s.Now() == TimeTicks(6ms));
  CHECK_FALSE(t.IsRunning());

  auto owned = std::make_unique<OneShotTimer>(s);
  auto token = std::make_shared<int>(0);
  owned->Start(1ms, [&owned, token] { owned.reset(); });
  CHECK(token.use_count() == 2);
  s.RunAll();
  CHECK(owned == nullptr);
  CHECK(token.use_count() == 1);

  OneShotTimer stopped(s);
  stopped.Start(1ms, [token] {});
  CHECK(token.use_count() == 2);
  stopped.Stop();
  CHECK(token.use_count() == 1);  // Stop destroys the task at once.
  CHECK(s.pending_tasks() == 0);
}
