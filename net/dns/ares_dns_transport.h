// The live DnsTransport: c-ares 1.18 (Debian bookworm) driven by the libuv loop, as Node.js
// drives it. c-ares owns the DNS sockets and tells us which to watch through its socket-state
// callback; we keep one uv_poll_t per socket and one timer re-armed from ares_timeout() after
// every c-ares call, and feed events back with ares_process_fd(). No thread, no blocking.
//
// Lookups use ares_getaddrinfo(), whose nodes carry each record's TTL. A kUnspecified lookup is
// two ares_getaddrinfo() calls, one for AAAA and one for A, as curl does: each family gets its
// own status, so a SERVFAIL on one family is not hidden behind the other's answer (1.18's
// AF_UNSPEC reports only the last query's status), and the combined answer is built by rules we
// state (see CombineFamilies in the .cc). Only DNS is asked ("b" lookups): /etc/hosts is not
// read unless Options::use_hosts_file, so every answer carries a real TTL; "localhost" is
// answered by HostResolverManager without DNS. A SERVFAIL or REFUSED answer is final (it is not
// retried on the next server; see ARES_FLAG_NOCHECKRESP in the .cc for why). Every lookup ends:
// a socket libuv will not watch fails the in-flight lookups with the libuv error, and an answer
// whose delivery cannot be posted (out of memory) ends with ERR_OUT_OF_MEMORY, posted later.
// Failures carry a detail naming the server ("SERVFAIL from 127.0.0.1:5353").
#ifndef NET_DNS_ARES_DNS_TRANSPORT_H_
#define NET_DNS_ARES_DNS_TRANSPORT_H_

#include <ares.h>
#include <uv.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/scheduler.h"
#include "net/dns/ares_answer.h"
#include "net/dns/dns_transport.h"

namespace netstack {

// Calls ares_library_init() once per process (thread-safe) and returns its status
// (ARES_SUCCESS on success); ares_library_cleanup() runs at process exit. Every user of c-ares
// calls this before ares_init_options(); AresDnsTransport::Create() does.
int EnsureAresLibraryInitialized();

class AresDnsTransport : public DnsTransport {
 public:
  struct Options {
    // Servers to ask, in order. Empty: the system's, from /etc/resolv.conf.
    std::vector<IPEndPoint> servers;
    // Timeout of the first try of a query on one server (ARES_OPT_TIMEOUTMS); c-ares doubles it
    // on each later round over the servers. At least 1 ms.
    TimeDelta timeout = Milliseconds(2000);
    // Tries per server (ARES_OPT_TRIES); Chrome's DNS client makes two attempts. At least 1.
    int tries = 2;
    // Apply resolv.conf search domains to names with fewer dots than ndots. Turn off when
    // asking a given server about exact names (tests, --dns-server).
    bool use_search_domains = true;
    // Also consult /etc/hosts (answers from it carry no TTL and are not cached long).
    bool use_hosts_file = false;
  };

  // Creates a channel on `loop`. `scheduler` must run on the same loop (a UvScheduler) and
  // outlive the transport. Returns nullptr with a message in `*error` if c-ares cannot be set
  // up (for example an unusable server list).
  static std::unique_ptr<AresDnsTransport> Create(uv_loop_t* loop, Scheduler& scheduler,
                                                  const Options& options, std::string* error);

  // Destroys the channel: ares_destroy() ends every query with ARES_EDESTRUCTION; no user
  // callback runs after this starts (outstanding transactions become inert). The poll handles
  // are closed and freed in their close callbacks, so the loop must run once more (uv_run until
  // uv_loop_close() succeeds).
  ~AresDnsTransport() override;

  AresDnsTransport(const AresDnsTransport&) = delete;
  AresDnsTransport& operator=(const AresDnsTransport&) = delete;

  // DnsTransport:
  std::unique_ptr<DnsTransaction> StartLookup(const std::string& hostname, AddressFamily family,
                                              Callback callback) override;
  // {"type": "c-ares", "version", "servers": ["ip:port"...], "timeout_ms", "tries",
  //  "search_domains", "hosts_file", "open_sockets", "active_transactions"}.
  nlohmann::json GetInfoAsJson() const override;

