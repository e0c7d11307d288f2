#include "net/sim/sim_stream_socket.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include "net/sim/sim_world.h"
#include "net/socket/socket_callback_util.h"

namespace netstack {

namespace {

// What a body reads as. The model does not carry content; a constant byte costs a memset.
constexpr char kFiller = 'x';

TimeDelta HostRtt(const SimHost* host) { return host ? host->params.rtt : TimeDelta::zero(); }

}  // namespace

SimStreamSocket::SimStreamSocket(SimWorld& world, SimHost* host, const IPEndPoint& endpoint,
                                 netstack::NetLog* net_log, const NetLogSource& creator)
    : world_(world),
      host_(host),
      endpoint_(endpoint),
      net_log_(NetLogWithSource::Make(net_log, NetLogSourceType::SOCKET)),
      connect_timer_(world.scheduler),
      server_(world, host, static_cast<SimHttpServer::Output*>(this)),
      sniff_(host && host->params.http2),
      up_(world, SimFlow::Direction::kUp, HostRtt(host), this),
      down_(world, SimFlow::Direction::kDown, HostRtt(host), this) {
  net_log_.BeginEvent(NetLogEventType::SOCKET_ALIVE, [&creator] {
    nlohmann::json params = nlohmann::json::object();
    if (creator.IsValid()) params["source_dependency"] = creator.ToJson();
    return params;
  });
}

SimStreamSocket::~SimStreamSocket() {
  Disconnect();
  net_log_.EndEvent(NetLogEventType::SOCKET_ALIVE);
}

TimeDelta SimStreamSocket::rtt() const { return HostRtt(host_); }

int SimStreamSocket::Connect(CompletionCallback callback) {
  if (connected_) return OK;
  if (closed_) return ERR_SOCKET_NOT_CONNECTED;
  if (connect_timer_.IsRunning()) return ERR_INVALID_ARGUMENT;  // one connect at a time

  auto address = [this] { return nlohmann::json{{"address", endpoint_.ToString()}}; };
  net_log_.BeginEvent(NetLogEventType::TCP_CONNECT, address);
  net_log_.BeginEvent(NetLogEventType::TCP_CONNECT_ATTEMPT, address);
  if (!host_) {
    // Nobody listens at an address the network did not hand out.
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT_ATTEMPT, ERR_CONNECTION_REFUSED);
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT, ERR_CONNECTION_REFUSED);
    return ERR_CONNECTION_REFUSED;
  }
  // SYN, SYN-ACK: one round trip once the radio is up; the ACK travels with the request. On a
  // FIFO link the SYN waits behind the uplink's queue and the SYN-ACK, reaching the downlink
  // one round trip later, behind the downlink's then.
  const TimeTicks now = world_.scheduler.Now();
  TimeTicks done = world_.radio.Acquire(now) + host_->params.rtt;
  if (world_.uplink.queue() == LinkQueue::kFifo) done += world_.uplink.Backlog();
  connect_callback_ = std::move(callback);
  syn_ack_queued_ = world_.downlink.queue() != LinkQueue::kFifo;
  connect_timer_.Start(done - now, [this] { OnConnectTimer(); });
  return ERR_IO_PENDING;
}

void SimStreamSocket::OnConnectTimer() {
  if (!syn_ack_queued_) {  // the SYN-ACK reaches the FIFO downlink now
    syn_ack_queued_ = true;
    const TimeDelta wait = world_.downlink.Backlog();
    if (wait > TimeDelta::zero()) {
      connect_timer_.Start(wait, [this] { OnConnectTimer(); });
      return;
    }
  }
  connected_ = true;
  ++world_.stats.tcp_connects;
  world_.radio.Touch(world_.scheduler.Now());
  net_log_.EndEvent(NetLogEventType::TCP_CONNECT_ATTEMPT);
  net_log_.EndEvent(NetLogEventType::TCP_CONNECT);
  RunCallback(connect_callback_, OK);  // may destroy this socket
}

