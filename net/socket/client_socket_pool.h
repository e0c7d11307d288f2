// ClientSocketPool: Chrome's TransportClientSocketPool semantics over ConnectJobs. Sockets are
// pooled per group ({scheme, host, port}); the rules, each with a unit test:
//
// - Limits: max_sockets_per_group (6) and max_sockets (256) count handed-out, idle and
//   connecting sockets. A request over the group limit waits (SOCKET_POOL_STALLED_MAX_SOCKETS_
//   PER_GROUP). At the pool limit the least recently used idle socket of another group is
//   closed to make room; if there is none the group is stalled (SOCKET_POOL_STALLED_MAX_SOCKETS)
//   and, when a slot frees, the stalled group with the highest-priority request (then the
//   longest-waiting one) is served first.
// - Idle reuse: the most recently used idle socket first; if none was ever used, the oldest
//   never-used (preconnected) one. Idle sockets found closed (or, for used ones, with unread
//   data) are discarded. Never-used idle sockets close after unused_idle_socket_timeout (10 s),
//   used ones after used_idle_socket_timeout (300 s), on a timer armed for the next expiry.
// - Late binding: connect jobs belong to the group, not to a request. A finished job's socket
//   (or error) goes to the group's highest-priority waiting request, FIFO among equals; with no
//   request waiting the socket becomes idle (never used). Jobs' priorities follow the requests
//   (the top N requests' priorities go to the N jobs) and reach the host resolver.
// - Cancelling a pending request keeps its connect job running (Chrome): its socket will serve
//   the next request or wait idle. Exception: when the pool is at max_sockets (or the caller used
//   ResetAndCloseSocket) and the group now has more jobs than requests, the newest job (the one
//   least likely to be nearly done) is cancelled so the slot can serve a stalled group.
// - Backup job: when a group with no sockets at all starts its first job, a timer
//   (backup_connect_job_delay, 250 ms) starts. If it fires while the first job has not yet
//   connected TCP, a second job starts for the top request (SOCKET_BACKUP_CREATED on that
//   request's log). If the first job is still resolving the host, or the group or pool is at its
//   limit, the timer is re-armed instead. Both jobs are ordinary late-bound jobs: whichever
//   connects first serves the top request; the other keeps running and serves the next waiting
//   request or becomes an idle never-used socket (subject to the 10 s unused timeout). The timer
//   stops when the group has no more jobs or no more requests.
// - Preconnect (RequestSockets): IDLE-priority jobs without a handle until the group has N
//   sockets (connecting + idle + handed out); their sockets become idle never-used ones. A later
//   request arriving while preconnect jobs are still connecting waits for one of them instead of
//   starting its own.
// - Flush (FlushWithError): cancels every connect job, closes idle sockets, fails pending
//   requests with the error and bumps the generation, so sockets handed out before the flush are
//   closed when released rather than kept.
//
// Re-entrancy: the pool never runs a user callback from inside one of its methods. Completion
// callbacks are posted to the Scheduler and tracked by handle; cancelling the request (Reset or
// destroying the handle) before the task runs drops it, and the task holds only a WeakPtr to the
// pool. A callback may therefore call RequestSocket, Reset or destroy any handle, or flush.
// Connect jobs report to the pool from their own I/O callbacks; the pool then destroys the job
// (and any idle socket it closes to serve a stalled group, which may be the job's own socket) in
// a posted task, so no transport socket or resolver request is destroyed inside its own
// callback.
#ifndef NET_SOCKET_CLIENT_SOCKET_POOL_H_
#define NET_SOCKET_CLIENT_SOCKET_POOL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/socket/client_socket_handle.h"
#include "net/socket/connect_job.h"

