// SimFlow: one direction of a modelled TCP connection (server -> client on the downlink,
// client -> server on the uplink): slow-start rounds clocked by acknowledgements, crossing the
// client's access link (SimLink) and the one-way delay. The model, and why, is in
// net/sim/README.md; in short, with owd the one-way delay:
//   - Round k carries min(unsent, cwnd * mss) bytes; cwnd starts at init_cwnd and grows by the
//     segments each round carried (doubling when rounds are full, RFC 5681 slow start), up to a
//     cap (the receive window, and twice the bandwidth-delay product on a limited link).
//   - The access link is at the client: downlink bytes propagate (owd) and then cross it;
//     uplink bytes cross it and then propagate. A round enters the link all at once.
//   - ACK clocking: round k+1 enters the link one RTT after round k started crossing it, or
//     later if round k is still queued behind earlier bytes. With an unlimited link a response
//     of R rounds is thus delivered owd + (R-1) RTT after it left the server; once a round takes
//     longer than an RTT to cross the link, rounds queue back to back and the flow gets the
//     link's rate (its fair share of it).
//   - Bytes enter a round only once they can have reached the link (departure + the one-way
//     delay before it): a round does not carry bytes the sender has not sent yet.
//   - Bytes ready before the last round's first ACK is back join that round at once while its
//     window has room (TCP sends while the window allows: the client's several writes at one
//     instant, an HTTP/2 response after the server's SETTINGS); the rest waits for the ACK
//     clock. The next round's window counts them as the round's.
//   - The window is kept across messages (keep-alive) and restarts at init_cwnd when the flow
//     sent nothing for idle_restart after its last data was acknowledged (RFC 5681 §4.1).
//   - Bytes become readable per link chunk: a round, split at marks (the end of a response's
//     head, so that the head is readable before the rest of a round on a slow link).
//   - Radio: a round entering the link at the client while the radio is idle waits for the
//     promotion first.
// Internal to net/sim.
#ifndef NET_SIM_SIM_FLOW_H_
#define NET_SIM_SIM_FLOW_H_

#include <cstdint>

#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/sim/sim_link.h"
#include "net/sim/sim_queue.h"

namespace netstack {

class SimWorld;

class SimFlow : public SimLink::Client {
 public:
  enum class Direction { kDown, kUp };

  class Receiver {
   public:
    virtual ~Receiver() = default;
    // More of the flow arrived (delivered() grew, or fin_delivered() became true). Runs from a
    // scheduler task, as the last thing the flow does there: the receiver may destroy the flow.
    virtual void OnFlowDelivered(SimFlow* flow) = 0;
  };

  // `world` and `receiver` must outlive the flow.
  SimFlow(SimWorld& world, Direction direction, TimeDelta rtt, Receiver* receiver);
  // Cancels everything in flight (Abort).
  ~SimFlow() override;
  SimFlow(const SimFlow&) = delete;
  SimFlow& operator=(const SimFlow&) = delete;

  // The sender has `bytes` more to send, available at `depart` (>= now; they leave in the first
  // round the ACK clock allows from then, never before bytes sent earlier). `mark`, if > 0, is a
  // stream offset where the link chunk must end (a response head's end). Ignored after Close or
  // Abort. Never runs the receiver inside the call.
  void Send(TimeTicks depart, int64_t bytes, int64_t mark = 0);
  // The sender closes after what it has queued: the FIN rides with the last round, or leaves
  // alone at `depart` if everything was sent.
  void Close(TimeTicks depart);
  // Stops everything: no more rounds, deliveries or callbacks (the connection is gone).
  void Abort();

  // Bytes handed to Send so far (the stream offset of the next message).
  int64_t queued() const { return queued_; }
  // Bytes [0, delivered()) have reached the receiver.
  int64_t delivered() const { return delivered_; }
  // The FIN arrived (after every byte).
  bool fin_delivered() const { return fin_delivered_; }
  bool closed() const { return fin_queued_; }
  // The congestion window now, in segments (for tests and the NetLog).
  int64_t cwnd() const { return cwnd_; }

  // SimLink::Client:
  void OnLinkServed() override;

 private:
  struct Chunk {
    int64_t end = 0;           // stream offset after the chunk
    bool round_start = false;  // first chunk of a round: its service start clocks the next round
    bool fin = false;
  };
  struct Delivery {
    TimeTicks at{};
    int64_t end = 0;
    bool fin = false;
  };
  // Bytes up to `end` may enter the link from `ready` (departure + the delay before the link).
  struct Piece {
    TimeTicks ready{};
    int64_t end = 0;
  };

  // Schedules the next round's link entry if there is something to send and none is pending:
  // when its first bytes (or the FIN) are ready, and the ACK clock allows. `allow_inline`: an
  // uplink round due now may enter inside the call (see the .cc).
  void MaybeScheduleRound(bool allow_inline);
  void PushPiece(Piece piece);
  void PopPiece();
  Piece& LastPiece() { return later_pieces_.empty() ? next_piece_ : later_pieces_.back(); }
  // What the last round's window has left (bytes).
  int64_t RoundRoom() const { return round_cwnd_ * mss_ - round_bytes_; }
  // A round enters the link at the client now.
  void OnEntry();
  // Starts the front chunk on the link; chunks served at once (unlimited link, FIN alone)
  // complete here.
  void Pump();
  void CompleteFront();
  void OnDeliveryTask();
  void Deliver(int64_t end, bool fin);
  // Tells the receiver if something arrived. Must be the caller's last action.
  void NotifyIfDelivered();

  SimWorld& world_;
  SimLink& link_;
  const Direction direction_;
  const TimeDelta rtt_;
  const TimeDelta prop_before_;  // owd before the link (downlink)
  const TimeDelta prop_after_;   // owd after the link (uplink)
  Receiver* const receiver_;
  const int64_t mss_;
  const int64_t init_cwnd_;
  const int64_t max_cwnd_;

  int64_t cwnd_;
  int64_t queued_ = 0;     // bytes given to Send
  int64_t sent_ = 0;       // bytes put in rounds
  int64_t ready_end_ = 0;  // bytes [0, ready_end_) may enter the link now (pieces released)
  // Bytes queued beyond ready_end_, by the time they may enter: the next piece inline (one
  // message in flight is the common case: no allocation per connection), later ones queued.
  Piece next_piece_{};
  bool has_next_piece_ = false;
  SimQueue<Piece> later_pieces_;
  TimeTicks fin_ready_{};  // when the FIN may enter (with or after the last bytes)
  bool fin_queued_ = false;
  bool fin_sent_ = false;
  bool aborted_ = false;

  bool round_pending_ = false;  // a round's entry is scheduled, or it waits in link_queue_
  OneShotTimer entry_timer_;    // the next round's entry (after the ACK clock or the radio)
  TimeTicks ack_clock_{};       // earliest entry of the next round: last round's start + RTT
  bool has_sent_ = false;
  int64_t round_cwnd_ = 0;   // its window (segments) before it grew
  int64_t round_bytes_ = 0;  // the bytes it carries
  SimQueue<int64_t> marks_;

  SimQueue<Chunk> link_queue_;  // front is on the link when in_service_
  bool in_service_ = false;
  int64_t served_ = 0;

  SimQueue<Delivery> deliveries_;  // uplink: propagating to the server
  OneShotTimer delivery_timer_;    // the front delivery's arrival
  int64_t delivered_ = 0;
  bool fin_delivered_ = false;
  bool news_ = false;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_FLOW_H_
