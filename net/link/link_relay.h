// LinkRelay: the lab's emulated link on a libuv loop. It carries IP packets between two packet
// devices (the client side's and the server side's TUN file descriptors) as an access link
// would: each direction has a drop-tail queue with a bound, serializes every packet at its rate
// (or at the opportunities of a recorded packet-delivery trace, as mahimahi's mm-link), adds a
// one-way propagation delay, and may drop packets at random (seeded). The link model itself
// (link_direction.h) does no I/O and runs on virtual time in the tests; this class reads the
// devices, stamps packets with the monotonic clock at microsecond resolution (a timerfd, since
// libuv's timers have millisecond resolution), and writes them out when the model delivers them.
#ifndef NET_LINK_LINK_RELAY_H_
#define NET_LINK_LINK_RELAY_H_

#include <uv.h>

#include <functional>
#include <memory>

#include "net/link/link_params.h"  // LinkParams, LinkDirectionStats (moved there from here)

namespace netstack {

class LinkRelay {
 public:
  // `client_fd` and `server_fd` are non-blocking packet file descriptors: one read gives one IP
  // packet and one write sends one (TUN devices opened with IFF_TUN | IFF_NO_PI; SOCK_SEQPACKET
  // or SOCK_DGRAM socketpairs in tests). They are not owned: the caller closes them after the
  // relay's Close callback has run. `loop` must outlive the relay.
  LinkRelay(uv_loop_t* loop, int client_fd, int server_fd, LinkParams params);
  ~LinkRelay();  // only after Close's callback (or if Start was never called)
  LinkRelay(const LinkRelay&) = delete;
  LinkRelay& operator=(const LinkRelay&) = delete;

  // Starts relaying. Returns 0, or a negative errno (a uv_poll or timerfd failure; UV_EINVAL when
  // the params fail ValidateLinkParams, link_params.h; UV_EALREADY when called again) with
  // nothing started: handles it had opened close on the loop's next turn, on their own.
  int Start();
  // Stops reading, drops what is still queued or in flight (counted nowhere: the link is gone)
  // and closes the relay's handles; `on_closed` runs on the loop once every handle is closed.
  void Close(std::function<void()> on_closed);

  const LinkDirectionStats& up_stats() const;
  const LinkDirectionStats& down_stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace netstack

#endif  // NET_LINK_LINK_RELAY_H_