namespace netstack {

class ClientSocketPool : private ConnectJob::Delegate {
 public:
  // Watches where sockets come from, for the predictor's accounting (predictor/predictor.h).
  // Calls happen inside pool methods or the pool's posted tasks: an observer must not call into
  // the pool from them (post a task instead). Observers must be removed before either side is
  // destroyed (RemoveObserver of an observer not added is a no-op); the pool's destructor
  // reports nothing.
  class Observer {
   public:
    struct Assignment {
      // Where the socket came from (never kNone here; see socket_source.h).
      SocketSource source = SocketSource::kNew;
      // The request's connect wait (ConnectWaitMs of the job's ConnectTiming from the request's
      // start, RequestSocket's `request_start`): the same number its record's phases give
      // (LoadTimingPhases::connect_wait_ms()). 0 for an idle socket. Time queued behind the
      // pool's limits is not in it.
      double connect_wait_ms = 0;
      // The request was speculative (RequestSocket's `speculative`, Chrome's LOAD_PREFETCH: a
      // fetch ahead): no page needed this connection.
      bool speculative = false;
      // The request was a background one: IDLE priority when it got the socket (pings,
      // beacons, prefetches, the HTTP cache's background revalidations, which all run at IDLE):
      // off the page's critical path, so the predictor counts its use apart.
      bool background = false;
    };
    virtual ~Observer() = default;
    // A request with a handle got its socket: when RequestSocket returns OK, or else from the
    // posted completion task just before the request's callback runs. Not called for requests
    // that fail, nor for those cancelled (Reset) before their callback ran: a preconnected
    // socket such a request held is again a preconnected idle socket (or reported closed).
    virtual void OnSocketAssigned(const SchemeHostPort& group, const Assignment& assignment) {}
    // RequestSockets started one connect job in `group` (once per job).
    virtual void OnPreconnectJobStarted(const SchemeHostPort& group) {}
    // A preconnect job finished: OK (its socket went idle or to a waiting request) or its
    // error. Also called with ERR_ABORTED when the job is cancelled (flush, pool limit).
    virtual void OnPreconnectJobComplete(const SchemeHostPort& group, int result) {}
    // A socket a preconnect job made was closed without ever being handed out (`reason`:
    // "unused idle timeout", "flush", "close idle sockets", "pool limit", "unusable" (its
    // cancelled request closed it), "broken").
    virtual void OnPreconnectedSocketClosedUnused(const SchemeHostPort& group, const char* reason) {
    }
  };

  // Why the pool closes an idle or released socket. CloseReasonString gives the
  // SOCKET_POOL_CLOSING_SOCKET reason (Chrome's wording where Chrome has one),
  // ObserverCloseReason the short form Observer::OnPreconnectedSocketClosedUnused gets.
  enum class CloseReason {
    kRemoteSideClosed,
    kDataReceivedUnexpectedly,
    kClosedWhenReturned,
    kGenerationOutOfDate,
    kMarkedUnusable,
    kIdleTimeLimitExpired,
    kPoolLimit,
    kIdleSocketsClosed,
    kPoolFlushed,
  };
  static const char* CloseReasonString(CloseReason reason);
  static const char* ObserverCloseReason(CloseReason reason);

  struct Params {
    int max_sockets = 256;
    int max_sockets_per_group = 6;
    TimeDelta unused_idle_socket_timeout = Seconds(10);
    TimeDelta used_idle_socket_timeout = Seconds(300);
    TimeDelta backup_connect_job_delay = Milliseconds(250);
    bool enable_backup_jobs = true;
    TimeDelta connect_timeout = Seconds(30);
    TimeDelta ipv6_fallback_delay = Milliseconds(300);
    // Requests waiting in the whole pool; one more fails with ERR_INSUFFICIENT_RESOURCES.
    size_t max_pending_requests = 10000;
    std::string name = "transport_socket_pool";  // "name" in GetInfoAsJson
  };

  // `scheduler`, `host_resolver`, `socket_factory` and `net_log` (may be null) must outlive
  // the pool.
  ClientSocketPool(const Params& params, Scheduler& scheduler, HostResolver* host_resolver,
                   ClientSocketFactory* socket_factory, NetLog* net_log);
  // Cancels connect jobs and closes idle sockets. Pending requests are dropped (their callbacks
  // never run); handed-out sockets stay usable and are closed when their handle lets go.
  ~ClientSocketPool() override;

  ClientSocketPool(const ClientSocketPool&) = delete;
  ClientSocketPool& operator=(const ClientSocketPool&) = delete;

