#include "net/link/link_relay.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "net/link/link_direction.h"

namespace netstack {

namespace {

// Reads per readable event and device, and the largest packet read (a TUN device's MTU is at
// most 65535): one busy device cannot starve the loop, and no read is unbounded.
constexpr int kMaxReadsPerEvent = 64;
constexpr size_t kMaxPacketBytes = 65536;

// The monotonic clock in µs: the clock the timerfd is armed on.
TimeTicks MonotonicNow() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return TimeTicks(TimeDelta(int64_t{ts.tv_sec} * 1'000'000 + ts.tv_nsec / 1000));
}

// Seeds of the two directions' loss generators, derived from the link's seed (splitmix64's
// finalizer, so that seeds 1 and 2 do not give overlapping streams).
uint64_t DirectionSeed(uint64_t seed, uint64_t direction) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (direction + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

struct LinkRelay::Impl {
  // One direction: read from `from`, model, write to `to`.
  struct Side {
    int from = -1;
    int to = -1;
    bool to_is_socket = false;
    uv_poll_t* poll = nullptr;  // watches `from`; freed in its close callback
    bool reading = false;
    std::optional<LinkDirection> model;
    LinkDirectionStats stats;  // the model's, with the writes' outcome
  };

  uv_loop_t* loop;
  LinkParams params;
  Side up, down;
  int timer_fd = -1;
  uv_poll_t* timer_poll = nullptr;  // watches timer_fd; freed in its close callback
  bool started = false, closing = false;
  int open_handles = 0;
  std::function<void()> on_closed;
  std::vector<LinkPacket> due;        // reused by Pump
  std::vector<uint8_t> read_buffer;   // kMaxPacketBytes
  std::optional<TimeTicks> armed_at;  // the timerfd's expiry, if armed

  Impl(uv_loop_t* l, int client_fd, int server_fd, LinkParams p) : loop(l), params(std::move(p)) {
    up.from = down.to = client_fd;
    up.to = down.from = server_fd;
  }

  static void OnReadable(uv_poll_t* handle, int status, int events);
  static void OnTimer(uv_poll_t* handle, int status, int events);
  static void OnHandleClosed(uv_handle_t* handle);

  void ReadSide(Side* side);
  void StopReading(Side* side);
  // Delivers what is due on both directions, writes it, and arms the timerfd for the next.
  void Pump();
  void Write(Side* side, const LinkPacket& packet);
  void Arm(std::optional<TimeTicks> at);
  void SyncStats(Side* side);
};

LinkRelay::LinkRelay(uv_loop_t* loop, int client_fd, int server_fd, LinkParams params)
    : impl_(std::make_unique<Impl>(loop, client_fd, server_fd, std::move(params))) {}

LinkRelay::~LinkRelay() = default;

int LinkRelay::Start() {
  Impl& impl = *impl_;
  if (impl.started) return UV_EALREADY;
  std::string error;
  if (!ValidateLinkParams(impl.params, &error)) return UV_EINVAL;
  int timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer_fd < 0) return -errno;
  auto up_poll = std::make_unique<uv_poll_t>();
  auto down_poll = std::make_unique<uv_poll_t>();
  auto timer_poll = std::make_unique<uv_poll_t>();
  int rc = uv_poll_init(impl.loop, up_poll.get(), impl.up.from);
  if (rc < 0) {
    close(timer_fd);
    return rc;
  }
  // From here on a failure must close the handles initialised so far (their memory then goes
  // in the close callback).
  auto fail = [&](int code, std::initializer_list<uv_poll_t*> initialised) {
    for (uv_poll_t* handle : initialised) {
      uv_close(reinterpret_cast<uv_handle_t*>(handle),
               [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
    }
    close(timer_fd);
    return code;
  };
  rc = uv_poll_init(impl.loop, down_poll.get(), impl.down.from);
  if (rc < 0) return fail(rc, {up_poll.release()});
  rc = uv_poll_init(impl.loop, timer_poll.get(), timer_fd);
  if (rc < 0) return fail(rc, {up_poll.release(), down_poll.release()});
  for (uv_poll_t* handle : {up_poll.get(), down_poll.get(), timer_poll.get()}) {
    handle->data = &impl;
  }
  rc = uv_poll_start(up_poll.get(), UV_READABLE, &Impl::OnReadable);
  if (rc == 0) rc = uv_poll_start(down_poll.get(), UV_READABLE, &Impl::OnReadable);
  if (rc == 0) rc = uv_poll_start(timer_poll.get(), UV_READABLE, &Impl::OnTimer);
  if (rc < 0) return fail(rc, {up_poll.release(), down_poll.release(), timer_poll.release()});

  impl.timer_fd = timer_fd;
  impl.up.poll = up_poll.release();
  impl.down.poll = down_poll.release();
  impl.timer_poll = timer_poll.release();
  impl.open_handles = 3;
  impl.up.reading = impl.down.reading = true;
  for (Impl::Side* side : {&impl.up, &impl.down}) {
    struct stat st;
    side->to_is_socket = fstat(side->to, &st) == 0 && S_ISSOCK(st.st_mode);
  }
  const TimeTicks now = MonotonicNow();
  impl.up.model.emplace(impl.params.up, LinkDirection::AddressField::kDestination, now,
                        DirectionSeed(impl.params.seed, 0));
  impl.down.model.emplace(impl.params.down, LinkDirection::AddressField::kSource, now,
                          DirectionSeed(impl.params.seed, 1));
  impl.read_buffer.resize(kMaxPacketBytes);
  impl.started = true;
  return 0;
}

void LinkRelay::Close(std::function<void()> on_closed) {
  Impl& impl = *impl_;
  if (impl.closing) return;
  impl.closing = true;
  impl.on_closed = std::move(on_closed);
  for (Impl::Side* side : {&impl.up, &impl.down}) {
    if (side->model) side->model->Clear();
  }
  if (!impl.started) {
    // Nothing to close: still report on the loop, never from inside Close.
    auto* idle = new uv_idle_t;
    uv_idle_init(impl.loop, idle);
    idle->data = &impl;
    impl.open_handles = 1;
    uv_idle_start(idle, [](uv_idle_t* handle) {
      uv_idle_stop(handle);
      uv_close(reinterpret_cast<uv_handle_t*>(handle), [](uv_handle_t* h) {
        Impl* impl = static_cast<Impl*>(h->data);
        delete reinterpret_cast<uv_idle_t*>(h);
        if (--impl->open_handles == 0 && impl->on_closed) impl->on_closed();
      });
    });
    return;
  }
  for (uv_poll_t* handle : {impl.up.poll, impl.down.poll, impl.timer_poll}) {
    uv_close(reinterpret_cast<uv_handle_t*>(handle), &Impl::OnHandleClosed);
  }
}

const LinkDirectionStats& LinkRelay::up_stats() const { return impl_->up.stats; }
const LinkDirectionStats& LinkRelay::down_stats() const { return impl_->down.stats; }

void LinkRelay::Impl::OnHandleClosed(uv_handle_t* handle) {
  Impl* impl = static_cast<Impl*>(handle->data);
  if (reinterpret_cast<uv_poll_t*>(handle) == impl->timer_poll) {
    close(impl->timer_fd);
    impl->timer_fd = -1;
    impl->timer_poll = nullptr;
  } else if (reinterpret_cast<uv_poll_t*>(handle) == impl->up.poll) {
    impl->up.poll = nullptr;
  } else {
    impl->down.poll = nullptr;
  }
  delete reinterpret_cast<uv_poll_t*>(handle);
  // The callback runs last: it may destroy the relay.
  if (--impl->open_handles == 0 && impl->on_closed) impl->on_closed();
}

void LinkRelay::Impl::OnReadable(uv_poll_t* handle, int status, int events) {
  Impl* impl = static_cast<Impl*>(handle->data);
  if (impl->closing) return;
  Side* side = handle == impl->up.poll ? &impl->up : &impl->down;
  if (status < 0) {
    impl->StopReading(side);  // the device failed (e.g. EBADF): nothing more will come
    return;
  }
  (void)events;
  impl->ReadSide(side);
  impl->Pump();
}

void LinkRelay::Impl::OnTimer(uv_poll_t* handle, int status, int events) {
  Impl* impl = static_cast<Impl*>(handle->data);
  (void)status;
  (void)events;
  if (impl->closing) return;
  uint64_t expirations;
  // Clears the readable state; EAGAIN (a spurious wakeup) is harmless.
  ssize_t n = read(impl->timer_fd, &expirations, sizeof(expirations));
  (void)n;
  impl->armed_at.reset();
  impl->Pump();
}

void LinkRelay::Impl::ReadSide(Side* side) {
  for (int i = 0; i < kMaxReadsPerEvent && side->reading; ++i) {
    ssize_t n = read(side->from, read_buffer.data(), read_buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      StopReading(side);  // a hard error: the device is gone
      return;
    }
    if (n == 0) {
      // End of file (a socket whose peer closed; a TUN device never reads empty): stop, or the
      // level-triggered poll would wake the loop forever.
      StopReading(side);
      return;
    }
    side->model->Offer(MonotonicNow(), LinkPacket(read_buffer.begin(), read_buffer.begin() + n));
  }
}

void LinkRelay::Impl::StopReading(Side* side) {
  if (!side->reading) return;
  side->reading = false;
  uv_poll_stop(side->poll);
}

void LinkRelay::Impl::Pump() {
  const TimeTicks now = MonotonicNow();
  for (Side* side : {&up, &down}) {
    due.clear();
    side->model->DeliverDue(now, &due);
    for (const LinkPacket& packet : due) Write(side, packet);
    SyncStats(side);
  }
  due.clear();
  std::optional<TimeTicks> next = up.model->NextDeliveryTime();
  std::optional<TimeTicks> next_down = down.model->NextDeliveryTime();
  if (!next || (next_down && *next_down < *next)) next = next_down;
  Arm(next);
}

void LinkRelay::Impl::Write(Side* side, const LinkPacket& packet) {
  // Never blocks: a device that cannot take the packet now (EAGAIN, ENOBUFS) or at all drops
  // it, as a full transmit queue would. A socket is written with MSG_NOSIGNAL so a closed peer
  // gives EPIPE, not SIGPIPE.
  ssize_t n;
  do {
    n = side->to_is_socket
            ? send(side->to, packet.data(), packet.size(), MSG_NOSIGNAL | MSG_DONTWAIT)
            : write(side->to, packet.data(), packet.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    ++side->stats.write_drops;
    return;
  }
  ++side->stats.packets_out;
  side->stats.bytes_out += packet.size();
}

void LinkRelay::Impl::SyncStats(Side* side) {
  const LinkDirectionStats& model = side->model->stats();
  side->stats.packets_in = model.packets_in;
  side->stats.bytes_in = model.bytes_in;
  side->stats.queue_drops = model.queue_drops;
  side->stats.loss_drops = model.loss_drops;
  side->stats.max_queue_packets = model.max_queue_packets;
  side->stats.max_queue_bytes = model.max_queue_bytes;
}

void LinkRelay::Impl::Arm(std::optional<TimeTicks> at) {
  if (at == armed_at) return;
  itimerspec spec{};  // all zero: disarm
  if (at) {
    // An absolute expiry on CLOCK_MONOTONIC, at µs resolution. A time already past fires at
    // once; zero would disarm, so the earliest expiry is 1 ns.
    const int64_t us = std::max<int64_t>(at->time_since_epoch().count(), 0);
    spec.it_value.tv_sec = us / 1'000'000;
    spec.it_value.tv_nsec = (us % 1'000'000) * 1000;
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  }
  if (timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &spec, nullptr) == 0) armed_at = at;
}

}  // namespace netstack
