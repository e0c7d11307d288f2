// ConnectJob: turns a pool group's {scheme, host, port} into one connected StreamSocket:
// resolve the host, TCP-connect over the address list (address fallback and the IPv6->IPv4
// race), then the TLS handshake for https. The pool owns jobs and binds their sockets to
// requests late (see client_socket_pool.h).
#ifndef NET_SOCKET_CONNECT_JOB_H_
#define NET_SOCKET_CONNECT_JOB_H_

#include <memory>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/load_timing_info.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/base/url.h"
#include "net/dns/host_resolver.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/stream_socket.h"

namespace netstack {

// What every connect job of one stack shares. The pointers are not owned and must outlive
// every job made with them.
struct CommonConnectJobParams {
  Scheduler* scheduler = nullptr;
  HostResolver* host_resolver = nullptr;
  ClientSocketFactory* socket_factory = nullptr;
  NetLog* net_log = nullptr;  // may be null: nothing is logged

  // The whole job (DNS + TCP + TLS) must finish within this, else ERR_CONNECTION_TIMED_OUT, or
  // ERR_DNS_TIMED_OUT if the host was still being resolved (error_detail() names the host).
  // Zero disables the timeout.
  TimeDelta connect_timeout = Seconds(30);
  // With IPv6 addresses first and IPv4 ones too, the IPv4 attempts start in parallel when the
  // IPv6 ones have not connected after this long (Chrome's 300 ms, RFC 6555).
  TimeDelta ipv6_fallback_delay = Milliseconds(300);
};

class ConnectJob {
 public:
  class Delegate {
   public:
    virtual ~Delegate() = default;
    // Called exactly once, only if Connect() returned ERR_IO_PENDING, with the final result
    // (OK: PassSocket() returns the socket). Runs from the job's own I/O or timer callback; the
    // delegate may destroy the job inside this call (the job touches nothing afterwards).
    virtual void OnConnectJobComplete(ConnectJob* job, int result) = 0;
  };

  // `endpoint` is the group key: its scheme decides whether TLS runs ("https"). The job logs
  // to its own CONNECT_JOB source in `params.net_log`; `is_backup` only labels it there.
  ConnectJob(const SchemeHostPort& endpoint, RequestPriority priority,
             const CommonConnectJobParams& params, Delegate* delegate, bool is_backup = false);
  // Cancels whatever is in flight (resolve request, TCP attempts, handshake): no callback runs.
  ~ConnectJob();

  ConnectJob(const ConnectJob&) = delete;
  ConnectJob& operator=(const ConnectJob&) = delete;

  // Starts. Returns OK (everything completed synchronously; PassSocket() has the socket), a net
  // error (ERR_NAME_NOT_RESOLVED and other resolver errors, the last TCP error such as
  // ERR_CONNECTION_REFUSED, a TLS error), or ERR_IO_PENDING: the delegate is told later.
  // Call once.
  int Connect();

  // Changes the priority; forwarded to the host resolution while it is in flight.
  void ChangePriority(RequestPriority priority);

  // The connected socket after success (once); null otherwise.
  std::unique_ptr<StreamSocket> PassSocket();

  const SchemeHostPort& endpoint() const { return endpoint_; }
  RequestPriority priority() const { return priority_; }
  bool is_backup() const { return is_backup_; }
  // Set by the pool on jobs a preconnect (RequestSockets) started, so that the socket's origin
  // can be reported to ClientSocketPool::Observer whoever ends up with it. Only a label: the job
  // behaves the same.
  void set_is_preconnect(bool is_preconnect) { is_preconnect_ = is_preconnect; }
  bool is_preconnect() const { return is_preconnect_; }
  const NetLogWithSource& net_log() const { return net_log_; }

