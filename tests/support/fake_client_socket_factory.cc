#include "tests/support/fake_client_socket_factory.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "net/base/net_error.h"

namespace netstack::test {

FakeConnectRule FakeConnectRule::Sync(int result) {
  FakeConnectRule rule;
  rule.sync = true;
  rule.result = result;
  return rule;
}

FakeConnectRule FakeConnectRule::After(TimeDelta delay, int result) {
  FakeConnectRule rule;
  rule.delay = delay;
  rule.result = result;
  return rule;
}

FakeConnectRule FakeConnectRule::Hang() {
  FakeConnectRule rule;
  rule.hang = true;
  return rule;
}

namespace {

NetLogWithSource MakeSocketLog(netstack::NetLog* net_log, const NetLogSource& creator) {
  NetLogWithSource log = NetLogWithSource::Make(net_log, NetLogSourceType::SOCKET);
  log.BeginEvent(NetLogEventType::SOCKET_ALIVE, [&creator] {
    return nlohmann::json{{"source_dependency", creator.ToJson()}};
  });
  return log;
}

}  // namespace

FakeStreamSocket::FakeStreamSocket(FakeClientSocketFactory* factory, FakeConnection* connection,
                                   netstack::NetLog* net_log, const NetLogSource& creator)
    : factory_(factory),
      connection_(connection),
      rule_(connection->connect),
      peer_(connection->endpoint),
      net_log_(MakeSocketLog(net_log, creator)),
      connect_timer_(factory->scheduler_) {
  ++factory_->live_sockets_;
  connection_->net_log_id = net_log_.source().id;
}

FakeStreamSocket::FakeStreamSocket(FakeClientSocketFactory* factory,
                                   std::unique_ptr<StreamSocket> transport,
                                   FakeConnectRule handshake, netstack::NetLog* net_log,
                                   const NetLogSource& creator)
    : factory_(factory),
      connection_(nullptr),
      transport_(std::move(transport)),
      rule_(handshake),
      net_log_(MakeSocketLog(net_log, creator)),
      connect_timer_(factory->scheduler_) {
  ++factory_->live_sockets_;
  transport_->GetPeerAddress(&peer_);
}

FakeStreamSocket::~FakeStreamSocket() {
  if (in_callback_) ++factory_->destroyed_in_callback_;
  if (connection_) {
    connection_->destroyed = true;
    connection_->script->Disconnect();  // cancels the server side's pending completions
  }
  net_log_.EndEvent(NetLogEventType::SOCKET_ALIVE);
  --factory_->live_sockets_;
}

StreamSocket& FakeStreamSocket::data_path() const {
  return transport_ ? *transport_ : *connection_->script;
}

void FakeStreamSocket::FinishConnect() {
  connected_ = rule_.result == OK;
  if (connection_) connection_->connected = connected_;
}

int FakeStreamSocket::Connect(CompletionCallback callback) {
  if (connected_) return OK;
  if (rule_.sync) {
    FinishConnect();
    return rule_.result;
  }
  if (rule_.hang) return ERR_IO_PENDING;
  connect_timer_.Start(rule_.delay, [this, callback = std::move(callback)] {
    FinishConnect();
    // Copied out first: the callee may destroy this socket; `self` tells whether it did.
    CompletionCallback cb = callback;
    WeakPtr<FakeStreamSocket> self = weak_factory_.GetWeakPtr();
    in_callback_ = true;
    cb(rule_.result);
    if (self) in_callback_ = false;
  });
  return ERR_IO_PENDING;
}

int FakeStreamSocket::Read(char* buf, int len, CompletionCallback callback) {
  if (remote_closed_) return 0;
  if (!IsConnected()) return ERR_SOCKET_NOT_CONNECTED;
  return data_path().Read(buf, len, std::move(callback));
}

int FakeStreamSocket::Write(const char* data, int len, CompletionCallback callback) {
  if (!IsConnected()) return ERR_SOCKET_NOT_CONNECTED;
  return data_path().Write(data, len, std::move(callback));
}

void FakeStreamSocket::Disconnect() {
  connect_timer_.Stop();
  connected_ = false;
  data_path().Disconnect();
}

bool FakeStreamSocket::IsConnected() const {
  return connected_ && !remote_closed_ && data_path().IsConnected();
}

bool FakeStreamSocket::IsConnectedAndIdle() const {
  return IsConnected() && !unread_data_ && data_path().IsConnectedAndIdle();
}

bool FakeStreamSocket::WasEverUsed() const { return was_used_ || data_path().WasEverUsed(); }

int FakeStreamSocket::GetPeerAddress(IPEndPoint* address) const {
  if (!IsConnected()) return ERR_SOCKET_NOT_CONNECTED;
  *address = peer_;
  return OK;
}

FakeClientSocketFactory::~FakeClientSocketFactory() = default;

FakeConnection* FakeClientSocketFactory::AddSocket(std::vector<ScriptedRead> reads,
                                                   std::vector<ScriptedWrite> writes,
                                                   FakeConnectRule connect) {
  auto connection = std::make_unique<FakeConnection>();
  connection->script =
      std::make_unique<ScriptedStreamSocket>(scheduler_, std::move(reads), std::move(writes));
  connection->connect = connect;
  connection->scripted = true;
  connections_.push_back(std::move(connection));
  return connections_.back().get();
}

FakeConnectRule FakeClientSocketFactory::NextUnscriptedRule(const IPAddress& address) {
  if (!queued_rules_.empty()) {
    FakeConnectRule rule = queued_rules_.front();
    queued_rules_.pop_front();
    return rule;
  }
  if (auto it = address_rules_.find(address); it != address_rules_.end()) return it->second;
  return default_rule_;
}

std::unique_ptr<StreamSocket> FakeClientSocketFactory::CreateTransportClientSocket(
    const IPEndPoint& endpoint, const std::string& /*host*/, NetLog* net_log,
    const NetLogSource& creator) {
  if (created_ == connections_.size()) {
    // No script left: a connect-only socket, appended so queued scripts keep their indexes.
    ++unscripted_;
    auto connection = std::make_unique<FakeConnection>();
    connection->script =
        std::make_unique<ScriptedStreamSocket>(scheduler_, std::vector<ScriptedRead>{});
    connection->connect = NextUnscriptedRule(endpoint.address());
    connections_.push_back(std::move(connection));
  }
  FakeConnection* connection = connections_[created_++].get();
  connection->endpoint = endpoint;
  connection->created_at = scheduler_.Now();
  return std::make_unique<FakeStreamSocket>(this, connection, net_log, creator);
}

std::unique_ptr<StreamSocket> FakeClientSocketFactory::CreateSslClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host, uint16_t port,
    const NetLogWithSource& net_log) {
  ssl_hosts_.push_back(host + ":" + std::to_string(port));
  return std::make_unique<FakeStreamSocket>(this, std::move(transport), ssl_rule_,
                                            net_log.net_log(), net_log.source());
}

std::vector<FakeClientSocketFactory::Attempt> FakeClientSocketFactory::attempts() const {
  std::vector<Attempt> attempts;
  for (size_t i = 0; i < created_; ++i)
    attempts.push_back(Attempt{connections_[i]->endpoint, connections_[i]->created_at});
  return attempts;
}

}  // namespace netstack::test
