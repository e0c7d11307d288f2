#include "tests/http2/h2_socket_factory.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "net/base/weak_ptr.h"

namespace netstack::test {
namespace {

class H2FakeSocket : public StreamSocket {
 public:
  H2FakeSocket(H2SocketFactory* factory, H2ServerConnection* conn, netstack::NetLog* net_log,
               std::string host)
      : factory_(factory),
        conn_(conn),
        host_(std::move(host)),
        net_log_(NetLogWithSource::Make(net_log, NetLogSourceType::SOCKET)) {
    conn_->flush = [weak = weak_.GetWeakPtr()] {
      if (weak) weak->Deliver();
    };
  }
  ~H2FakeSocket() override { Disconnect(); }

  void set_tls(const std::string& host) {
    conn_->tls = true;
    host_ = host;
  }

  int Connect(CompletionCallback callback) override {
    if (connected_) return OK;  // the "TLS handshake" over a connected transport
    factory_->scheduler().PostDelayedTask(factory_->options().connect_delay,
                                          [weak = weak_.GetWeakPtr(), callback] {
                                            if (!weak) return;
                                            weak->connected_ = true;
                                            callback(OK);
                                          });
    return ERR_IO_PENDING;
  }

  int Read(char* buf, int len, CompletionCallback callback) override {
    if (conn_->closed) return 0;
    if (!pending_.empty()) return TakeInto(buf, len);
    read_buf_ = buf;
    read_len_ = len;
    read_callback_ = std::move(callback);
    return ERR_IO_PENDING;
  }

  int Write(const char* data, int len, CompletionCallback) override {
    if (conn_->closed) return ERR_CONNECTION_RESET;
    used_ = true;
    H2TestServer& server = conn_->server;
    server.Receive(std::string_view(data, static_cast<size_t>(len)));
    size_t open = 0;
    for (auto& [id, request] : server.requests()) {
      if (request.closed_with == UINT32_MAX) ++open;
    }
    conn_->max_open = std::max(conn_->max_open, open);
    for (auto& [id, request] : server.requests()) {
      if (request.ended && !conn_->answered.count(id)) {
        conn_->answered.insert(id);
        ++conn_->requests;
        if (factory_->handler()) factory_->handler()(*conn_, id);
      }
    }
    Deliver();
    return len;
  }

  // Moves the server's output to the reader, from a task.
  void Deliver() {
    pending_ += conn_->server.TakeOutput();
    if (pending_.empty() || !read_callback_ || delivery_posted_) return;
    delivery_posted_ = true;
    factory_->scheduler().PostTask([weak = weak_.GetWeakPtr()] {
      if (!weak) return;
      weak->delivery_posted_ = false;
      if (!weak->read_callback_ || weak->pending_.empty()) return;
      CompletionCallback cb = std::move(weak->read_callback_);
      weak->read_callback_ = nullptr;
      cb(weak->TakeInto(weak->read_buf_, weak->read_len_));
    });
  }

  void Disconnect() override {
    if (!conn_->closed && connected_) conn_->closed = true;
    connected_ = false;
    read_callback_ = nullptr;
    weak_.InvalidateWeakPtrs();
  }
  bool IsConnected() const override { return connected_ && !conn_->closed; }
  bool IsConnectedAndIdle() const override { return IsConnected() && pending_.empty(); }
  bool WasEverUsed() const override { return used_; }
  int GetPeerAddress(IPEndPoint* address) const override {
    *address = conn_->endpoint;
    return OK;
  }
  const NetLogWithSource& NetLog() const override { return net_log_; }
  std::string TlsVersion() const override { return conn_->tls ? "TLSv1.3" : ""; }
  std::string NegotiatedProtocol() const override {
    return conn_->tls ? factory_->options().alpn : "";
  }
  bool CertificateCoversHost(const std::string& host) const override {
    if (!conn_->tls) return false;
    return host == host_ || factory_->options().certificate_names.count(host) > 0;
  }

 private:
  int TakeInto(char* buf, int len) {
    const size_t n = std::min(pending_.size(), static_cast<size_t>(len));
    std::memcpy(buf, pending_.data(), n);
    pending_.erase(0, n);
    return static_cast<int>(n);
  }

  H2SocketFactory* factory_;
  H2ServerConnection* conn_;
  std::string host_;
  NetLogWithSource net_log_;
  bool connected_ = false;
  bool used_ = false;
  std::string pending_;
  char* read_buf_ = nullptr;
  int read_len_ = 0;
  CompletionCallback read_callback_;
  bool delivery_posted_ = false;
  WeakPtrFactory<H2FakeSocket> weak_{this};
};

}  // namespace

H2SocketFactory::H2SocketFactory(Scheduler& scheduler, Options options)
    : scheduler_(scheduler), options_(std::move(options)) {}

H2SocketFactory::~H2SocketFactory() = default;

std::unique_ptr<StreamSocket> H2SocketFactory::CreateTransportClientSocket(
    const IPEndPoint& endpoint, const std::string& /*host*/, NetLog* net_log, const NetLogSource&) {
  connections_.push_back(std::make_unique<H2ServerConnection>(options_.settings));
  connections_.back()->endpoint = endpoint;
  return std::make_unique<H2FakeSocket>(this, connections_.back().get(), net_log, std::string());
}

std::unique_ptr<StreamSocket> H2SocketFactory::CreateSslClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host, uint16_t,
    const NetLogWithSource&) {
  static_cast<H2FakeSocket*>(transport.get())->set_tls(host);
  return transport;
}

void H2SocketFactory::AnswerWithPath(H2ServerConnection& conn, int32_t stream_id) {
  conn.server.Respond(stream_id, 200, {{"content-type", "text/plain"}},
                      conn.server.Header(stream_id, ":path"));
}

}  // namespace netstack::test
