#include "tests/socket/fake_client_socket_factory.h"

#include <nlohmann/json.hpp>
#include <utility>

namespace netstack::test {

FakeStreamSocket::FakeStreamSocket(Scheduler& scheduler, IPEndPoint peer, FakeConnectRule rule,
                                   netstack::NetLog* net_log, const NetLogSource& creator,
                                   int* live_count, int* destroyed_in_callback,
                                   std::unique_ptr<StreamSocket> transport)
    : scheduler_(scheduler),
      peer_(peer),
      rule_(rule),
      net_log_(NetLogWithSource::Make(net_log, NetLogSourceType::SOCKET)),
      live_count_(live_count),
      destroyed_in_callback_(destroyed_in_callback),
      transport_(std::move(transport)) {
  if (live_count_) ++*live_count_;
  net_log_.BeginEvent(NetLogEventType::SOCKET_ALIVE, [&creator] {
    return nlohmann::json{{"source_dependency", creator.ToJson()}};
  });
}

FakeStreamSocket::~FakeStreamSocket() {
  *alive_ = false;
  if (in_callback_ && destroyed_in_callback_) ++*destroyed_in_callback_;
  if (task_ != kNoTask) scheduler_.CancelTask(task_);
  net_log_.EndEvent(NetLogEventType::SOCKET_ALIVE);
  if (live_count_) --*live_count_;
}

int FakeStreamSocket::Connect(CompletionCallback callback) {
  if (connected_) return OK;
  if (rule_.sync) {
    connected_ = rule_.result == OK;
    return rule_.result;
  }
  if (rule_.hang) return ERR_IO_PENDING;
  task_ = scheduler_.PostDelayedTask(rule_.delay, [this, callback = std::move(callback)] {
    task_ = kNoTask;
    connected_ = rule_.result == OK;
    // Copied out first: the callee may destroy this socket (and so this closure's owner).
    CompletionCallback cb = callback;
    std::shared_ptr<bool> alive = alive_;
    in_callback_ = true;
    cb(rule_.result);
    if (*alive) in_callback_ = false;
  });
  return ERR_IO_PENDING;
}

int FakeStreamSocket::Read(char* buf, int len, CompletionCallback callback) {
  if (!IsConnected()) return 0;
  was_used_ = true;
  return ERR_IO_PENDING;
}

int FakeStreamSocket::Write(const char* data, int len, CompletionCallback callback) {
  if (!IsConnected()) return ERR_SOCKET_NOT_CONNECTED;
  was_used_ = true;
  return len;
}

void FakeStreamSocket::Disconnect() {
  if (task_ != kNoTask) scheduler_.CancelTask(task_);
  task_ = kNoTask;
  connected_ = false;
  if (transport_) transport_->Disconnect();
}

bool FakeStreamSocket::IsConnected() const {
  return connected_ && (!transport_ || transport_->IsConnected());
}

int FakeStreamSocket::GetPeerAddress(IPEndPoint* address) const {
  if (!IsConnected()) return ERR_SOCKET_NOT_CONNECTED;
  *address = peer_;
  return OK;
}

std::unique_ptr<StreamSocket> FakeClientSocketFactory::CreateTransportClientSocket(
    const IPEndPoint& endpoint, NetLog* net_log, const NetLogSource& creator) {
  attempts_.push_back(Attempt{endpoint, scheduler_.Now()});
  FakeConnectRule rule = default_rule_;
  if (!queued_rules_.empty()) {
    rule = queued_rules_.front();
    queued_rules_.pop_front();
  } else if (auto it = address_rules_.find(endpoint.address()); it != address_rules_.end()) {
    rule = it->second;
  }
  return std::make_unique<FakeStreamSocket>(scheduler_, endpoint, rule, net_log, creator,
                                            &live_sockets_, &destroyed_in_callback_);
}

std::unique_ptr<StreamSocket> FakeClientSocketFactory::CreateSslClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host, uint16_t port,
    const NetLogWithSource& net_log) {
  ssl_hosts_.push_back(host + ":" + std::to_string(port));
  IPEndPoint peer;
  transport->GetPeerAddress(&peer);
  return std::make_unique<FakeStreamSocket>(scheduler_, peer, ssl_rule_, net_log.net_log(),
                                            net_log.source(), &live_sockets_,
                                            &destroyed_in_callback_, std::move(transport));
}

}  // namespace netstack::test
