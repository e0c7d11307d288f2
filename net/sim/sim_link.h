// SimLink: one direction of the client's access link (downlink or uplink), shared by the
// connections that have bytes on it at the moment. Fair (the default): processor sharing, so n
// busy flows are each served at rate / n. FIFO: one queue, drop-tail style without drops: chunks
// are served whole, one at a time at the full rate, in the order they entered, so what enters
// waits behind every byte already queued (Backlog says how long). Flows hand it one chunk of bytes
// at a time (SimFlow keeps the rest in order); the link tells a flow when its chunk has been
// served. An unlimited link (rate 0) serves instantly and is never asked (SimFlow::limited()
// short-cuts it).
//
// One timer for the whole link: the next completion. Work is counted in micro-bits
// (a link of R bit/s serves R micro-bits per microsecond), so completion times are exact whole
// microseconds whenever the sizes and rates allow it. Internal to net/sim.
#ifndef NET_SIM_SIM_LINK_H_
#define NET_SIM_SIM_LINK_H_

#include <cstdint>
#include <vector>

#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/sim/network_params.h"

namespace netstack {

class SimLink {
 public:
  // What the link serves. OnLinkServed runs from the link's timer (never inside Activate or
  // Remove); it may call Activate and Remove on this link, for itself or other clients, and may
  // destroy other clients (which Remove themselves first).
  class Client {
   public:
    virtual ~Client() = default;
    virtual void OnLinkServed() = 0;
  };

  // `bits_per_second` 0 means unlimited. `scheduler` must outlive the link.
  SimLink(Scheduler& scheduler, int64_t bits_per_second, LinkQueue queue = LinkQueue::kFair);
  ~SimLink();
  SimLink(const SimLink&) = delete;
  SimLink& operator=(const SimLink&) = delete;

  bool limited() const { return bits_per_second_ > 0; }
  int64_t bits_per_second() const { return bits_per_second_; }

  // `client` (not already active) has `bytes` (> 0) to send from now; OnLinkServed runs when
  // the last of them has crossed the link.
  void Activate(Client* client, int64_t bytes);
  // Forgets `client` (no callback will run for it). No-op if it is not active.
  void Remove(Client* client);

  // Clients being served now.
  size_t active() const { return active_.size(); }
  LinkQueue queue() const { return queue_; }
  // How long the link needs from now to serve everything it holds (zero when idle or
  // unlimited): in a FIFO link, the wait of a packet entering now.
  TimeDelta Backlog() const;

 private:
  struct Active {
    Client* client;
    int64_t remaining;  // micro-bits
    uint64_t seq;       // activation order: ties complete in this order
  };

  // Serves every active client its share of the time since the last update.
  void Advance(TimeTicks now);
  // Points the timer at the next completion.
  void Reschedule();
  void OnTimer();
  // Index of the client that completes first, or -1.
  int NextToComplete() const;

  Scheduler& scheduler_;
  const int64_t bits_per_second_;
  const LinkQueue queue_;
  std::vector<Active> active_;  // in activation order
  uint64_t next_seq_ = 0;
  TimeTicks updated_{};
  OneShotTimer timer_;  // the next completion
  bool in_timer_ = false;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_LINK_H_
