// ReplayWarmStart: opens, before a page starts, the connections its recording shows were
// already open (PreparedPage::warm_groups; warm_start=on), through the stack's own code: each
// is a socket request to the context's pool, as a transaction makes one (DNS, TCP and TLS by
// the connect job), marked speculative so the predictor's accounting leaves it out. Once every
// request has its socket, an HTTP/2 socket (ALPN chose h2) becomes the origin's session, as a
// transaction would make it, and an HTTP/1.1 socket goes back to the pool idle, never used
// (SocketSource::kUnusedIdle: not a preconnect, so the predictor does not count it as one).
// An origin whose first connection speaks h2 gets no more: one session carries its requests.
//
// The engine runs virtual time until done() before the page's t = 0 (the warm-up's time is not
// the page's). Internal to the engine (tools/replay/replay_engine.cc).
#ifndef TOOLS_REPLAY_REPLAY_WARM_START_H_
#define TOOLS_REPLAY_REPLAY_WARM_START_H_

#include <memory>
#include <vector>

#include "net/base/net_log.h"
#include "net/socket/client_socket_handle.h"
#include "tools/replay/replay_prepared_page.h"

namespace netstack {

class UrlRequestContext;

class ReplayWarmStart {
 public:
  // `context` must outlive the warm-up; `net_log` is the requests' NetLog source.
  ReplayWarmStart(UrlRequestContext* context, NetLogWithSource net_log);
  // Gives back what it holds: sockets go idle, pending requests are cancelled.
  ~ReplayWarmStart();
  ReplayWarmStart(const ReplayWarmStart&) = delete;
  ReplayWarmStart& operator=(const ReplayWarmStart&) = delete;

  // Starts opening `groups`' connections (each origin's first, then the rest unless it speaks
  // h2). Returns at once; completions come from the scheduler. Call once.
  void Start(const std::vector<WarmGroup>& groups);
  // Every request has finished (got its socket or failed); the sockets are back in the pool
  // (or sessions) then.
  bool done() const { return started_ && pending_ == 0; }
  // Gives up on what is pending (nothing left to run): cancels those requests and releases
  // the sockets held.
  void Abandon();
  // Connections the warm-up opened (connect jobs that succeeded; an idle socket or open
  // session it found instead is not counted).
  int opened() const { return opened_; }

 private:
  struct Connect {
    ReplayWarmStart* owner = nullptr;
    size_t group = 0;
    bool first = false;  // the origin's first: decides h2
    std::unique_ptr<ClientSocketHandle> handle;
  };
  void Open(size_t group, bool first);
  void OnConnected(Connect* connect, int result);
  // Every request done: HTTP/1.1 sockets go back to the pool idle.
  void ReleaseAll();

  UrlRequestContext* const context_;
  const NetLogWithSource net_log_;
  std::vector<WarmGroup> groups_;
  std::vector<std::unique_ptr<Connect>> connects_;
  int pending_ = 0;
  int opened_ = 0;
  bool started_ = false;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_WARM_START_H_
