// SimStreamSocket: the simulator's TCP socket. Connecting takes one round trip to the host the
// address stands for (after a radio promotion if the radio is idle); then the socket is the
// client end of a modelled connection: what it writes crosses the uplink (SimFlow) to the
// connection's server, and the server's responses come back over the downlink, readable as they
// arrive. The server is a SimHttpServer (HTTP/1.1), or a SimHttp2Server when TLS's ALPN chose
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

  // ERR_IO_PENDING and OK one RTT later (plus a promotion); ERR_CONNECTION_REFUSED at once for
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
  // any byte was written), over HTTP/2 when `http2` (ALPN chose h2).
  SimHost* host() const { return host_; }
  TimeDelta rtt() const;
  void SetTls(bool http2);
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
  // On a clear-text connection to an HTTP/2 host: the first bytes written, held until they
  // are known to be the HTTP/2 preface (the HTTP/2 server starts) or not (HTTP/1.1).
  void SniffPreface(const char* data, size_t len);
  void StartHttp2(const char* scheme);
  // Copies up to `len` arrived bytes into `buf` (head bytes as sent, body as filler).
  int CopyOut(char* buf, int len);
  int64_t Readable() const { return down_.delivered() - read_pos_; }
  void LogBytes(NetLogEventType type, int count) const;

  SimWorld& world_;
  SimHost* const host_;
  const IPEndPoint endpoint_;
  NetLogWithSource net_log_;

  OneShotTimer connect_timer_;  // the SYN-ACK's arrival
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

  char* read_buf_ = nullptr;
  int read_len_ = 0;
  CompletionCallback read_callback_;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_STREAM_SOCKET_H_
