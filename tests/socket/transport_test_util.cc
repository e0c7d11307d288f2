#include "tests/socket/transport_test_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

namespace netstack::test {

std::vector<NetLogEntry> CapturingNetLog::Find(NetLogEventType type) const {
  std::vector<NetLogEntry> found;
  for (const auto& e : entries_) {
    if (e.type == type) found.push_back(e);
  }
  return found;
}

struct LoopbackTcpServer::Connection {
  uv_tcp_t tcp;
  LoopbackTcpServer* server = nullptr;
  size_t index = 0;
  char buf[64 * 1024];
};

namespace {

struct WriteRequest {
  uv_write_t req;
  std::string data;
};

}  // namespace

LoopbackTcpServer::LoopbackTcpServer(uv_loop_t* loop, Options options)
    : loop_(loop), options_(options), listener_(new uv_tcp_t) {
  uv_tcp_init(loop_, listener_);
  listener_->data = this;
  sockaddr_in addr;
  uv_ip4_addr("127.0.0.1", 0, &addr);
  if (uv_tcp_bind(listener_, reinterpret_cast<sockaddr*>(&addr), 0) != 0 ||
      uv_listen(reinterpret_cast<uv_stream_t*>(listener_), 16, &OnConnection) != 0) {
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  int len = sizeof(addr);
  uv_tcp_getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

LoopbackTcpServer::~LoopbackTcpServer() {
  listener_->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(listener_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
  for (size_t i = 0; i < connections_.size(); ++i) CloseWithFin(i);
}

void LoopbackTcpServer::OnConnection(uv_stream_t* stream, int status) {
  auto* self = static_cast<LoopbackTcpServer*>(stream->data);
  if (!self || status < 0) return;
  auto* conn = new Connection;
  uv_tcp_init(self->loop_, &conn->tcp);
  conn->tcp.data = conn;
  conn->server = self;
  conn->index = self->connections_.size();
  self->connections_.push_back(conn);
  self->received_.emplace_back();
  self->peer_closed_.push_back(false);
  uv_accept(stream, reinterpret_cast<uv_stream_t*>(&conn->tcp));
  if (self->options_.read) self->StartReading(conn->index);
}

const std::string& LoopbackTcpServer::received(size_t i) const { return received_.at(i); }
bool LoopbackTcpServer::peer_closed(size_t i) const { return peer_closed_.at(i); }

void LoopbackTcpServer::Write(size_t i, const std::string& data) {
  Connection* conn = connections_.at(i);
  if (!conn) return;
  auto* write = new WriteRequest{{}, data};
  uv_buf_t buf = uv_buf_init(write->data.data(), static_cast<unsigned>(write->data.size()));
  uv_write(&write->req, reinterpret_cast<uv_stream_t*>(&conn->tcp), &buf, 1,
           [](uv_write_t* req, int) { delete reinterpret_cast<WriteRequest*>(req); });
}

void LoopbackTcpServer::StartReading(size_t i) {
  Connection* conn = connections_.at(i);
  if (!conn) return;
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(&conn->tcp),
      [](uv_handle_t* h, size_t, uv_buf_t* buf) {
        auto* c = static_cast<Connection*>(h->data);
        *buf = uv_buf_init(c->buf, sizeof(c->buf));
      },
      [](uv_stream_t* s, ssize_t nread, const uv_buf_t* buf) {
        auto* c = static_cast<Connection*>(s->data);
        LoopbackTcpServer* server = c->server;
        if (!server) return;
        if (nread > 0) {
          server->received_[c->index].append(buf->base, static_cast<size_t>(nread));
          if (server->options_.echo) server->Write(c->index, std::string(buf->base, nread));
        } else if (nread < 0) {
          server->peer_closed_[c->index] = true;
          uv_read_stop(s);
        }
      });
}

void LoopbackTcpServer::CloseWithFin(size_t i) {
  Connection* conn = connections_.at(i);
  if (!conn) return;
  conn->server = nullptr;
  connections_[i] = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(&conn->tcp),
           [](uv_handle_t* h) { delete static_cast<Connection*>(h->data); });
}

void LoopbackTcpServer::CloseWithReset(size_t i) {
  Connection* conn = connections_.at(i);
  if (!conn) return;
  conn->server = nullptr;
  connections_[i] = nullptr;
  uv_tcp_close_reset(&conn->tcp, [](uv_handle_t* h) { delete static_cast<Connection*>(h->data); });
}

RefusingPort::RefusingPort() {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("cannot bind 127.0.0.1");
  }
  port_ = ntohs(addr.sin_port);
}

RefusingPort::~RefusingPort() { close(fd_); }

}  // namespace netstack::test