  // Requests a socket of `group_id` for `handle` (owned by the caller; a handle in use is Reset
  // first). `net_log` is the requester's source: SOCKET_POOL begins and ends there, with
  // SOCKET_POOL_REUSED_AN_EXISTING_SOCKET, SOCKET_POOL_BOUND_TO_CONNECT_JOB, SOCKET_POOL_BOUND_
  // TO_SOCKET and the stall events. Returns:
  //  - OK: the handle holds a socket now (an idle one, or a job completed synchronously);
  //  - a net error: a synchronous connect failure, or ERR_INSUFFICIENT_RESOURCES when
  //    max_pending_requests requests already wait;
  //  - ERR_IO_PENDING: `callback` runs later (posted, never inside a pool method) with OK (the
  //    handle holds a socket) or an error (the connect job's error, or FlushWithError's).
  //    Resetting or destroying the handle first cancels: the callback never runs.
  // `speculative` marks a request no page asked for yet (a fetch ahead); it is served like any
  // other and only reported as such to observers (Observer::Assignment::speculative).
  // `request_start` is when the request asking started as its record counts it (the
  // UrlRequest's start; unset: now), for Observer::Assignment::connect_wait_ms.
  int RequestSocket(const SchemeHostPort& group_id, RequestPriority priority,
                    ClientSocketHandle* handle, CompletionCallback callback,
                    const NetLogWithSource& net_log, bool speculative = false,
                    TimeTicks request_start = TimeTicks{});

  // Preconnect: starts IDLE-priority connect jobs until `group_id` has `num_sockets` sockets
  // (connecting + idle + handed out; at most max_sockets_per_group). Their sockets become idle,
  // never used. Logs SOCKET_POOL_CONNECTING_N_SOCKETS on `net_log`. Returns OK (jobs started or
  // nothing to do), a synchronous connect error, or ERR_INSUFFICIENT_RESOURCES when the pool
  // limit left no room. No callback.
  int RequestSockets(const SchemeHostPort& group_id, int num_sockets,
                     const NetLogWithSource& net_log);

  // Moves `handle`'s pending request to `priority` (behind requests already at that priority).
  // No effect if the request is not pending.
  void SetPriority(const SchemeHostPort& group_id, ClientSocketHandle* handle,
                   RequestPriority priority);

  // Adds or removes an observer (not owned; see Observer for its lifetime).
  void AddObserver(Observer* observer);
  void RemoveObserver(Observer* observer);

  // Closes every idle socket (handed-out sockets and connect jobs are untouched).
  void CloseIdleSockets();
  void CloseIdleSocketsInGroup(const SchemeHostPort& group_id);

  // Cancels every connect job, closes idle sockets, fails every pending request with `error`
  // (callbacks posted), and starts a new generation: sockets handed out before are closed when
  // released. Used when the network changes or TLS settings change.
  void FlushWithError(int error);

  // Counts (Chrome's names). A "group" exists while it has requests, jobs or sockets.
  int IdleSocketCount() const { return idle_socket_count_; }
  int handed_out_socket_count() const { return handed_out_socket_count_; }
  int connecting_socket_count() const { return connecting_socket_count_; }
  bool HasGroup(const SchemeHostPort& group_id) const;
  size_t IdleSocketCountInGroup(const SchemeHostPort& group_id) const;
  size_t NumConnectJobsInGroup(const SchemeHostPort& group_id) const;
  // Handed-out sockets of the group.
  int NumActiveSocketsInGroup(const SchemeHostPort& group_id) const;
  size_t NumPendingRequestsInGroup(const SchemeHostPort& group_id) const;
  bool IsBackupJobTimerRunning(const SchemeHostPort& group_id) const;
  // True if some group waits for a slot the pool limit denies.
  bool IsStalled() const;
  int64_t generation() const { return generation_; }
  const Params& params() const { return params_; }

  // Chrome's socket pool info: {name, type, handed_out_socket_count, connecting_socket_count,
  // idle_socket_count, max_socket_count, max_sockets_per_group, pool_generation_number,
  // groups: {"https://h:443": {pending_request_count, top_pending_priority (if any),
  // active_socket_count, idle_sockets: [socket source ids], connect_jobs: [job source ids],
  // backup_job_timer_is_running, is_stalled}}}. For NetLog polledData and the internals page.
  nlohmann::json GetInfoAsJson() const;

