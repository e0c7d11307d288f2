#include "net/socket/connect_job.h"

#include <nlohmann/json.hpp>
#include <utility>

namespace netstack {

ConnectJob::ConnectJob(const SchemeHostPort& endpoint, RequestPriority priority,
                       const CommonConnectJobParams& params, Delegate* delegate, bool is_backup)
    : endpoint_(endpoint),
      priority_(priority),
      params_(params),
      delegate_(delegate),
      is_backup_(is_backup),
      net_log_(NetLogWithSource::Make(params.net_log, NetLogSourceType::CONNECT_JOB)),
      timeout_timer_(*params.scheduler),
      fallback_timer_(*params.scheduler) {}

ConnectJob::~ConnectJob() {
  if (started_ && !finished_) {
    net_log_.AddEvent(NetLogEventType::CANCELLED);
    net_log_.EndEventWithNetErrorCode(NetLogEventType::CONNECT_JOB, ERR_ABORTED);
  }
}

int ConnectJob::Connect() {
  started_ = true;
  net_log_.BeginEvent(NetLogEventType::CONNECT_JOB, [this] {
    return nlohmann::json{{"group_id", endpoint_.ToString()},
                          {"priority", RequestPriorityToString(priority_)},
                          {"backup_job", is_backup_}};
  });
  if (params_.connect_timeout > TimeDelta::zero())
    timeout_timer_.Start(params_.connect_timeout, [this] { OnTimeout(); });
  next_state_ = State::kResolveHost;
  int rv = DoLoop(OK);
  if (rv != ERR_IO_PENDING) Finish(rv);
  return rv;
}

void ConnectJob::ChangePriority(RequestPriority priority) {
  if (priority == priority_) return;
  priority_ = priority;
  if (resolve_request_ && IsResolvingHost()) resolve_request_->ChangePriority(priority);
}

std::unique_ptr<StreamSocket> ConnectJob::PassSocket() { return std::move(socket_); }

int ConnectJob::DoLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = State::kNone;
    switch (state) {
      case State::kResolveHost:
        rv = DoResolveHost();
        break;
      case State::kResolveHostComplete:
        rv = DoResolveHostComplete(rv);
        break;
      case State::kTransportConnect:
        rv = DoTransportConnect();
        break;
      case State::kTransportConnectComplete:
        rv = DoTransportConnectComplete(rv);
        break;
      case State::kSslConnect:
        rv = DoSslConnect();
        break;
      case State::kSslConnectComplete:
        rv = DoSslConnectComplete(rv);
        break;
      case State::kNone:
        return rv;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != State::kNone);
  return rv;
}

int ConnectJob::DoResolveHost() {
  next_state_ = State::kResolveHostComplete;
  connect_timing_.dns_start = params_.scheduler->Now();
  resolve_request_ =
      params_.host_resolver->CreateRequest(endpoint_.host, endpoint_.port, priority_, net_log_);
  return resolve_request_->Start([this](int rv) { OnIOComplete(rv); });
}

int ConnectJob::DoResolveHostComplete(int result) {
  connect_timing_.dns_end = params_.scheduler->Now();
  // The request stays alive (idle) until the job goes: it may be the caller of this code.
  if (result != OK) {
    error_detail_ = resolve_request_->error_detail();  // Which server said what.
    return result;
  }
  addresses_ = resolve_request_->addresses();
  dns_from_cache_ = resolve_request_->from_cache();
  dns_served_stale_ = resolve_request_->served_stale();
  if (addresses_.empty()) return ERR_NAME_NOT_RESOLVED;
  next_state_ = State::kTransportConnect;
  return OK;
}

int ConnectJob::DoTransportConnect() {
  next_state_ = State::kTransportConnectComplete;
  net_log_.BeginEvent(NetLogEventType::TRANSPORT_CONNECT_JOB_CONNECT, [this] {
    nlohmann::json list = nlohmann::json::array();
    for (const IPEndPoint& a : addresses_) list.push_back(a.ToString());
    return nlohmann::json{{"addresses", list}};
  });
  connect_timing_.connect_start = params_.scheduler->Now();

  // The first address's family goes first, in order; the other family is the fallback.
  const AddressFamily first = addresses_.front().address().family();
  for (const IPEndPoint& a : addresses_)
    (a.address().family() == first ? main_ : fallback_).addresses.push_back(a);

  int rv = StartChain(&main_);
  if (rv == ERR_IO_PENDING) {
    if (first == AddressFamily::kIPv6 && !fallback_.addresses.empty())
      fallback_timer_.Start(params_.ipv6_fallback_delay, [this] { OnFallbackTimerFired(); });
    return rv;
  }
  return OnChainFinished(&main_, rv);
}

int ConnectJob::DoTransportConnectComplete(int result) {
  net_log_.EndEventWithNetErrorCode(NetLogEventType::TRANSPORT_CONNECT_JOB_CONNECT, result);
  if (result != OK) return result;
  has_established_connection_ = true;
  connect_timing_.connect_end = params_.scheduler->Now();
  if (endpoint_.scheme == "https") {
    next_state_ = State::kSslConnect;
  } else {
    SetSocket(std::move(transport_socket_));
  }
  return OK;
}

int ConnectJob::DoSslConnect() {
  next_state_ = State::kSslConnectComplete;
  net_log_.BeginEvent(NetLogEventType::SSL_CONNECT_JOB_CONNECT);
  connect_timing_.ssl_start = params_.scheduler->Now();
  ssl_socket_ = params_.socket_factory->CreateSslClientSocket(
      std::move(transport_socket_), endpoint_.host, endpoint_.port, net_log_);
  if (!ssl_socket_) return ERR_SSL_PROTOCOL_ERROR;
  return ssl_socket_->Connect([this](int rv) { OnIOComplete(rv); });
}

