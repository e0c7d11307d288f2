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
// retried on the next server; see ARES_FLAG_NOCHECKRESP in the .cc for why).
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
#include "net/dns/dns_transport.h"

namespace netstack {

// Calls ares_library_init() once per process (thread-safe) and returns its status
// (ARES_SUCCESS on success); ares_library_cleanup() runs at process exit. Every user of c-ares
// calls this before ares_init_options(); AresDnsTransport::Create() does.
int EnsureAresLibraryInitialized();

// Maps a c-ares status to a net error (see dns_transport.h for the meaning of each):
// ARES_ENOTFOUND, ARES_ENODATA, ARES_EBADNAME -> ERR_NAME_NOT_RESOLVED; ARES_ESERVFAIL,
// ARES_EFORMERR, ARES_ENOTIMP -> ERR_DNS_SERVER_FAILED; ARES_EREFUSED -> ERR_DNS_REFUSED;
// ARES_ETIMEOUT -> ERR_DNS_TIMED_OUT; ARES_EBADRESP -> ERR_DNS_MALFORMED_RESPONSE;
// ARES_ECONNREFUSED (every server's port closed) -> ERR_CONNECTION_REFUSED; ARES_ENOMEM ->
// ERR_OUT_OF_MEMORY; ARES_EDESTRUCTION, ARES_ECANCELLED -> ERR_ABORTED; others -> ERR_FAILED.
int MapAresStatus(int status);

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

 private:
  class Transaction;
  struct Poll;

  AresDnsTransport(uv_loop_t* loop, Scheduler& scheduler, const Options& options);

  // c-ares's ARES_OPT_SOCK_STATE_CB: watch `fd` for the given events; both 0 = stop watching
  // (c-ares closes the socket right after this returns).
  static void OnSockState(void* data, ares_socket_t fd, int readable, int writable);
  void UpdatePoll(ares_socket_t fd, bool readable, bool writable);
  static void OnPollEvent(uv_poll_t* handle, int status, int events);
  static void ClosePoll(Poll* poll);

  // Re-arms the single timer from ares_timeout(); called after every call into c-ares.
  void RearmTimer();
  void OnTimer();

  uv_loop_t* const loop_;
  Scheduler& scheduler_;
  const Options options_;
  ares_channel channel_ = nullptr;
  OneShotTimer timer_;
  std::unordered_map<ares_socket_t, Poll*> polls_;  // Each freed in its close callback.
  std::unordered_set<Transaction*> transactions_;   // Live transactions, not owned.
};

}  // namespace netstack

#endif  // NET_DNS_ARES_DNS_TRANSPORT_H_