  // What one socket is estimated to hold (see EstimateMemoryUsage): a busy live TCP socket's
  // object and its 64 KiB read buffer (uv_tcp_client_socket.h); an idle one gives the buffer
  // back once drained, leaving its object, its uv handle and the pool's entry (measured with
  // tools/bench/idle-sockets: about 2.5 KiB per idle socket in all, BENCHMARKS.md); a TLS socket
  // adds its two 17 KiB ciphertext buffers (ssl_client_socket.h, TlsClientEngine::kBufferSize).
  static constexpr size_t kEstimatedSocketBytes = 64 * 1024 + 512;
  static constexpr size_t kEstimatedIdleSocketBytes = 2 * 1024;
  static constexpr size_t kEstimatedTlsSocketExtraBytes = 2 * 17 * 1024 + 512;

  // For the internals page's Memory view: an estimate of the heap bytes the pool accounts for,
  // not counting sizeof(ClientSocketPool) (net/base/memory_usage_estimator.h's conventions):
  //  - bookkeeping: groups (their keys and state), pending requests, connect jobs
  //    (sizeof(ConnectJob) each), idle-socket entries, posted callbacks, observer lists;
  //  - sockets as the pool knows them: each idle socket at kEstimatedIdleSocketBytes, each
  //    socket waiting in the pool's deletion list and each connect job (its transport socket)
  //    at kEstimatedSocketBytes, plus kEstimatedTlsSocketExtraBytes for an idle socket that
  //    negotiated TLS (TlsVersion() not empty); handed-out sockets (handed_out_socket_count():
  //    their handles hold them, so the pool cannot tell TCP from TLS) at kEstimatedSocketBytes
  //    each.
  // OpenSSL's own share of a TLS socket (its SSL object, BIO pair and record buffers) is not in
  // this estimate: the library counter (tools/internals/library_memory.h) counts it separately
  // and exactly. The figures are the live transports'; simulated sockets hold less. Heap held
  // inside callbacks (std::function captures) is not counted. Drops back to the bookkeeping of
  // the remaining groups once CloseIdleSockets() and the deletion task have run.
  size_t EstimateMemoryUsage() const;

 private:
  friend class ClientSocketHandle;
  struct Request;
  struct IdleSocket;
  class Group;
  struct PendingCallback {
    CompletionCallback callback;
    int result = OK;
    uint64_t id = 0;
    // The socket handed out for it, reported to observers when the callback runs.
    bool report = false;
    Observer::Assignment assignment;
  };
  using GroupMap = std::map<SchemeHostPort, std::unique_ptr<Group>>;

  // From ClientSocketHandle::Reset: `socket` comes back; kept idle if `reusable`, still
  // connected and idle, and of the current generation; closed otherwise. `preconnected`: a
  // preconnect made it and its request was cancelled before learning of it, so it counts as a
  // preconnected idle socket again (or is reported closed unused).
  void ReleaseSocket(const SchemeHostPort& group_id, std::unique_ptr<StreamSocket> socket,
                     int64_t generation, bool reusable, bool preconnected = false);
  // From ClientSocketHandle::Reset while the request is pending (or its callback is posted).
  void CancelRequest(const SchemeHostPort& group_id, ClientSocketHandle* handle,
                     bool cancel_connect_job);

  // ConnectJob::Delegate.
  void OnConnectJobComplete(ConnectJob* job, int result) override;

  // The core step for a new request (`queued` false), a queued one (true) or a preconnect
  // (request.handle null): idle socket, spare job, or a new job within the limits.
  int RequestSocketInternal(const SchemeHostPort& group_id, const Request& request, bool queued);
  bool AssignIdleSocketToRequest(const Request& request, Group* group);
  // Gives `socket` to `request`'s handle, and decides its SocketSource, the one place that does:
  // `job` (the connect job that made it) or, for an idle socket (`job` null), whether it was
  // used before and whether a preconnect made it. The observers hear of it later (see Observer::
  // OnSocketAssigned): the assignment waits in unreported_ until RequestSocket returns OK or
  // InvokeUserCallbackLater takes it.
  void HandOutSocket(std::unique_ptr<StreamSocket> socket, const ConnectJob* job,
                     const Request& request, TimeDelta idle_time, Group* group);
  void NotifySocketAssigned(const SchemeHostPort& group_id, const Observer::Assignment& assignment);
  void AddIdleSocket(std::unique_ptr<StreamSocket> socket, Group* group);
  std::unique_ptr<ConnectJob> CreateConnectJob(const SchemeHostPort& group_id,
                                               RequestPriority priority, bool is_backup);

