#include "tests/request/scripted_socket_factory.h"

#include <utility>

#include "net/base/net_error.h"

namespace netstack::test {

// The StreamSocket a connect job gets: the connect step, then everything forwarded to the
// scripted server side. Destroying it cancels a pending connect and the script's pending
// completions, so no callback runs afterwards (the StreamSocket contract).
class ScriptedSocketFactory::Socket : public StreamSocket {
 public:
  Socket(ScriptedSocketFactory* factory, ScriptedConnection* connection,
         const NetLogWithSource& net_log)
      : factory_(factory), connection_(connection), net_log_(net_log) {
    ++factory_->live_;
    net_log_.BeginEvent(NetLogEventType::SOCKET_ALIVE);
  }

  ~Socket() override {
    if (connect_task_ != kNoTask) factory_->scheduler_.CancelTask(connect_task_);
    connection_->destroyed = true;
    connection_->script->Disconnect();  // cancels pending script completions
    --factory_->live_;
    net_log_.EndEvent(NetLogEventType::SOCKET_ALIVE);
  }

  int Connect(CompletionCallback callback) override {
    const ConnectRule& rule = connection_->connect;
    if (rule.sync) return FinishConnect();
    if (rule.hang) return ERR_IO_PENDING;
    connect_task_ =
        factory_->scheduler_.PostDelayedTask(rule.delay, [this, callback = std::move(callback)] {
          connect_task_ = kNoTask;
          callback(FinishConnect());  // may destroy this
        });
    return ERR_IO_PENDING;
  }

  int Read(char* buf, int len, CompletionCallback callback) override {
    if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
    return connection_->script->Read(buf, len, std::move(callback));
  }
  int Write(const char* data, int len, CompletionCallback callback) override {
    if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
    return connection_->script->Write(data, len, std::move(callback));
  }
  void Disconnect() override {
    ++connection_->disconnects;
    connected_ = false;
    connection_->script->Disconnect();
  }
  bool IsConnected() const override { return connected_ && connection_->script->IsConnected(); }
  bool IsConnectedAndIdle() const override {
    return connected_ && connection_->script->IsConnectedAndIdle();
  }
  bool WasEverUsed() const override { return connection_->script->WasEverUsed(); }
  int GetPeerAddress(IPEndPoint* address) const override {
    if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
    *address = connection_->endpoint;
    return OK;
  }
  const NetLogWithSource& NetLog() const override { return net_log_; }

 private:
  int FinishConnect() {
    int result = connection_->connect.result;
    connected_ = result == OK;
    connection_->connected = connected_;
    return result;
  }

  ScriptedSocketFactory* const factory_;
  ScriptedConnection* const connection_;
  const NetLogWithSource net_log_;
  bool connected_ = false;
  TaskId connect_task_ = kNoTask;
};

ScriptedSocketFactory::~ScriptedSocketFactory() = default;

ScriptedConnection* ScriptedSocketFactory::AddSocket(std::vector<ScriptedRead> reads,
                                                     std::vector<ScriptedWrite> writes,
                                                     ConnectRule connect) {
  auto connection = std::make_unique<ScriptedConnection>();
  connection->script =
      std::make_unique<ScriptedStreamSocket>(scheduler_, std::move(reads), std::move(writes));
  connection->connect = connect;
  connections_.push_back(std::move(connection));
  return connections_.back().get();
}

std::unique_ptr<StreamSocket> ScriptedSocketFactory::CreateTransportClientSocket(
    const IPEndPoint& endpoint, NetLog* net_log, const NetLogSource& creator) {
  ScriptedConnection* connection = nullptr;
  if (created_ < connections_.size()) {
    connection = connections_[created_++].get();
  } else {
    // Not scripted: a connection that refuses. Kept at the end so indexes stay stable for
    // scripted ones only until the test queues more; counted so tests notice.
    ++unscripted_;
    ConnectRule refuse;
    refuse.result = ERR_CONNECTION_REFUSED;
    connection = AddSocket({}, {}, refuse);
    ++created_;
  }
  connection->handed_out = true;
  connection->endpoint = endpoint;
  NetLogWithSource socket_log = NetLogWithSource::Make(net_log, NetLogSourceType::SOCKET);
  connection->net_log_id = socket_log.source().id;
  (void)creator;
  return std::make_unique<Socket>(this, connection, socket_log);
}

std::unique_ptr<StreamSocket> ScriptedSocketFactory::CreateSslClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host, uint16_t port,
    const NetLogWithSource& net_log) {
  (void)host;
  (void)port;
  (void)net_log;
  return transport;
}

}  // namespace netstack::test
