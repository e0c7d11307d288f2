#include "net/dns/ares_dns_transport.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <algorithm>
#include <cassert>
#include <utility>

namespace netstack {

namespace {

// Process-wide c-ares initialisation; a function-local static, so it is thread-safe and its
// destructor runs ares_library_cleanup() at exit, after every channel is gone.
class AresLibrary {
 public:
  AresLibrary() : status_(ares_library_init(ARES_LIB_INIT_ALL)) {}
  ~AresLibrary() {
    if (status_ == ARES_SUCCESS) ares_library_cleanup();
  }
  int status() const { return status_; }

 private:
  int status_;
};

// One family's outcome inside a transaction.
struct FamilyResult {
  int error = ERR_FAILED;
  bool nxdomain = false;  // The server said the name does not exist (not merely NODATA).
  std::vector<IPAddress> addresses;
  TimeDelta ttl = TimeDelta::max();
};

// Builds a FamilyResult from an ares_getaddrinfo() answer. Never throws.
FamilyResult ConvertAnswer(int status, const ares_addrinfo* answer) noexcept {
  FamilyResult result;
  if (status != ARES_SUCCESS) {
    result.error = MapAresStatus(status);
    result.nxdomain = status == ARES_ENOTFOUND;
    return result;
  }
  try {
    for (const ares_addrinfo_node* node = answer ? answer->nodes : nullptr; node;
         node = node->ai_next) {
      auto endpoint = IPEndPoint::FromSockAddr(node->ai_addr);
      if (!endpoint) continue;
      // ai_socktype 0 can yield one node per socket type; keep each address once.
      if (std::find(result.addresses.begin(), result.addresses.end(), endpoint->address()) ==
          result.addresses.end()) {
        result.addresses.push_back(endpoint->address());
      }
      result.ttl = std::min(result.ttl, Seconds(std::max(node->ai_ttl, 0)));
    }
    // A CNAME on the way to the addresses bounds the answer's life too.
    for (const ares_addrinfo_cname* cname = answer ? answer->cnames : nullptr; cname;
         cname = cname->next) {
      result.ttl = std::min(result.ttl, Seconds(std::max(cname->ttl, 0)));
    }
  } catch (...) {
    result = FamilyResult();
    result.error = ERR_OUT_OF_MEMORY;
    return result;
  }
  // NOERROR with no usable address record is NODATA: the name has no address of this family.
  result.error = result.addresses.empty() ? ERR_NAME_NOT_RESOLVED : OK;
  return result;
}

// Combines the per-family outcomes (IPv6 first when both were asked):
// - success if any family has addresses (IPv6 ones first), TTL = the smallest TTL among the
//   families that answered; a failure of the other family is dropped, as Chrome does, because
//   the connect job only needs one family.
// - otherwise, if either family got NXDOMAIN, ERR_NAME_NOT_RESOLVED: the name does not exist,
//   whatever happened to the other query;
// - otherwise the most informative error: a server-side failure (SERVFAIL, REFUSED, timeout,
//   malformed) beats NODATA, since "the server failed" is the actionable message when the
//   other family merely had no records; between two such errors the IPv4 one wins (A is the
//   query every server answers).
DnsTransportResult CombineFamilies(std::vector<FamilyResult>& parts) {
  DnsTransportResult result;
  TimeDelta ttl = TimeDelta::max();
  for (FamilyResult& part : parts) {
    if (part.error != OK) continue;
    result.addresses.insert(result.addresses.end(), part.addresses.begin(), part.addresses.end());
    ttl = std::min(ttl, part.ttl);
  }
  if (!result.addresses.empty()) {
    result.error = OK;
    result.ttl = ttl == TimeDelta::max() ? TimeDelta::zero() : ttl;
    return result;
  }
  result.error = ERR_NAME_NOT_RESOLVED;
  for (const FamilyResult& part : parts) {
    if (part.nxdomain) return result;
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (it->error != ERR_NAME_NOT_RESOLVED) {
      result.error = it->error;
      break;
    }
  }
  return result;
}

}  // namespace

int EnsureAresLibraryInitialized() {
  static AresLibrary library;
  return library.status();
}

int MapAresStatus(int status) {
  switch (status) {
    case ARES_SUCCESS:
      return OK;
    case ARES_ENOTFOUND:
    case ARES_ENODATA:
    case ARES_EBADNAME:
      return ERR_NAME_NOT_RESOLVED;
    case ARES_ESERVFAIL:
    case ARES_EFORMERR:
    case ARES_ENOTIMP:
      return ERR_DNS_SERVER_FAILED;
    case ARES_EREFUSED:
      return ERR_DNS_REFUSED;
    case ARES_ETIMEOUT:
      return ERR_DNS_TIMED_OUT;
    case ARES_EBADRESP:
      return ERR_DNS_MALFORMED_RESPONSE;
    case ARES_ECONNREFUSED:
      return ERR_CONNECTION_REFUSED;
    case ARES_ENOMEM:
      return ERR_OUT_OF_MEMORY;
    case ARES_EDESTRUCTION:
    case ARES_ECANCELLED:
      return ERR_ABORTED;
    default:
      return ERR_FAILED;
  }
}

// One uv_poll_t per c-ares socket. `transport` is cleared when the poll is closed, so an event
// already queued for a closing handle is ignored.
struct AresDnsTransport::Poll {
  uv_poll_t handle;
  AresDnsTransport* transport = nullptr;
  ares_socket_t fd = ARES_SOCKET_BAD;
};

// A lookup: one ares_getaddrinfo() call per family. Each call gets a heap Query that c-ares owns
// until its callback runs (it always runs once: with the answer, or ARES_EDESTRUCTION from
// ares_destroy()). Cancelling detaches the Queries, which are then freed by their callbacks
// without touching the transaction.
class AresDnsTransport::Transaction : public DnsTransaction {
 public:
  struct Query {
    Transaction* transaction;  // Null once the transaction is gone.
    size_t index;              // Into parts_.
  };

