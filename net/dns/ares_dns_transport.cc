#include "net/dns/ares_dns_transport.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <algorithm>
#include <cassert>
#include <utility>

#include "net/base/uv_error.h"

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

// While an answer waits for a delivery task that could not be posted (out of memory), the
// transport's timer retries this often.
constexpr TimeDelta kDeliveryRetryDelay = std::chrono::milliseconds(10);

}  // namespace

int EnsureAresLibraryInitialized() {
  static AresLibrary library;
  return library.status();
}

// One uv_poll_t per c-ares socket. `transport` is cleared when the poll is closed, so an event
// already queued for a closing handle is ignored.
struct AresDnsTransport::Poll {
  uv_poll_t handle;
  AresDnsTransport* transport = nullptr;
  ares_socket_t fd = ARES_SOCKET_BAD;
};

// A lookup: one ares_getaddrinfo() call per family. Each call gets a heap Query that c-ares owns
// until its callback runs (it always runs once: with the answer, ARES_ECANCELLED from
// ares_cancel() or ARES_EDESTRUCTION from ares_destroy()). Cancelling detaches the Queries, which
// are then freed by their callbacks without touching the transaction.
class AresDnsTransport::Transaction : public DnsTransaction {
 public:
  struct Query {
    Transaction* transaction;  // Null once the transaction is gone.
    size_t index;              // Into parts_.
    int family;                // AF_INET6 or AF_INET: what the query asks for
  };

  Transaction(AresDnsTransport* transport, Callback callback)
      : transport_(transport), callback_(std::move(callback)), delivery_(transport->scheduler_) {}

  ~Transaction() override {
    for (Query* query : pending_) query->transaction = nullptr;
    delivery_.Stop();
    if (transport_) transport_->OnTransactionDestroyed(this);
  }

  void Start(const std::string& hostname, AddressFamily family) {
    // At most two families, so fixed arrays: no allocation beyond the Queries c-ares holds.
    int families[2];
    size_t count = 0;
    if (family != AddressFamily::kIPv4) families[count++] = AF_INET6;
    if (family != AddressFamily::kIPv6) families[count++] = AF_INET;
    parts_.resize(count);
    // Register every query before issuing any: c-ares may complete one inside
    // ares_getaddrinfo() (a bad name, no memory), and completion counts the pending ones.
    pending_.reserve(count);
    for (size_t i = 0; i < count; ++i) pending_.push_back(new Query{this, i, families[i]});
    Query* queries[2] = {pending_[0], count > 1 ? pending_[1] : nullptr};
    for (size_t i = 0; i < count; ++i) {
      ares_addrinfo_hints hints = {};
      hints.ai_family = families[i];
      // We order addresses ourselves; 1.18's RFC 6724 sort would open a probe socket per address.
      hints.ai_flags = ARES_AI_NOSORT;
      ares_getaddrinfo(transport_->channel_, hostname.c_str(), nullptr, &hints, &OnAddrInfo,
                       queries[i]);
    }
  }

  // True while c-ares still owes an answer to one of our queries.
  bool in_flight() const { return !pending_.empty(); }
  // True if the answer is complete but its delivery task could not be posted yet.
  bool needs_delivery() const { return needs_delivery_; }

  // Ends the lookup with `error` whatever c-ares still has to say: the queries are detached (the
  // caller cancels them in c-ares) and the failure is delivered from a task.
  void Fail(int error, const std::string& detail) noexcept {
    for (Query* query : pending_) query->transaction = nullptr;
    pending_.clear();
    failure_ = error;
    try {
      failure_detail_ = detail;
    } catch (...) {
      failure_detail_.clear();  // Out of memory: the error code alone will do.
    }
    PostDelivery();
  }

  // Posts the task that runs the callback. If that fails (out of memory), the lookup will end
  // with ERR_OUT_OF_MEMORY, and the transport retries the post from outside c-ares
  // (AfterAresCall() and its timer) until it succeeds: the lookup always completes.
  void PostDelivery() noexcept {
    try {
      delivery_.Start(TimeDelta::zero(), [this] { Deliver(); });
      needs_delivery_ = false;
    } catch (...) {
      if (failure_ == OK) failure_ = ERR_OUT_OF_MEMORY;
      needs_delivery_ = true;
      transport_->delivery_retry_needed_ = true;
    }
  }