int SimStreamSocket::Read(char* buf, int len, CompletionCallback callback) {
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  if (!buf || len <= 0 || read_buf_) return ERR_INVALID_ARGUMENT;
  if (Readable() > 0) return CopyOut(buf, len);
  if (down_.fin_delivered()) return 0;
  read_buf_ = buf;
  read_len_ = len;
  read_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

void SimStreamSocket::SetTls(bool http2) {
  sniff_ = false;
  server_.set_https();
  // The handshake's downlink bytes have all arrived: they are not the application's.
  read_pos_ = down_.delivered();
  records_ = world_.params.tls_record_bytes;
  write_start_ = readable_end_ = read_pos_;
  if (http2) StartHttp2("https");
}

bool SimStreamSocket::SendTlsFlights(std::vector<TlsFlight> flights, std::function<void()> done) {
  if (!connected_ || tls_done_ || flights.empty() || flights.size() > kMaxTlsFlights) return false;
  for (const TlsFlight& flight : flights) {
    if (flight.bytes <= 0) return false;
  }
  tls_flights_ = std::move(flights);
  tls_next_ = 0;
  tls_done_ = std::move(done);
  SendNextTlsFlight();
  return true;
}

void SimStreamSocket::SendTlsClientBytes(int64_t bytes) {
  if (!connected_ || bytes <= 0) return;
  up_.Send(world_.scheduler.Now(), bytes);
  server_.SkipClientBytes(bytes);
  tls_up_bytes_ += bytes;
}

void SimStreamSocket::SendNextTlsFlight() {
  const TlsFlight& flight = tls_flights_[tls_next_++];
  if (flight.from_server) {
    down_.Send(world_.scheduler.Now(), flight.bytes);
    tls_wait_end_ = down_.queued();
  } else {
    SendTlsClientBytes(flight.bytes);
    tls_wait_end_ = up_.queued();
  }
}

void SimStreamSocket::OnTlsFlightArrived() {
  if (tls_next_ < tls_flights_.size()) return SendNextTlsFlight();
  tls_flights_.clear();
  std::function<void()> done = std::move(tls_done_);
  tls_done_ = nullptr;
  done();  // may destroy this socket
}

void SimStreamSocket::UpdateReadable() {
  const int64_t delivered = down_.delivered();
  while (!writes_.empty() && writes_.front() <= delivered) {
    write_start_ = readable_end_ = writes_.front();
    writes_.pop_front();
  }
  if (!writes_.empty() && delivered > write_start_) {
    readable_end_ =
        std::max(readable_end_, write_start_ + (delivered - write_start_) / records_ * records_);
  }
}

void SimStreamSocket::StartHttp2(const char* scheme) {
  h2_ = std::make_unique<SimHttp2Server>(world_, host_, static_cast<SimHttp2Server::Output*>(this),
                                         scheme);
}

void SimStreamSocket::SniffPreface(const char* data, size_t len) {
  const std::string_view preface = SimHttp2Server::kClientPreface;
  const size_t n = std::min(len, preface.size() - preface_seen_);
  if (std::memcmp(data, preface.data() + preface_seen_, n) != 0) {  // HTTP/1.1 after all
    sniff_ = false;
    if (preface_seen_ > 0) server_.OnClientBytes(preface.data(), preface_seen_);
    server_.OnClientBytes(data, len);
    return;
  }
  preface_seen_ += n;
  if (preface_seen_ < preface.size()) return;  // so far, so good: held
  sniff_ = false;
  StartHttp2("http");
  h2_->OnClientBytes(preface.data(), preface.size());
  if (len > n) h2_->OnClientBytes(data + n, len - n);
}

void SimStreamSocket::OnFlowDelivered(SimFlow* flow) {
  if (tls_done_) {  // the handshake: its flight in flight has arrived whole, or not yet
    const TlsFlight& flight = tls_flights_[tls_next_ - 1];
    if ((flow == &down_) == flight.from_server && flow->delivered() >= tls_wait_end_) {
      OnTlsFlightArrived();  // may destroy this socket
    }
    return;
  }
  if (flow == &up_) {  // to the server
    if (h2_) {
      h2_->OnUplinkDelivered(up_.delivered() - tls_up_bytes_);
    } else {
      server_.OnFlowDelivered(flow);
    }
    return;
  }
  if (records_ > 0) UpdateReadable();
  if (h2_) h2_->OnDownlinkDelivered();
  if (!read_buf_) return;  // Nobody waits: the bytes stay readable.
  int result;
  if (Readable() > 0) {
    result = CopyOut(read_buf_, read_len_);
  } else if (down_.fin_delivered()) {
    result = 0;
  } else {
    return;
  }
  read_buf_ = nullptr;
  read_len_ = 0;
  RunCallback(read_callback_, result);  // may destroy this socket
}

int SimStreamSocket::CopyOut(char* buf, int len) {
  const int n = static_cast<int>(std::min<int64_t>(len, Readable()));
  int copied = 0;
  while (copied < n) {
    Message& message = messages_.front();
    const int64_t offset = read_pos_ - message.start;
    const int64_t head = static_cast<int64_t>(message.head.size());
    int64_t take;
    if (offset < head) {
      take = std::min<int64_t>(n - copied, head - offset);
      std::memcpy(buf + copied, message.head.data() + offset, static_cast<size_t>(take));
    } else {
      take = std::min<int64_t>(n - copied, message.size - offset);
      std::memset(buf + copied, kFiller, static_cast<size_t>(take));
    }
    copied += static_cast<int>(take);
    read_pos_ += take;
    if (read_pos_ == message.start + message.size) messages_.pop_front();
  }
  was_ever_used_ = true;
  LogBytes(NetLogEventType::SOCKET_BYTES_RECEIVED, n);
  return n;
}

int SimStreamSocket::Write(const char* data, int len, CompletionCallback callback) {
  (void)callback;  // Writes complete at once.
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  if (!data || len <= 0) return ERR_INVALID_ARGUMENT;
  was_ever_used_ = true;
  LogBytes(NetLogEventType::SOCKET_BYTES_SENT, len);
  if (h2_) {
    h2_->OnClientBytes(data, static_cast<size_t>(len));
  } else if (sniff_) {
    SniffPreface(data, static_cast<size_t>(len));
  } else {
    server_.OnClientBytes(data, static_cast<size_t>(len));
  }
  up_.Send(world_.scheduler.Now(), len);
  return len;
}

void SimStreamSocket::SendResponse(TimeTicks depart, std::string head, int64_t body_bytes) {
  Message message;
  message.start = down_.queued();
  message.size = static_cast<int64_t>(head.size()) + body_bytes;
  message.head = std::move(head);
  if (message.size == 0) return;
  const int64_t head_end = message.start + static_cast<int64_t>(message.head.size());
  const int64_t size = message.size;
  messages_.push_back(std::move(message));
  SendDown(depart, size, head_end);
}

void SimStreamSocket::SendFrames(TimeTicks depart, std::vector<SimWireSegment>& frames,
                                 int64_t head_bytes) {
  const int64_t start = down_.queued();
  int64_t offset = start;
  for (SimWireSegment& segment : frames) {
    Message message;
    message.start = offset;
    message.size = static_cast<int64_t>(segment.bytes.size()) + segment.filler;
    message.head = std::move(segment.bytes);
    if (message.size == 0) continue;
    offset += message.size;
    messages_.push_back(std::move(message));
  }
  if (offset > start) SendDown(depart, offset - start, head_bytes > 0 ? start + head_bytes : 0);
}

void SimStreamSocket::SendDown(TimeTicks depart, int64_t bytes, int64_t mark) {
  if (records_ == 0) return down_.Send(depart, bytes, mark);
  // One write in records: the link's chunks end at the records' ends (the head's end no longer
  // matters: it is readable with its record).
  const int64_t end = down_.queued() + bytes;
  while (down_.queued() < end) {
    const int64_t record = std::min(records_, end - down_.queued());
    down_.Send(depart, record, down_.queued() + record);
  }
  writes_.push_back(end);
}

void SimStreamSocket::CloseConnection(TimeTicks depart) { down_.Close(depart); }

void SimStreamSocket::Disconnect() {
  if (connect_timer_.IsRunning()) {
    connect_timer_.Stop();
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT_ATTEMPT, ERR_ABORTED);
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TCP_CONNECT, ERR_ABORTED);
    net_log_.AddEvent(NetLogEventType::SOCKET_CLOSED);
  } else if (connected_) {
    net_log_.AddEvent(NetLogEventType::SOCKET_CLOSED);
  }
  connected_ = false;
  closed_ = true;
  up_.Abort();
  down_.Abort();
  messages_.clear();
  writes_.clear();
  tls_flights_.clear();
  tls_done_ = nullptr;
  h2_.reset();
  sniff_ = false;
  connect_callback_ = nullptr;
  read_callback_ = nullptr;
  read_buf_ = nullptr;
  read_len_ = 0;
}

bool SimStreamSocket::IsConnected() const {
  return connected_ && (Readable() > 0 || !down_.fin_delivered());
}

bool SimStreamSocket::IsConnectedAndIdle() const {
  return connected_ && Readable() == 0 && !down_.fin_delivered();
}

int SimStreamSocket::GetPeerAddress(IPEndPoint* address) const {
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  *address = endpoint_;
  return OK;
}

void SimStreamSocket::LogBytes(NetLogEventType type, int count) const {
  if (!net_log_.IsCapturing()) return;
  net_log_.AddEvent(type, [count](NetLogParams& p) { p.Add("byte_count", count); });
}

}  // namespace netstack