  // A slot may have opened in `group`: serve its top request, or remove it if empty. May
  // delete `group`.
  void OnAvailableSocketSlot(const SchemeHostPort& group_id, Group* group);
  void ProcessPendingRequest(const SchemeHostPort& group_id, Group* group);
  // Serves stalled groups while slots (or idle sockets to close) are available.
  void CheckForStalledSocketGroups();
  Group* FindTopStalledGroup() const;
  bool ReachedMaxSocketsLimit() const;
  // Closes the least recently used idle socket outside `except` (may be null).
  bool CloseOneIdleSocketExceptInGroup(const Group* except);

  void CleanupIdleSockets(bool force, CloseReason reason);
  // Returns true if the group was removed.
  bool CleanupIdleSocketsInGroup(GroupMap::iterator it, bool force, CloseReason reason);
  void ArmCleanupTimer();
  void OnCleanupTimerFired();

  void StartBackupJobTimer(Group* group);
  void OnBackupJobTimerFired(const SchemeHostPort& group_id);

  // Destroy a completed job, or an idle socket closed while a job's callback may be on the
  // stack, in a posted task (see "Re-entrancy" above).
  void DeleteJobLater(std::unique_ptr<ConnectJob> job);
  void DeleteSocketLater(std::unique_ptr<StreamSocket> socket);
  void PostDeletionTask();
  void InvokeUserCallbackLater(ClientSocketHandle* handle, CompletionCallback callback, int rv);
  void InvokeUserCallback(ClientSocketHandle* handle, uint64_t id);

  // Observer reports. An idle socket leaving the idle list without being handed out goes
  // through OnIdleSocketClosed, which reports it if a preconnect made it (the observer gets
  // the reason's short form).
  void NotifyPreconnectJobStarted(const SchemeHostPort& group_id);
  void NotifyPreconnectJobComplete(const SchemeHostPort& group_id, int result);
  void OnIdleSocketClosed(const SchemeHostPort& group_id, const StreamSocket* socket,
                          CloseReason reason);
  Group* FindGroup(const SchemeHostPort& group_id) const;
  Group* GetOrCreateGroup(const SchemeHostPort& group_id);
  void RemoveGroup(const SchemeHostPort& group_id);

  const Params params_;
  Scheduler& scheduler_;
  std::vector<Observer*> observers_;
  // Idle sockets a preconnect job made, never handed out (at most the idle socket count).
  std::set<const StreamSocket*> preconnected_idle_;
  // Assignments not yet reported (see HandOutSocket); at most one per handle, held only from
  // HandOutSocket to the end of the same pool method.
  std::map<const ClientSocketHandle*, Observer::Assignment> unreported_;
  CommonConnectJobParams job_params_;

  GroupMap groups_;
  std::map<ClientSocketHandle*, PendingCallback> pending_callbacks_;
  std::vector<std::unique_ptr<ConnectJob>> finished_jobs_;     // see DeleteJobLater
  std::vector<std::unique_ptr<StreamSocket>> closed_sockets_;  // see DeleteSocketLater
  bool deletion_task_posted_ = false;
  uint64_t next_callback_id_ = 0;
  uint64_t next_request_order_ = 0;
  int idle_socket_count_ = 0;
  int handed_out_socket_count_ = 0;
  int connecting_socket_count_ = 0;
  size_t pending_request_count_ = 0;  // requests queued in all groups
  int64_t generation_ = 0;
  OneShotTimer cleanup_timer_;

  WeakPtrFactory<ClientSocketPool> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_SOCKET_CLIENT_SOCKET_POOL_H_