  // The transport is going away: never call back, never touch it again.
  void OnTransportDestroyed() {
    delivery_.Stop();  // the scheduler may go with the transport: the timer never touches it again
    needs_delivery_ = false;
    for (Query* query : pending_) query->transaction = nullptr;
    pending_.clear();
    transport_ = nullptr;
  }

 private:
  // ares_addrinfo_callback. Runs inside ares_getaddrinfo(), ares_process_fd(), ares_cancel() or
  // ares_destroy(); it only records the result (no user code runs here) and must not throw.
  static void OnAddrInfo(void* arg, int status, int /*timeouts*/, ares_addrinfo* answer) {
    std::unique_ptr<Query> query(static_cast<Query*>(arg));
    std::unique_ptr<ares_addrinfo, void (*)(ares_addrinfo*)> owned_answer(answer,
                                                                          &ares_freeaddrinfo);
    if (query->transaction) query->transaction->OnQueryComplete(query.get(), status, answer);
  }

  void OnQueryComplete(Query* query, int status, const ares_addrinfo* answer) noexcept {
    pending_.erase(std::remove(pending_.begin(), pending_.end(), query), pending_.end());
    // A cancelled or destroyed query is recorded as ERR_ABORTED like any other outcome, so the
    // transaction still completes (the transport detaches its transactions before it cancels or
    // destroys queries, so this is a safety net).
    parts_[query->index] = ConvertAresAnswer(status, answer, query->family);
    if (!pending_.empty() || !transport_) return;
    // Deliver from a task of our own, never from inside c-ares: the user callback may start
    // lookups, destroy this transaction, or destroy the transport (ares_destroy() inside
    // ares_process_fd() would be a use-after-free in c-ares).
    PostDelivery();
  }

  void Deliver() {
    DnsTransportResult result;
    if (failure_ != OK) {
      result.error = failure_;
      result.detail = failure_detail_.empty() && failure_ == ERR_OUT_OF_MEMORY
                          ? "out of memory delivering the answer"
                          : failure_detail_;
    } else {
      result = CombineAresFamilies(parts_, transport_->server_info_);
    }
    Callback callback = std::move(callback_);
    callback(result);  // May destroy `this`.
  }

  AresDnsTransport* transport_;
  Callback callback_;
  std::vector<Query*> pending_;          // Issued and not yet called back; owned by c-ares.
  std::vector<AresFamilyResult> parts_;  // IPv6 first when both families are asked.
  OneShotTimer delivery_;  // the posted delivery (a task for now), cancelled with the transaction
  bool needs_delivery_ = false;
  int failure_ = OK;  // Overrides the answer: out of memory, a socket libuv would not watch.
  std::string failure_detail_;
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
  if (!transport->InitChannel(error)) return nullptr;  // The destructor destroys any channel.
  std::string servers;
  for (const std::string& server : transport->ServerStrings()) {
    if (!servers.empty()) servers += ", ";
    servers += server;
  }
  transport->server_info_ = {servers.empty() ? "the system's DNS servers" : servers,
                             std::max(options.tries, 1)};
  return transport;
}

bool AresDnsTransport::InitChannel(std::string* error) {
  ares_options opts = {};
  int optmask = ARES_OPT_FLAGS | ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES |
                ARES_OPT_LOOKUPS;
  // SERVFAIL and REFUSED answers end the query with ARES_ESERVFAIL / ARES_EREFUSED. Without
  // this flag c-ares 1.18 retries every server on them and then reports ARES_ECONNREFUSED,
  // hiding the server's answer; distinct errors were chosen over failing over on these two
  // answers. Timeouts and unreachable servers still fail over to the next server.
  //
  // STAYOPEN: without it c-ares closes its socket whenever its last query is answered, and a
  // resolver that starts the next lookup from the answer's task (always: answers are delivered
  // from tasks) closed and reopened a socket every few lookups: socket, connect, fcntl, ioctl,
  // epoll_ctl and close for about one lookup in six at six in flight. The sockets are closed
  // instead when the transport has no transaction left (RecycleChannel()).
  opts.flags = ARES_FLAG_NOCHECKRESP | ARES_FLAG_STAYOPEN;
  opts.sock_state_cb = &AresDnsTransport::OnSockState;
  opts.sock_state_cb_data = this;
  opts.timeout = static_cast<int>(ToMilliseconds(first_try_timeout_));
  opts.tries = std::max(options_.tries, 1);
  // c-ares copies the string.
  char lookups_dns[] = "b";
  char lookups_hosts_then_dns[] = "fb";
  opts.lookups = options_.use_hosts_file ? lookups_hosts_then_dns : lookups_dns;
  if (!options_.use_search_domains) {
    // An explicit empty domain list keeps c-ares from reading one from resolv.conf.
    optmask |= ARES_OPT_DOMAINS;
    opts.domains = nullptr;
    opts.ndomains = 0;
  }
  int status = ares_init_options(&channel_, &opts, optmask);
  if (status != ARES_SUCCESS) {
    channel_ = nullptr;
    if (error) *error = std::string("c-ares init failed: ") + ares_strerror(status);
    return false;
  }
  if (!options_.servers.empty()) {
    std::string csv;
    for (const IPEndPoint& server : options_.servers) {
      if (!csv.empty()) csv += ",";
      csv += server.ToString();  // "1.2.3.4:53" or "[::1]:53", the format c-ares parses.
    }
    status = ares_set_servers_ports_csv(channel_, csv.c_str());
    if (status != ARES_SUCCESS) {
      if (error) *error = "bad DNS server list \"" + csv + "\": " + ares_strerror(status);
      return false;  // The channel stays; the caller destroys it.
    }
  }
  return true;
}

