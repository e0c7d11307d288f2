// SimLink alone on virtual time: processor sharing (fair) and one FIFO queue (link_queue=fifo),
// and the backlog a packet entering now waits behind.
#include "net/sim/sim_link.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "net/base/virtual_scheduler.h"

namespace netstack {
namespace {

constexpr TimeTicks kStart = TimeTicks(TimeDelta(1'000'000));

class Recorder : public SimLink::Client {
 public:
  Recorder(VirtualScheduler& scheduler, std::string name, std::map<std::string, TimeTicks>* done)
      : scheduler_(scheduler), name_(std::move(name)), done_(done) {}
  void OnLinkServed() override { (*done_)[name_] = scheduler_.Now(); }

 private:
  VirtualScheduler& scheduler_;
  std::string name_;
  std::map<std::string, TimeTicks>* done_;
};

// Two chunks of 1000 bytes entering a 1 Mbit/s link together (8 ms each alone).
std::map<std::string, TimeTicks> TwoChunks(LinkQueue queue, TimeDelta* backlog_at_4ms) {
  VirtualScheduler scheduler(kStart);
  SimLink link(scheduler, 1'000'000, queue);
  std::map<std::string, TimeTicks> done;
  Recorder a(scheduler, "a", &done), b(scheduler, "b", &done);
  CHECK(link.Backlog() == TimeDelta::zero());
  link.Activate(&a, 1000);
  link.Activate(&b, 1000);
  CHECK(link.Backlog() == Milliseconds(16));
  scheduler.AdvanceBy(Milliseconds(4));
  *backlog_at_4ms = link.Backlog();
  scheduler.AdvanceBy(Milliseconds(100));
  CHECK(link.active() == 0);
  CHECK(link.Backlog() == TimeDelta::zero());
  return done;
}

TEST_CASE("sim link: fair shares the rate, FIFO serves in order at the full rate", "[sim][link]") {
  TimeDelta backlog;
  std::map<std::string, TimeTicks> fair = TwoChunks(LinkQueue::kFair, &backlog);
  CHECK(fair["a"] == kStart + Milliseconds(16));
  CHECK(fair["b"] == kStart + Milliseconds(16));
  CHECK(backlog == Milliseconds(12));
  std::map<std::string, TimeTicks> fifo = TwoChunks(LinkQueue::kFifo, &backlog);
  CHECK(fifo["a"] == kStart + Milliseconds(8));
  CHECK(fifo["b"] == kStart + Milliseconds(16));
  CHECK(backlog == Milliseconds(12));  // the same work either way
}

TEST_CASE("sim link: in a FIFO link a late small chunk waits behind the queue", "[sim][link]") {
  VirtualScheduler scheduler(kStart);
  SimLink link(scheduler, 1'000'000, LinkQueue::kFifo);
  std::map<std::string, TimeTicks> done;
  Recorder big(scheduler, "big", &done), small(scheduler, "small", &done);
  link.Activate(&big, 10'000);  // 80 ms
  scheduler.AdvanceBy(Milliseconds(20));
  CHECK(link.Backlog() == Milliseconds(60));
  link.Activate(&small, 100);  // 0.8 ms, after the 60 left
  scheduler.AdvanceBy(Milliseconds(100));
  CHECK(done["big"] == kStart + Milliseconds(80));
  CHECK(done["small"] == kStart + Milliseconds(80) + TimeDelta(800));
}

TEST_CASE("sim link: removing the chunk in service lets the next one start", "[sim][link]") {
  VirtualScheduler scheduler(kStart);
  SimLink link(scheduler, 1'000'000, LinkQueue::kFifo);
  std::map<std::string, TimeTicks> done;
  Recorder a(scheduler, "a", &done), b(scheduler, "b", &done);
  link.Activate(&a, 1000);
  link.Activate(&b, 1000);
  scheduler.AdvanceBy(Milliseconds(4));
  link.Remove(&a);
  scheduler.AdvanceBy(Milliseconds(100));
  CHECK(done.count("a") == 0);
  CHECK(done["b"] == kStart + Milliseconds(12));
}

}  // namespace
}  // namespace netstack
