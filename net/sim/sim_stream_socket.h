// SimStreamSocket: the simulator's TCP socket. Connecting takes one round trip to the host the
// address stands for (after a radio promotion if the radio is idle); then the socket is the
// client end of a modelled connection: what it writes crosses the uplink (SimFlow) to the
// connection's server, and the server's responses come back over the downlink, readable as they
// arrive (on a TLS connection with tls_record_bytes, per record: see SetTls). The server is a
// SimHttpServer (HTTP/1.1), or a SimHttp2Server when TLS's ALPN chose
// h2 or, on a clear-text connection to a host that speaks HTTP/2, when the first bytes written
// are the HTTP/2 preface (prior knowledge). Response bodies are filler bytes made on read;
// nothing body-sized is held.
// It logs to its own SOCKET source as the live TCP socket does (SOCKET_ALIVE, TCP_CONNECT,
// TCP_CONNECT_ATTEMPT, SOCKET_BYTES_SENT/RECEIVED, SOCKET_CLOSED).
//
// StreamSocket's contract holds: results now or ERR_IO_PENDING and a callback later from a
// scheduler task, never inside the call; destroying or disconnecting cancels everything.
// Internal to net/sim (made by SimNetwork's socket factory).
#ifndef NET_SIM_SIM_STREAM_SOCKET_H_
#define NET_SIM_SIM_STREAM_SOCKET_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/sim/sim_flow.h"
#include "net/sim/sim_http2_server.h"
#include "net/sim/sim_http_server.h"
#include "net/sim/sim_queue.h"
#include "net/socket/stream_socket.h"