void AresDnsTransport::RecycleChannel() {
  if (!channel_) return;
  // Every query still in c-ares belongs to a transaction that has failed or gone (callers make
  // sure), so the ARES_EDESTRUCTION callbacks only free memory; OnSockState(fd, 0, 0) closes the
  // polls.
  ares_destroy(channel_);
  channel_ = nullptr;
  timer_.Stop();
  std::string error;
  if (!InitChannel(&error)) {
    // Out of memory, most likely. The next StartLookup() tries again and fails its lookup with
    // this if it cannot.
    if (channel_) ares_destroy(channel_);
    channel_ = nullptr;
  }
}

AresDnsTransport::AresDnsTransport(uv_loop_t* loop, Scheduler& scheduler, const Options& options)
    : loop_(loop),
      scheduler_(scheduler),
      options_(options),
      first_try_timeout_(
          Milliseconds(std::clamp<int64_t>(options.timeout.count() / 1000, 1, 24 * 3600 * 1000))),
      timer_(scheduler) {}

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
  std::string error;
  if (!channel_ && !InitChannel(&error)) {
    // A recycled channel could not be made again: this lookup fails (from a task, as always)
    // and the next one tries again.
    if (channel_) ares_destroy(channel_);
    channel_ = nullptr;
    transaction->Fail(ERR_FAILED, error);
    return transaction;
  }
  transaction->Start(hostname, family);
  AfterAresCall();
  return transaction;
}

void AresDnsTransport::OnTransactionDestroyed(Transaction* transaction) {
  transactions_.erase(transaction);
  if (!transactions_.empty() || !channel_) return;
  delivery_retry_needed_ = false;
  // Safe here: user code (the only caller) never runs inside c-ares. c-ares 1.18 cannot cancel
  // one query, only all of them, so this is done when none is wanted any more. Its sockets stay
  // open (ARES_FLAG_STAYOPEN) until the channel goes: a new channel drops c-ares's queries and
  // closes them, so an idle transport holds no socket (nor keeps the loop running), and the
  // next busy period starts on a fresh socket with a fresh source port.
  timeval tv = {};
  if (!polls_.empty() || ares_timeout(channel_, nullptr, &tv)) RecycleChannel();
  timer_.Stop();
}

std::vector<std::string> AresDnsTransport::ServerStrings() const {
  std::vector<std::string> servers;
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
  return servers;
}

nlohmann::json AresDnsTransport::GetInfoAsJson() const {
  return {
      {"type", "c-ares"},
      {"version", ares_version(nullptr)},
      {"servers", ServerStrings()},
      {"timeout_ms", ToMilliseconds(options_.timeout)},
      {"tries", options_.tries},
      {"search_domains", options_.use_search_domains},
      {"hosts_file", options_.use_hosts_file},
      {"open_sockets", polls_.size()},
      {"active_transactions", transactions_.size()},
  };
}

