#include "tools/replay/replay_warm_start.h"

#include "net/base/net_error.h"
#include "net/http/url_request_context.h"
#include "net/http2/http2_session_pool.h"
#include "net/socket/client_socket_pool.h"
#include "net/socket/stream_socket.h"

namespace netstack {

ReplayWarmStart::ReplayWarmStart(UrlRequestContext* context, NetLogWithSource net_log)
    : context_(context), net_log_(std::move(net_log)) {}

ReplayWarmStart::~ReplayWarmStart() { Abandon(); }

void ReplayWarmStart::Start(const std::vector<WarmGroup>& groups) {
  started_ = true;
  groups_ = groups;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (groups_[g].count <= 0) continue;
    // An origin with an open session is warm already.
    Http2SessionPool* h2 = context_->http2_session_pool();
    if (h2 && h2->FindAvailableSession(groups_[g].origin)) continue;
    Open(g, /*first=*/true);
  }
  if (pending_ == 0) ReleaseAll();
}

void ReplayWarmStart::Open(size_t group, bool first) {
  auto connect = std::make_unique<Connect>();
  Connect* c = connect.get();
  c->owner = this;
  c->group = group;
  c->first = first;
  c->handle = std::make_unique<ClientSocketHandle>();
  connects_.push_back(std::move(connect));
  ++pending_;
  // Speculative: no page asked for it, so the predictor's accounting does not count it.
  int rv = c->handle->Init(
      groups_[group].origin, LOWEST, [c](int result) { c->owner->OnConnected(c, result); },
      context_->socket_pool(), net_log_, /*speculative=*/true);
  if (rv != ERR_IO_PENDING) OnConnected(c, rv);
}

void ReplayWarmStart::OnConnected(Connect* c, int result) {
  --pending_;
  const WarmGroup& group = groups_[c->group];
  bool h2 = false;
  if (result == OK && c->handle->socket()) {
    if (IsConnectJobSocket(c->handle->socket_source())) ++opened_;
    Http2SessionPool* pool = context_->http2_session_pool();
    const bool https = group.origin.scheme == "https";
    const auto& http2 = context_->config().http2;
    h2 = pool && (https ? http2.offered_in_alpn && c->handle->socket()->NegotiatedProtocol() == "h2"
                        : http2.prior_knowledge);
    if (h2 && !pool->FindAvailableSession(group.origin)) {
      // The origin's session, as the transaction makes it from a socket ALPN gave h2.
      pool->CreateSession(group.origin, std::move(c->handle));
    }
  } else if (c->handle) {
    c->handle->Reset();
  }
  // HTTP/1.1 (or a failed first try): the origin's other connections.
  if (c->first && !h2) {
    for (int i = 1; i < group.count; ++i) Open(c->group, /*first=*/false);
  }
  if (pending_ == 0) ReleaseAll();
}

void ReplayWarmStart::ReleaseAll() {
  // Never used: back in the pool as idle sockets a non-preconnect job made.
  for (auto& c : connects_)
    if (c->handle) c->handle->Reset();
  connects_.clear();
}

void ReplayWarmStart::Abandon() {
  for (auto& c : connects_)
    if (c->handle) c->handle->Reset();
  connects_.clear();
  pending_ = 0;
}

}  // namespace netstack