  Transaction(AresDnsTransport* transport, Callback callback)
      : transport_(transport), callback_(std::move(callback)) {}

  ~Transaction() override {
    for (Query* query : pending_) query->transaction = nullptr;
    if (transport_) {
      if (delivery_task_ != kNoTask) transport_->scheduler_.CancelTask(delivery_task_);
      transport_->transactions_.erase(this);
    }
  }

  void Start(const std::string& hostname, AddressFamily family) {
    std::vector<int> families;
    if (family != AddressFamily::kIPv4) families.push_back(AF_INET6);
    if (family != AddressFamily::kIPv6) families.push_back(AF_INET);
    parts_.resize(families.size());
    // Register every query before issuing any: c-ares may complete one inside
    // ares_getaddrinfo() (a bad name, no memory), and completion counts the pending ones.
    std::vector<Query*> queries;
    for (size_t i = 0; i < families.size(); ++i) queries.push_back(new Query{this, i});
    pending_ = queries;
    for (size_t i = 0; i < families.size(); ++i) {
      ares_addrinfo_hints hints = {};
      hints.ai_family = families[i];
      // We order addresses ourselves; 1.18's RFC 6724 sort would open a probe socket per address.
      hints.ai_flags = ARES_AI_NOSORT;
      ares_getaddrinfo(transport_->channel_, hostname.c_str(), nullptr, &hints, &OnAddrInfo,
                       queries[i]);
    }
  }

  // The transport is going away: never call back, never touch it again.
  void OnTransportDestroyed() {
    if (delivery_task_ != kNoTask) transport_->scheduler_.CancelTask(delivery_task_);
    delivery_task_ = kNoTask;
    for (Query* query : pending_) query->transaction = nullptr;
    pending_.clear();
    transport_ = nullptr;
  }

 private:
  // ares_addrinfo_callback. Runs inside ares_getaddrinfo(), ares_process_fd() or ares_destroy();
  // it only records the result (no user code runs here) and must not throw.
  static void OnAddrInfo(void* arg, int status, int /*timeouts*/, ares_addrinfo* answer) {
    std::unique_ptr<Query> query(static_cast<Query*>(arg));
    std::unique_ptr<ares_addrinfo, void (*)(ares_addrinfo*)> owned_answer(answer,
                                                                          &ares_freeaddrinfo);
    if (query->transaction) query->transaction->OnQueryComplete(query.get(), status, answer);
  }

  void OnQueryComplete(Query* query, int status, const ares_addrinfo* answer) noexcept {
    pending_.erase(std::remove(pending_.begin(), pending_.end(), query), pending_.end());
    if (status == ARES_EDESTRUCTION || status == ARES_ECANCELLED) {
      // The channel is being torn down under us: this transaction will never complete.
      aborted_ = true;
      return;
    }
    parts_[query->index] = ConvertAnswer(status, answer);
    if (!pending_.empty() || aborted_ || !transport_) return;
    // Deliver from a task of our own, never from inside c-ares: the user callback may start
    // lookups, destroy this transaction, or destroy the transport (ares_destroy() inside
    // ares_process_fd() would be a use-after-free in c-ares).
    try {
      delivery_task_ = transport_->scheduler_.PostTask([this] { Deliver(); });
    } catch (...) {
      aborted_ = true;  // Out of memory: fail closed (the resolver's caller times out).
    }
  }