void AresDnsTransport::OnSockState(void* data, ares_socket_t fd, int readable, int writable) {
  auto* self = static_cast<AresDnsTransport*>(data);
  // A C callback: nothing may be thrown through c-ares.
  try {
    self->UpdatePoll(fd, readable != 0, writable != 0);
  } catch (...) {
    // Out of memory creating a poll: the socket cannot be watched.
    self->OnPollFailure(ERR_OUT_OF_MEMORY, "out of memory", 0);
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
    // The map slot first: if that throws, no handle exists yet.
    auto slot = polls_.emplace(fd, fresh.get()).first;
    int rv = poll_functions_.init(loop_, &fresh->handle, fd);
    if (rv != 0) {
      // The handle was never initialised, so it may be freed right away.
      polls_.erase(slot);
      OnPollFailure(MapUvError(rv), "uv_poll_init", rv);
      return;
    }
    poll = fresh.release();
  } else {
    poll = it->second;
  }
  int events = (readable ? UV_READABLE : 0) | (writable ? UV_WRITABLE : 0);
  int rv = poll_functions_.start(&poll->handle, events, &AresDnsTransport::OnPollEvent);
  // The poll stays in polls_ (initialised handles are closed, never just freed); c-ares closes
  // the socket when FailInFlightLookups() cancels its queries, which closes the poll.
  if (rv != 0) OnPollFailure(MapUvError(rv), "uv_poll_start", rv);
}

void AresDnsTransport::OnPollFailure(int net_error, const char* what, int uv_error) noexcept {
  if (poll_error_ != OK) return;  // The first failure explains the rest.
  poll_error_ = net_error;
  try {
    poll_error_detail_ = std::string("cannot watch the DNS socket: ") + what;
    if (uv_error != 0) poll_error_detail_ += std::string(" failed: ") + uv_strerror(uv_error);
  } catch (...) {
    poll_error_detail_.clear();
  }
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
  self->AfterAresCall();
}

void AresDnsTransport::AfterAresCall() noexcept {
  try {
    if (poll_error_ != OK) FailInFlightLookups();
    if (delivery_retry_needed_) {
      delivery_retry_needed_ = false;
      for (Transaction* transaction : transactions_) {
        if (transaction->needs_delivery()) transaction->PostDelivery();  // May fail again.
      }
    }
    RearmTimer();
  } catch (...) {
    // Out of memory arming the timer (we may be inside a libuv callback: nothing is thrown).
    // The resolver's job deadline still ends every lookup.
  }
}

void AresDnsTransport::FailInFlightLookups() {
  const int error = poll_error_;
  const std::string detail = std::move(poll_error_detail_);
  poll_error_ = OK;
  poll_error_detail_.clear();
  // c-ares does not say which queries use which socket, and any in-flight query may be sent on
  // the unwatched one: every in-flight lookup is affected.
  for (Transaction* transaction : transactions_) {
    if (transaction->in_flight()) transaction->Fail(error, detail);
  }
  // Only orphaned queries are left: their callbacks free memory. A new channel drops them and
  // closes c-ares's sockets (STAYOPEN keeps them open otherwise), so the next lookup starts on a
  // fresh socket.
  RecycleChannel();
}

void AresDnsTransport::RearmTimer() {
  // Every query c-ares schedules times out at least one first-try timeout from now, so a timer
  // due before that is early enough whatever happened; this skips ares_timeout(), which walks
  // every query in flight (1.18), on almost every call.
  if (!delivery_retry_needed_ && timer_.IsRunning() &&
      timer_.desired_run_time() <= scheduler_.Now() + first_try_timeout_) {
    return;
  }
  timeval tv = {};
  const bool queries = channel_ && ares_timeout(channel_, nullptr, &tv);
  if (!queries && !delivery_retry_needed_) {
    timer_.Stop();  // Nothing in flight.
    return;
  }
  TimeDelta delay =
      queries ? Seconds(tv.tv_sec) + std::chrono::microseconds(tv.tv_usec) : kDeliveryRetryDelay;
  if (delivery_retry_needed_) delay = std::min(delay, kDeliveryRetryDelay);
  // A timer already due no later than needed is kept: this runs after every c-ares call (each
  // answer, each new lookup), and re-posting the timer each time was a task posted and
  // cancelled per call. Firing early is harmless: OnTimer() lets c-ares check its timeouts
  // (nothing is due yet) and re-arms from ares_timeout().
  if (timer_.IsRunning() && timer_.desired_run_time() <= scheduler_.Now() + delay) return;
  timer_.Start(delay, [this] { OnTimer(); });
}

void AresDnsTransport::OnTimer() {
  // Both fds BAD: c-ares only processes its timeouts (retries, next server, ARES_ETIMEOUT).
  if (channel_) ares_process_fd(channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
  AfterAresCall();
}

}  // namespace netstack