  // Sockets c-ares currently has open (each has one poll handle). For tests and internals.
  size_t open_sockets() const { return polls_.size(); }
  size_t active_transactions() const { return transactions_.size(); }

  // The libuv calls that watch c-ares's sockets; tests replace them to simulate libuv refusing
  // a socket (a lookup then fails with the mapped libuv error instead of timing out).
  struct PollFunctions {
    int (*init)(uv_loop_t* loop, uv_poll_t* handle, int fd) = &uv_poll_init;
    int (*start)(uv_poll_t* handle, int events, uv_poll_cb callback) = &uv_poll_start;
  };
  void SetPollFunctionsForTesting(const PollFunctions& functions) { poll_functions_ = functions; }

 private:
  class Transaction;
  struct Poll;

  AresDnsTransport(uv_loop_t* loop, Scheduler& scheduler, const Options& options);

  // Creates channel_ from options_. False with a message in `*error` (may be null); channel_
  // may then be set (servers rejected) and the caller destroys it.
  bool InitChannel(std::string* error);
  // Destroys the channel, which closes its sockets (ARES_FLAG_STAYOPEN keeps them open while
  // it lives) and drops its queries, and creates a new one. Only when no transaction waits on
  // c-ares: when the last transaction goes, and after FailInFlightLookups(). Never inside c-ares.
  void RecycleChannel();

  // c-ares's ARES_OPT_SOCK_STATE_CB: watch `fd` for the given events; both 0 = stop watching
  // (c-ares closes the socket right after this returns).
  static void OnSockState(void* data, ares_socket_t fd, int readable, int writable);
  void UpdatePoll(ares_socket_t fd, bool readable, bool writable);
  // libuv would not watch a socket: remembered here (we are inside c-ares) and acted on by
  // AfterAresCall().
  void OnPollFailure(int net_error, const char* what, int uv_error) noexcept;
  static void OnPollEvent(uv_poll_t* handle, int status, int events);
  static void ClosePoll(Poll* poll);

  // Runs after every call into c-ares returns (never inside one): fails the in-flight lookups
  // after a poll failure, retries answer deliveries that could not be posted, re-arms the timer.
  void AfterAresCall() noexcept;
  // A socket could not be watched, so the lookups that may be waiting on it would only time
  // out: fail every in-flight lookup with the error, then recycle the channel, which drops the
  // (now orphaned) queries and closes c-ares's sockets so the next lookup opens fresh ones.
  void FailInFlightLookups();
  // Re-arms the single timer from ares_timeout(), or sooner while a delivery waits for a retry.
  void RearmTimer();
  void OnTimer();
  // A transaction is being destroyed. When it was the last one, c-ares's remaining queries
  // belong to nobody: cancel them rather than let c-ares retry for timeout x tries.
  void OnTransactionDestroyed(Transaction* transaction);
  // "ip:port" of each server c-ares asks, in order.
  std::vector<std::string> ServerStrings() const;

  uv_loop_t* const loop_;
  Scheduler& scheduler_;
  const Options options_;
  // ARES_OPT_TIMEOUTMS: options_.timeout in whole milliseconds, at least 1 ms.
  const TimeDelta first_try_timeout_;
  ares_channel channel_ = nullptr;
  AresServerInfo server_info_;  // For failure details.
  PollFunctions poll_functions_;
  OneShotTimer timer_;
  std::unordered_map<ares_socket_t, Poll*> polls_;  // Each freed in its close callback.
  std::unordered_set<Transaction*> transactions_;   // Live transactions, not owned.
  int poll_error_ = OK;                             // Set inside c-ares; see OnPollFailure.
  std::string poll_error_detail_;
  bool delivery_retry_needed_ = false;  // A transaction's delivery could not be posted.
};

}  // namespace netstack

#endif  // NET_DNS_ARES_DNS_TRANSPORT_H_
