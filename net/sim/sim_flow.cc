#include "net/sim/sim_flow.h"

#include <algorithm>

#include "net/sim/sim_world.h"

namespace netstack {

namespace {

// The largest window: Linux's default ceiling for receive-buffer autotuning (tcp_rmem max,
// 6 MiB), which bounds what a browser's peer may have in flight.
constexpr int64_t kReceiveWindowBytes = 6 * 1024 * 1024;

// Slow start stops growing the window at the receive window, and on a limited link at twice
// the bandwidth-delay product: beyond the BDP a larger window only queues on the link (a
// loss-based TCP settles around there), and the link rate is reached anyway.
int64_t MaxCwnd(const SimLink& link, TimeDelta rtt, int64_t mss, int64_t init) {
  int64_t cap = kReceiveWindowBytes / mss;
  if (link.limited()) {
    const __int128 bdp_bytes =
        static_cast<__int128>(link.bits_per_second()) * rtt.count() / 8'000'000;
    cap = std::min<int64_t>(cap, static_cast<int64_t>((2 * bdp_bytes + mss - 1) / mss));
  }
  return std::max(cap, init);
}

}  // namespace

SimFlow::SimFlow(SimWorld& world, Direction direction, TimeDelta rtt, Receiver* receiver)
    : world_(world),
      link_(direction == Direction::kDown ? world.downlink : world.uplink),
      direction_(direction),
      rtt_(rtt),
      // The two one-way delays add up to the RTT exactly, odd microseconds included.
      prop_before_(direction == Direction::kDown ? rtt - rtt / 2 : TimeDelta::zero()),
      prop_after_(direction == Direction::kUp ? rtt / 2 : TimeDelta::zero()),
      receiver_(receiver),
      mss_(world.params.mss),
      init_cwnd_(world.params.initial_cwnd_segments),
      max_cwnd_(MaxCwnd(link_, rtt, mss_, init_cwnd_)),
      cwnd_(init_cwnd_),
      entry_timer_(world.scheduler),
      delivery_timer_(world.scheduler) {}

SimFlow::~SimFlow() { Abort(); }

void SimFlow::Send(TimeTicks depart, int64_t bytes, int64_t mark) {
  if (aborted_ || fin_queued_ || bytes <= 0) return;
  if (mark > 0) marks_.push_back(mark);
  queued_ += bytes;
  // A byte stream: bytes never become ready before the ones sent earlier.
  TimeTicks ready = depart + prop_before_;
  if (has_next_piece_) ready = std::max(ready, LastPiece().ready);
  if (has_next_piece_ && LastPiece().ready == ready) {
    LastPiece().end = queued_;
  } else {
    PushPiece(Piece{ready, queued_});
  }
  MaybeScheduleRound(/*allow_inline=*/true);
}

void SimFlow::PushPiece(Piece piece) {
  if (!has_next_piece_) {
    next_piece_ = piece;
    has_next_piece_ = true;
  } else {
    later_pieces_.push_back(piece);
  }
}

void SimFlow::PopPiece() {
  if (later_pieces_.empty()) {
    has_next_piece_ = false;
    return;
  }
  next_piece_ = later_pieces_.front();
  later_pieces_.pop_front();
}

void SimFlow::Close(TimeTicks depart) {
  if (aborted_ || fin_queued_) return;
  fin_queued_ = true;
  fin_ready_ = depart + prop_before_;
  if (has_next_piece_) fin_ready_ = std::max(fin_ready_, LastPiece().ready);
  MaybeScheduleRound(/*allow_inline=*/false);
}

void SimFlow::Abort() {
  aborted_ = true;
  entry_timer_.Stop();
  delivery_timer_.Stop();
  if (in_service_) link_.Remove(this);
  in_service_ = false;
  link_queue_.clear();
  deliveries_.clear();
  marks_.clear();
  has_next_piece_ = false;
  later_pieces_.clear();
  news_ = false;
}

void SimFlow::MaybeScheduleRound(bool allow_inline) {
  if (round_pending_ || aborted_) return;
  TimeTicks earliest;
  if (sent_ < ready_end_) {
    earliest = world_.scheduler.Now();
  } else if (has_next_piece_) {
    earliest = next_piece_.ready;
  } else if (fin_queued_ && !fin_sent_) {
    earliest = fin_ready_;
  } else {
    return;  // nothing to send
  }
  round_pending_ = true;
  // Bytes ready before the last round's ACKs are back go at once while its window has room;
  // the rest waits for the ACK clock.
  TimeTicks at = earliest;
  if (!(has_sent_ && at < ack_clock_ && RoundRoom() > 0)) at = std::max(at, ack_clock_);
  const TimeTicks now = world_.scheduler.Now();
  // The client's own bytes may enter the uplink inside the Write that gave them: nothing is
  // delivered there (deliveries to the server always go through a task), so no callback runs.
  if (allow_inline && direction_ == Direction::kUp && at <= now) {
    OnEntry();
    return;
  }
  entry_timer_.Start(at - now, [this] { OnEntry(); });
}

void SimFlow::OnEntry() {
  const TimeTicks now = world_.scheduler.Now();
  const TimeTicks ready = world_.radio.Acquire(now);
  if (ready > now) {  // The radio was idle: the round waits for the promotion.
    entry_timer_.Start(ready - now, [this] { OnEntry(); });
    return;
  }
  while (has_next_piece_ && next_piece_.ready <= now) {
    ready_end_ = next_piece_.end;
    PopPiece();
  }
  // Before the last round's ACKs are back, bytes join that round as far as its window has
  // room; after, a new round starts (and the ACK clock with it).
  const bool top_up = has_sent_ && now < ack_clock_;
  const TimeDelta idle_restart = world_.params.idle_restart;
  if (!top_up && has_sent_ && idle_restart > TimeDelta::zero() &&
      now - ack_clock_ >= idle_restart) {
    cwnd_ = std::min(cwnd_, init_cwnd_);
  }
  const int64_t start = sent_;
  const int64_t room = top_up ? std::max<int64_t>(RoundRoom(), 0) : cwnd_ * mss_;
  const int64_t bytes = std::min(ready_end_ - sent_, room);
  const bool fin = fin_queued_ && !fin_sent_ && sent_ + bytes == queued_ && fin_ready_ <= now;
  if (bytes <= 0 && !fin) {  // nothing ready, or no room: wait
    round_pending_ = false;
    MaybeScheduleRound(/*allow_inline=*/false);
    return;
  }
  sent_ += bytes;
  if (!top_up) {
    round_cwnd_ = cwnd_;
    round_bytes_ = 0;
  }
  round_bytes_ += bytes;
  cwnd_ = std::min(max_cwnd_, round_cwnd_ + (round_bytes_ + mss_ - 1) / mss_);
  has_sent_ = true;
  if (fin) fin_sent_ = true;

  // On a limited link a round is served over time: a mark inside it ends a chunk there, so the
  // bytes before it become readable first. An unlimited link delivers the round at once.
  bool first = !top_up;
  while (!marks_.empty() && marks_.front() <= sent_) {
    const int64_t mark = marks_.front();
    marks_.pop_front();
    if (link_.limited() && mark > start && mark < sent_) {
      link_queue_.push_back(Chunk{mark, first, false});
      first = false;
    }
  }
  link_queue_.push_back(Chunk{sent_, first, fin});
  if (top_up) round_pending_ = false;  // (a round's start clears it in Pump)
  Pump();
  if (top_up) MaybeScheduleRound(/*allow_inline=*/false);
  NotifyIfDelivered();
}

void SimFlow::Pump() {
  while (!in_service_ && !link_queue_.empty()) {
    if (link_queue_.front().round_start) {
      link_queue_.front().round_start = false;
      // The round starts crossing the link: its first ACK is back at the sender, and the next
      // round here, one RTT from now.
      ack_clock_ = world_.scheduler.Now() + rtt_;
      round_pending_ = false;
      MaybeScheduleRound(/*allow_inline=*/false);
    }
    const int64_t bytes = link_queue_.front().end - served_;
    if (bytes > 0 && link_.limited()) {
      in_service_ = true;
      link_.Activate(this, bytes);
      return;
    }
    CompleteFront();
  }
}

void SimFlow::CompleteFront() {
  const Chunk chunk = link_queue_.front();
  link_queue_.pop_front();
  served_ = chunk.end;
  const TimeTicks now = world_.scheduler.Now();
  world_.radio.Touch(now);
  if (direction_ == Direction::kDown) {  // The link is the last hop: readable now.
    Deliver(chunk.end, chunk.fin);
    return;
  }
  if (!deliveries_.empty() && deliveries_.back().at == now + prop_after_) {
    deliveries_.back().end = chunk.end;  // the same arrival (a round topped up)
    deliveries_.back().fin = deliveries_.back().fin || chunk.fin;
  } else {
    deliveries_.push_back(Delivery{now + prop_after_, chunk.end, chunk.fin});
  }
  if (!delivery_timer_.IsRunning()) {
    delivery_timer_.Start(prop_after_, [this] { OnDeliveryTask(); });
  }
}

void SimFlow::OnLinkServed() {
  in_service_ = false;
  CompleteFront();
  Pump();
  NotifyIfDelivered();
}

void SimFlow::OnDeliveryTask() {
  const TimeTicks now = world_.scheduler.Now();
  while (!deliveries_.empty() && deliveries_.front().at <= now) {
    Deliver(deliveries_.front().end, deliveries_.front().fin);
    deliveries_.pop_front();
  }
  if (!deliveries_.empty()) {
    delivery_timer_.Start(deliveries_.front().at - now, [this] { OnDeliveryTask(); });
  }
  NotifyIfDelivered();
}

void SimFlow::Deliver(int64_t end, bool fin) {
  const int64_t bytes = end - delivered_;
  if (direction_ == Direction::kDown) {
    world_.stats.bytes_down += bytes;
  } else {
    world_.stats.bytes_up += bytes;
  }
  delivered_ = end;
  if (fin) fin_delivered_ = true;
  news_ = true;
}

void SimFlow::NotifyIfDelivered() {
  if (!news_) return;
  news_ = false;
  receiver_->OnFlowDelivered(this);  // may destroy this flow
}

}  // namespace netstack