int ConnectJob::DoSslConnectComplete(int result) {
  connect_timing_.ssl_end = params_.scheduler->Now();
  connect_timing_.connect_end = connect_timing_.ssl_end;
  net_log_.EndEventWithNetErrorCode(NetLogEventType::SSL_CONNECT_JOB_CONNECT, result);
  if (result != OK) {
    error_detail_ = ssl_socket_->GetErrorDetail();
    return result;  // ssl_socket_ goes with the job, not inside its callback
  }
  SetSocket(std::move(ssl_socket_));
  return OK;
}

void ConnectJob::OnIOComplete(int result) {
  int rv = DoLoop(result);
  if (rv != ERR_IO_PENDING) NotifyDelegate(rv);
}

int ConnectJob::StartChain(AttemptChain* chain) {
  chain->started = true;
  chain->start = params_.scheduler->Now();
  chain->next = 0;
  return TryChain(chain);
}

int ConnectJob::TryChain(AttemptChain* chain) {
  while (chain->next < chain->addresses.size()) {
    chain->socket = params_.socket_factory->CreateTransportClientSocket(
        chain->addresses[chain->next], endpoint_.host, params_.net_log, net_log_.source());
    int rv = ERR_INSUFFICIENT_RESOURCES;
    if (chain->socket)
      rv = chain->socket->Connect([this, chain](int r) { OnAttemptComplete(chain, r); });
    if (rv == OK || rv == ERR_IO_PENDING) return rv;
    last_error_ = rv;
    if (chain->socket) failed_sockets_.push_back(std::move(chain->socket));
    ++chain->next;
  }
  return last_error_;
}

void ConnectJob::OnAttemptComplete(AttemptChain* chain, int result) {
  if (result != OK) {
    last_error_ = result;
    failed_sockets_.push_back(std::move(chain->socket));
    ++chain->next;
    result = TryChain(chain);
    if (result == ERR_IO_PENDING) return;
  }
  int rv = OnChainFinished(chain, result);
  if (rv == ERR_IO_PENDING) return;
  OnIOComplete(rv);
}

int ConnectJob::OnChainFinished(AttemptChain* chain, int result) {
  AttemptChain* other = chain == &main_ ? &fallback_ : &main_;
  chain->done = true;
  if (result == OK) {
    transport_socket_ = std::move(chain->socket);
    // As Chrome: the connect time is that of the attempts that won.
    connect_timing_.connect_start = chain->start;
    fallback_timer_.Stop();
    other->socket.reset();  // cancels the losing attempt; its callback never runs
    other->done = true;
    return OK;
  }
  if (chain == &main_ && !fallback_.started && !fallback_.addresses.empty()) {
    // Every address of the first family failed before the race began: go on with the other
    // family now, as a sequential address list would.
    fallback_timer_.Stop();
    int rv = StartChain(&fallback_);
    if (rv == ERR_IO_PENDING) return rv;
    return OnChainFinished(&fallback_, rv);
  }
  if (other->started && !other->done) return ERR_IO_PENDING;
  return last_error_;
}

void ConnectJob::OnFallbackTimerFired() {
  if (next_state_ != State::kTransportConnectComplete || fallback_.started) return;
  net_log_.AddEvent(NetLogEventType::TRANSPORT_CONNECT_JOB_IPV6_FALLBACK);
  int rv = StartChain(&fallback_);
  if (rv == ERR_IO_PENDING) return;
  rv = OnChainFinished(&fallback_, rv);
  if (rv == ERR_IO_PENDING) return;
  OnIOComplete(rv);
}

void ConnectJob::OnTimeout() {
  net_log_.AddEvent(NetLogEventType::CONNECT_JOB_TIMED_OUT);
  // Still resolving: the DNS lookup was too slow, not a server. Saying so (and which host) is
  // what the user can act on; Chrome reports the resolve error too (ERR_DNS_TIMED_OUT).
  int error = ERR_CONNECTION_TIMED_OUT;
  if (IsResolvingHost()) {
    error = ERR_DNS_TIMED_OUT;
    error_detail_ = "resolving " + endpoint_.host + " took longer than the " +
                    std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       params_.connect_timeout)
                                       .count()) +
                    " ms connect timeout";
  }
  // Cancel everything in flight; none of these is running a callback now (this is a timer task).
  resolve_request_.reset();
  main_.socket.reset();
  fallback_.socket.reset();
  transport_socket_.reset();
  ssl_socket_.reset();
  if (next_state_ == State::kTransportConnectComplete) {
    net_log_.EndEventWithNetErrorCode(NetLogEventType::TRANSPORT_CONNECT_JOB_CONNECT, error);
  } else if (next_state_ == State::kSslConnectComplete) {
    net_log_.EndEventWithNetErrorCode(NetLogEventType::SSL_CONNECT_JOB_CONNECT, error);
  }
  next_state_ = State::kNone;
  NotifyDelegate(error);
}

void ConnectJob::SetSocket(std::unique_ptr<StreamSocket> socket) {
  socket_ = std::move(socket);
  if (socket_)
    net_log_.AddEventReferencingSource(NetLogEventType::CONNECT_JOB_SET_SOCKET,
                                       socket_->NetLog().source());
}

void ConnectJob::Finish(int result) {
  finished_ = true;
  timeout_timer_.Stop();
  fallback_timer_.Stop();
  if (result != OK) socket_.reset();
  net_log_.EndEventWithNetErrorCode(NetLogEventType::CONNECT_JOB, result);
}

void ConnectJob::NotifyDelegate(int result) {
  Finish(result);
  delegate_->OnConnectJobComplete(this, result);  // may delete this
}

}  // namespace netstack