namespace netstack {

struct SimHost;
class SimWorld;

class SimStreamSocket : public StreamSocket,
                        public SimFlow::Receiver,
                        public SimHttpServer::Output,
                        public SimHttp2Server::Output {
 public:
  // A socket for `endpoint`; `host` is the host its address stands for, or null (Connect then
  // fails with ERR_CONNECTION_REFUSED). `world` (and `host`) must outlive the socket. The
  // socket creates its own SOCKET source in `net_log` (may be null).
  SimStreamSocket(SimWorld& world, SimHost* host, const IPEndPoint& endpoint,
                  netstack::NetLog* net_log, const NetLogSource& creator);
  ~SimStreamSocket() override;
  SimStreamSocket(const SimStreamSocket&) = delete;
  SimStreamSocket& operator=(const SimStreamSocket&) = delete;

  // ERR_IO_PENDING and OK one RTT later (plus a promotion, and with link_queue=fifo the links'
  // backlogs the SYN and SYN-ACK wait behind); ERR_CONNECTION_REFUSED at once for
  // an address the network did not hand out; OK if already connected.
  int Connect(CompletionCallback callback) override;
  // Response bytes that have arrived (synchronously), 0 once the server closed and everything
  // was read, else ERR_IO_PENDING until the next arrival.
  int Read(char* buf, int len, CompletionCallback callback) override;
  // Accepts all `len` bytes at once (returns len): they go to the server's parser now and
  // cross the uplink from now.
  int Write(const char* data, int len, CompletionCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override;
  bool IsConnectedAndIdle() const override;
  bool WasEverUsed() const override { return was_ever_used_; }
  int GetPeerAddress(IPEndPoint* address) const override;
  const NetLogWithSource& NetLog() const override { return net_log_; }

  // For SimSslSocket: the host (non-null once connected) and RTT, and the switch to TLS (before
  // any byte was written), over HTTP/2 when `http2` (ALPN chose h2). From then on, with the
  // world's tls_record_bytes R > 0, what the server sends is readable per record: each write
  // (a response, a batch of HTTP/2 frames) is cut into records of R bytes, the last shorter,
  // and a record is readable once its last byte has arrived.
  SimHost* host() const { return host_; }
  TimeDelta rtt() const;
  void SetTls(bool http2);

  // One flight of a TLS handshake: `bytes` from the client (uplink) or the server (downlink).
  struct TlsFlight {
    bool from_server = false;
    int64_t bytes = 0;
  };
  // At most this many flights in one handshake.
  static constexpr size_t kMaxTlsFlights = 8;
  // For SimSslSocket, once connected and before SetTls: sends `flights` in turn over the
  // connection's flows (slow start and the access link as for data), each when the previous one
  // has arrived whole (a server flight leaves when the client's reached the server), then runs
  // `done` from the last arrival's task, as the socket's last action there (it may destroy the
  // socket). False (and nothing sent) if there are none, more than kMaxTlsFlights, a flight of
  // no bytes, or a handshake is already running. Never runs `done` inside the call; Disconnect
  // drops it. The bytes are not application data: the servers and Read skip them.
  bool SendTlsFlights(std::vector<TlsFlight> flights, std::function<void()> done);
  // For SimSslSocket: `bytes` (> 0) of the client's handshake that need no answer (TLS 1.3's
  // Finished, a 0-RTT ClientHello) leave on the uplink now, ahead of what is written next.
  void SendTlsClientBytes(int64_t bytes);
  // Whether the server end speaks HTTP/2 (for tests).
  bool speaks_http2() const { return h2_ != nullptr; }
  // The connection's congestion windows (segments), for tests.
  int64_t downlink_cwnd() const { return down_.cwnd(); }
  int64_t uplink_cwnd() const { return up_.cwnd(); }

  // SimFlow::Receiver: the uplink's arrivals go to the server; the downlink's complete a
  // pending Read.
  void OnFlowDelivered(SimFlow* flow) override;
  // SimHttpServer::Output:
  void SendResponse(TimeTicks depart, std::string head, int64_t body_bytes) override;
  // SimHttpServer::Output and SimHttp2Server::Output: the FIN after what was sent.
  void CloseConnection(TimeTicks depart) override;
  // SimHttp2Server::Output:
  void SendFrames(TimeTicks depart, std::vector<SimWireSegment>& frames,
                  int64_t head_bytes) override;
  int64_t PendingOutputBytes() const override { return down_.queued() - down_.delivered(); }

 private:
  struct Message {
    int64_t start = 0;  // downlink offset of its first byte
    std::string head;
    int64_t size = 0;  // head + body
  };

  void OnConnectTimer();
  // Sends one write of the server on the downlink (`mark` as SimFlow::Send takes it), in
  // records when records_ > 0.
  void SendDown(TimeTicks depart, int64_t bytes, int64_t mark);
  // On a clear-text connection to an HTTP/2 host: the first bytes written, held until they
  // are known to be the HTTP/2 preface (the HTTP/2 server starts) or not (HTTP/1.1).
  void SniffPreface(const char* data, size_t len);
  void StartHttp2(const char* scheme);
  // Copies up to `len` arrived bytes into `buf` (head bytes as sent, body as filler).
  int CopyOut(char* buf, int len);
  // Downlink bytes arrived and readable, not yet read.
  int64_t Readable() const { return (records_ ? readable_end_ : down_.delivered()) - read_pos_; }
  // With records: moves readable_end_ to the end of the last record that arrived whole.
  void UpdateReadable();
  // A TLS handshake flight arrived whole: sends the next, or ends the handshake. Must be the
  // caller's last action (the handshake's end may destroy the socket).
  void OnTlsFlightArrived();
  void SendNextTlsFlight();
  void LogBytes(NetLogEventType type, int count) const;

  SimWorld& world_;
  SimHost* const host_;
  const IPEndPoint endpoint_;
  NetLogWithSource net_log_;

  OneShotTimer connect_timer_;  // the SYN-ACK's arrival (on a FIFO link: first at the link)
  bool syn_ack_queued_ = true;  // the SYN-ACK has waited its turn on the downlink
  CompletionCallback connect_callback_;
  bool connected_ = false;
  bool closed_ = false;  // Disconnect() ran
  bool was_ever_used_ = false;

  SimHttpServer server_;
  std::unique_ptr<SimHttp2Server> h2_;  // the server end once it speaks HTTP/2
  bool sniff_ = false;                  // clear text to an HTTP/2 host, nothing decided yet
  size_t preface_seen_ = 0;             // bytes written so far that match the preface
  SimFlow up_;
  SimFlow down_;
  SimQueue<Message> messages_;  // responses not yet read out
  int64_t read_pos_ = 0;

  // The TLS handshake's flights (SendTlsFlights): the next to send, and the stream offset the
  // one in flight ends at on its flow.
  std::vector<TlsFlight> tls_flights_;
  size_t tls_next_ = 0;
  int64_t tls_wait_end_ = 0;
  std::function<void()> tls_done_;
  int64_t tls_up_bytes_ = 0;  // uplink bytes of the handshake (before the application's)

  // TLS records (SetTls with tls_record_bytes > 0).
  int64_t records_ = 0;       // the record size, 0 = readable as it arrives
  SimQueue<int64_t> writes_;  // ends of the server's writes not yet arrived whole
  int64_t write_start_ = 0;   // where the front write starts
  int64_t readable_end_ = 0;  // downlink bytes [0, readable_end_) are readable

  char* read_buf_ = nullptr;
  int read_len_ = 0;
  CompletionCallback read_callback_;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_STREAM_SOCKET_H_
