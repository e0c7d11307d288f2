#include "net/sim/sim_link.h"

#include <algorithm>

namespace netstack {

namespace {

constexpr int64_t kMicroBitsPerByte = 8'000'000;
// Leftovers of integer division (under a thousandth of a bit) count as served.
constexpr int64_t kServedEpsilon = 1000;

}  // namespace

SimLink::SimLink(Scheduler& scheduler, int64_t bits_per_second, LinkQueue queue)
    : scheduler_(scheduler), bits_per_second_(bits_per_second), queue_(queue), timer_(scheduler) {}

SimLink::~SimLink() = default;

void SimLink::Activate(Client* client, int64_t bytes) {
  Advance(scheduler_.Now());
  active_.push_back(Active{client, bytes * kMicroBitsPerByte, next_seq_++});
  Reschedule();
}

void SimLink::Remove(Client* client) {
  auto it = std::find_if(active_.begin(), active_.end(),
                         [client](const Active& a) { return a.client == client; });
  if (it == active_.end()) return;
  Advance(scheduler_.Now());
  active_.erase(it);
  Reschedule();
}

void SimLink::Advance(TimeTicks now) {
  const int64_t dt = (now - updated_).count();
  updated_ = now;
  if (active_.empty() || dt <= 0) return;
  if (queue_ == LinkQueue::kFifo) {  // the oldest first, at the full rate
    __int128 budget = static_cast<__int128>(bits_per_second_) * dt;
    for (Active& a : active_) {
      if (budget <= 0) break;
      const int64_t take = budget >= a.remaining ? a.remaining : static_cast<int64_t>(budget);
      a.remaining -= take;
      budget -= take;
    }
    return;
  }
  const __int128 served =
      static_cast<__int128>(bits_per_second_) * dt / static_cast<__int128>(active_.size());
  for (Active& a : active_) {
    a.remaining = served >= a.remaining ? 0 : a.remaining - static_cast<int64_t>(served);
  }
}

TimeDelta SimLink::Backlog() const {
  if (bits_per_second_ <= 0 || active_.empty()) return TimeDelta::zero();
  __int128 work = 0;
  for (const Active& a : active_) work += a.remaining;
  work -= static_cast<__int128>(bits_per_second_) * (scheduler_.Now() - updated_).count();
  if (work <= kServedEpsilon) return TimeDelta::zero();
  return TimeDelta(static_cast<int64_t>((work + bits_per_second_ - 1) / bits_per_second_));
}

int SimLink::NextToComplete() const {
  if (queue_ == LinkQueue::kFifo) return active_.empty() ? -1 : 0;
  int best = -1;
  for (size_t i = 0; i < active_.size(); ++i) {
    if (best < 0 || active_[i].remaining < active_[best].remaining ||
        (active_[i].remaining == active_[best].remaining && active_[i].seq < active_[best].seq)) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

void SimLink::Reschedule() {
  if (in_timer_) return;  // OnTimer reschedules once at its end.
  int next = NextToComplete();
  if (next < 0) {
    timer_.Stop();
    return;
  }
  // Time for the first to finish at rate / n, rounded up to a whole microsecond.
  const __int128 work = static_cast<__int128>(std::max<int64_t>(active_[next].remaining, 0)) *
                        static_cast<__int128>(queue_ == LinkQueue::kFifo ? 1 : active_.size());
  const int64_t dt = static_cast<int64_t>((work + bits_per_second_ - 1) / bits_per_second_);
  // A timer due no later stays: if it fires early it finds nothing served and reschedules.
  // (Each flow joining pushes the next completion later; restarting the timer for each would
  // cost more than one early wake-up.)
  if (timer_.IsRunning() && timer_.desired_run_time() <= scheduler_.Now() + TimeDelta(dt)) return;
  timer_.Start(TimeDelta(dt), [this] { OnTimer(); });
}

void SimLink::OnTimer() {
  in_timer_ = true;
  Advance(scheduler_.Now());
  // One at a time, re-scanning after each: a client's callback may add or remove clients.
  while (true) {
    int next = NextToComplete();
    if (next < 0 || active_[next].remaining > kServedEpsilon) break;
    Client* client = active_[next].client;
    active_.erase(active_.begin() + next);
    client->OnLinkServed();
  }
  in_timer_ = false;
  Reschedule();
}

}  // namespace netstack