  void Deliver() {
    delivery_task_ = kNoTask;
    DnsTransportResult result = CombineFamilies(parts_);
    Callback callback = std::move(callback_);
    callback(result);  // May destroy `this`.
  }

  AresDnsTransport* transport_;
  Callback callback_;
  std::vector<Query*> pending_;      // Issued and not yet called back; owned by c-ares.
  std::vector<FamilyResult> parts_;  // IPv6 first when both families are asked.
  TaskId delivery_task_ = kNoTask;
  bool aborted_ = false;
};

std::unique_ptr<AresDnsTransport> AresDnsTransport::Create(uv_loop_t* loop, Scheduler& scheduler,
                                                           const Options& options,
                                                           std::string* error) {
  int status = EnsureAresLibraryInitialized();
  if (status != ARES_SUCCESS) {
    if (error) *error = std::string("c-ares library init failed: ") + ares_strerror(status);
    return nullptr;
  }
  std::unique_ptr<AresDnsTransport> transport(new AresDnsTransport(loop, scheduler, options));

  ares_options opts = {};
  int optmask = ARES_OPT_FLAGS | ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES |
                ARES_OPT_LOOKUPS;
  // SERVFAIL and REFUSED answers end the query with ARES_ESERVFAIL / ARES_EREFUSED. Without
  // this flag c-ares 1.18 retries every server on them and then reports ARES_ECONNREFUSED,
  // hiding the server's answer; distinct errors were chosen over failing over on these two
  // answers. Timeouts and unreachable servers still fail over to the next server.
  opts.flags = ARES_FLAG_NOCHECKRESP;
  opts.sock_state_cb = &AresDnsTransport::OnSockState;
  opts.sock_state_cb_data = transport.get();
  opts.timeout =
      static_cast<int>(std::clamp<int64_t>(options.timeout.count() / 1000, 1, 24 * 3600 * 1000));
  opts.tries = std::max(options.tries, 1);
  // c-ares copies the string.
  char lookups_dns[] = "b";
  char lookups_hosts_then_dns[] = "fb";
  opts.lookups = options.use_hosts_file ? lookups_hosts_then_dns : lookups_dns;
  if (!options.use_search_domains) {
    // An explicit empty domain list keeps c-ares from reading one from resolv.conf.
    optmask |= ARES_OPT_DOMAINS;
    opts.domains = nullptr;
    opts.ndomains = 0;
  }
  status = ares_init_options(&transport->channel_, &opts, optmask);
  if (status != ARES_SUCCESS) {
    transport->channel_ = nullptr;
    if (error) *error = std::string("c-ares init failed: ") + ares_strerror(status);
    return nullptr;
  }
  if (!options.servers.empty()) {
    std::string csv;
    for (const IPEndPoint& server : options.servers) {
      if (!csv.empty()) csv += ",";
      csv += server.ToString();  // "1.2.3.4:53" or "[::1]:53", the format c-ares parses.
    }
    status = ares_set_servers_ports_csv(transport->channel_, csv.c_str());
    if (status != ARES_SUCCESS) {
      if (error) *error = "bad DNS server list \"" + csv + "\": " + ares_strerror(status);
      return nullptr;  // The destructor destroys the channel.
    }
  }
  return transport;
}

AresDnsTransport::AresDnsTransport(uv_loop_t* loop, Scheduler& scheduler, const Options& options)
    : loop_(loop), scheduler_(scheduler), options_(options), timer_(scheduler) {}

AresDnsTransport::~AresDnsTransport() {
  // Detach the transactions first so that the ARES_EDESTRUCTION callbacks only free memory.
  for (Transaction* transaction : transactions_) transaction->OnTransportDestroyed();
  transactions_.clear();
  timer_.Stop();
  if (channel_) {
    // Calls OnSockState(fd, 0, 0) for each open socket, then the pending query callbacks.
    ares_destroy(channel_);
    channel_ = nullptr;
  }
  // c-ares reported every socket closed; close any poll it did not (defensive).
  for (auto& [fd, poll] : polls_) ClosePoll(poll);
  polls_.clear();
}

std::unique_ptr<DnsTransaction> AresDnsTransport::StartLookup(const std::string& hostname,
                                                              AddressFamily family,
                                                              Callback callback) {
  auto transaction = std::make_unique<Transaction>(this, std::move(callback));
  transactions_.insert(transaction.get());
  transaction->Start(hostname, family);
  RearmTimer();
  return transaction;
}

nlohmann::json AresDnsTransport::GetInfoAsJson() const {
  nlohmann::json servers = nlohmann::json::array();
  ares_addr_port_node* nodes = nullptr;
  if (channel_ && ares_get_servers_ports(channel_, &nodes) == ARES_SUCCESS) {
    for (ares_addr_port_node* node = nodes; node; node = node->next) {
      char text[INET6_ADDRSTRLEN] = {0};
      ares_inet_ntop(node->family, &node->addr, text, sizeof(text));
      int port = node->udp_port ? node->udp_port : 53;
      servers.push_back(node->family == AF_INET6
                            ? "[" + std::string(text) + "]:" + std::to_string(port)
                            : std::string(text) + ":" + std::to_string(port));
    }
    ares_free_data(nodes);
  }
  return {
      {"type", "c-ares"},
      {"version", ares_version(nullptr)},
      {"servers", std::move(servers)},
      {"timeout_ms", ToMilliseconds(options_.timeout)},
      {"tries", options_.tries},
      {"search_domains", options_.use_search_domains},
      {"hosts_file", options_.use_hosts_file},
      {"open_sockets", polls_.size()},
      {"active_transactions", transactions_.size()},
  };
}

void AresDnsTransport::OnSockState(void* data, ares_socket_t fd, int readable, int writable) {
  // A C callback: nothing may be thrown through c-ares.
  try {
    static_cast<AresDnsTransport*>(data)->UpdatePoll(fd, readable != 0, writable != 0);
  } catch (...) {
    // Out of memory creating a poll: the query cannot progress and times out via the timer.
  }
}

void AresDnsTransport::UpdatePoll(ares_socket_t fd, bool readable, bool writable) {
  auto it = polls_.find(fd);
  if (!readable && !writable) {
    // c-ares closes `fd` right after this returns; libuv must stop watching it first.
    if (it == polls_.end()) return;
    Poll* poll = it->second;
    polls_.erase(it);
    ClosePoll(poll);
    return;
  }
  Poll* poll = nullptr;
  if (it == polls_.end()) {
    auto fresh = std::make_unique<Poll>();
    fresh->transport = this;
    fresh->fd = fd;
    fresh->handle.data = fresh.get();
    // On failure the handle was never initialised, so it may be freed right away.
    if (uv_poll_init(loop_, &fresh->handle, fd) != 0) return;
    poll = fresh.release();
    polls_.emplace(fd, poll);
  } else {
    poll = it->second;
  }
  int events = (readable ? UV_READABLE : 0) | (writable ? UV_WRITABLE : 0);
  uv_poll_start(&poll->handle, events, &AresDnsTransport::OnPollEvent);
}

void AresDnsTransport::ClosePoll(Poll* poll) {
  poll->transport = nullptr;
  uv_poll_stop(&poll->handle);
  uv_close(reinterpret_cast<uv_handle_t*>(&poll->handle),
           [](uv_handle_t* handle) { delete static_cast<Poll*>(handle->data); });
}

void AresDnsTransport::OnPollEvent(uv_poll_t* handle, int status, int events) {
  auto* poll = static_cast<Poll*>(handle->data);
  AresDnsTransport* self = poll->transport;
  if (!self || !self->channel_) return;
  ares_socket_t read_fd = ARES_SOCKET_BAD;
  ares_socket_t write_fd = ARES_SOCKET_BAD;
  if (status < 0) {
    // A socket error: let c-ares read and write so it sees the error and fails over.
    read_fd = write_fd = poll->fd;
  } else {
    if (events & UV_READABLE) read_fd = poll->fd;
    if (events & UV_WRITABLE) write_fd = poll->fd;
  }
  // May close this very socket (OnSockState(fd, 0, 0) closes `poll`); `poll` is not used after.
  ares_process_fd(self->channel_, read_fd, write_fd);
  self->RearmTimer();
}

void AresDnsTransport::RearmTimer() {
  timeval tv = {};
  if (!channel_ || !ares_timeout(channel_, nullptr, &tv)) {
    timer_.Stop();  // No query in flight.
    return;
  }
  TimeDelta delay = Seconds(tv.tv_sec) + std::chrono::microseconds(tv.tv_usec);
  timer_.Start(delay, [this] { OnTimer(); });
}

void AresDnsTransport::OnTimer() {
  // Both fds BAD: c-ares only processes its timeouts (retries, next server, ARES_ETIMEOUT).
  ares_process_fd(channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
  RearmTimer();
}

}  // namespace netstack