  // dns_start/end, connect_start/end (connect_end includes TLS, as in Chrome), ssl_start/end.
  // With the IPv6->IPv4 race, connect_start is the start of the attempts that won.
  const ConnectTiming& connect_timing() const { return connect_timing_; }
  // True if the addresses came from the host cache (fresh or stale) rather than the network.
  bool dns_from_cache() const { return dns_from_cache_; }
  // Whether that cache entry was stale (served while an asynchronous refresh runs).
  bool dns_served_stale() const { return dns_served_stale_; }
  // After a failure: what the transport said beyond the error code (a TLS certificate's
  // verification error, the resolver's error_detail(), which host a timeout was resolving), or
  // empty.
  const std::string& error_detail() const { return error_detail_; }

  // True while the host resolution is in flight (the pool then delays its backup job: a second
  // job would wait for the same DNS answer).
  bool IsResolvingHost() const { return next_state_ == State::kResolveHostComplete; }
  // True once a TCP connection is up (the handshake may still be running). The pool starts no
  // backup job after that: backup jobs are for lost SYNs.
  bool HasEstablishedConnection() const { return has_established_connection_; }

 private:
  enum class State {
    kNone,
    kResolveHost,
    kResolveHostComplete,
    kTransportConnect,
    kTransportConnectComplete,
    kSslConnect,
    kSslConnectComplete,
  };

  // One sequence of TCP attempts over the addresses of one family, in order.
  struct AttemptChain {
    std::vector<IPEndPoint> addresses;
    size_t next = 0;  // index of the address being tried
    std::unique_ptr<StreamSocket> socket;
    TimeTicks start{};
    bool started = false;
    bool done = false;
  };

  int DoLoop(int result);
  int DoResolveHost();
  int DoResolveHostComplete(int result);
  int DoTransportConnect();
  int DoTransportConnectComplete(int result);
  int DoSslConnect();
  int DoSslConnectComplete(int result);

  // Completion of an asynchronous step: continues the state machine and, when it ends,
  // notifies the delegate.
  void OnIOComplete(int result);

  int StartChain(AttemptChain* chain);
  // Tries the chain's addresses from `next` until one connects, one is pending, or none are
  // left (returns the last error).
  int TryChain(AttemptChain* chain);
  void OnAttemptComplete(AttemptChain* chain, int result);
  // A chain connected or ran out of addresses: picks the winner or decides whether to wait for
  // (or start) the other family. ERR_IO_PENDING means "still waiting".
  int OnChainFinished(AttemptChain* chain, int result);
  void OnFallbackTimerFired();
  void OnTimeout();

  void SetSocket(std::unique_ptr<StreamSocket> socket);
  // Stops timers and logs the end of CONNECT_JOB.
  void Finish(int result);
  // Finish, then tell the delegate. Must be the last thing a callback does (may delete this).
  void NotifyDelegate(int result);

  const SchemeHostPort endpoint_;
  RequestPriority priority_;
  const CommonConnectJobParams params_;
  Delegate* const delegate_;
  const bool is_backup_;
  bool is_preconnect_ = false;
  NetLogWithSource net_log_;

  State next_state_ = State::kNone;
  bool started_ = false;
  bool finished_ = false;
  bool has_established_connection_ = false;
  bool dns_from_cache_ = false;
  bool dns_served_stale_ = false;
  int last_error_ = ERR_CONNECTION_FAILED;
  std::string error_detail_;
  ConnectTiming connect_timing_;

  std::unique_ptr<HostResolver::Request> resolve_request_;
  AddressList addresses_;
  AttemptChain main_;
  AttemptChain fallback_;
  // Sockets of failed attempts. Kept (not destroyed inside their own callback) until the job
  // goes; bounded by the address list.
  std::vector<std::unique_ptr<StreamSocket>> failed_sockets_;
  std::unique_ptr<StreamSocket> transport_socket_;  // connected TCP, before TLS
  std::unique_ptr<StreamSocket> ssl_socket_;        // during the handshake
  std::unique_ptr<StreamSocket> socket_;            // the result

  OneShotTimer timeout_timer_;
  OneShotTimer fallback_timer_;
};

}  // namespace netstack

#endif  // NET_SOCKET_CONNECT_JOB_H_
