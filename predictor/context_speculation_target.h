// ContextSpeculationTarget: SpeculationTarget over a UrlRequestContext, the same in both worlds.
// Pre-resolves are HostResolver requests at IDLE priority that the target keeps until they
// finish; pre-connects are ClientSocketPool::RequestSockets; fetch-ahead is a UrlRequest at IDLE
// priority whose body is read and dropped while the HTTP cache stores it. The only file of the
// predictor that knows net/http (it links netstack_predictor_context).
#ifndef PREDICTOR_CONTEXT_SPECULATION_TARGET_H_
#define PREDICTOR_CONTEXT_SPECULATION_TARGET_H_

#include <list>
#include <memory>

#include "net/base/weak_ptr.h"
#include "predictor/speculation_target.h"

namespace netstack {

class UrlRequestContext;

class ContextSpeculationTarget : public SpeculationTarget {
 public:
  // `context` must outlive this object. Destroying it cancels pre-resolves and fetches still
  // running (their callbacks never run).
  explicit ContextSpeculationTarget(UrlRequestContext* context);
  ~ContextSpeculationTarget() override;
  ContextSpeculationTarget(const ContextSpeculationTarget&) = delete;
  ContextSpeculationTarget& operator=(const ContextSpeculationTarget&) = delete;

  int Preresolve(const SchemeHostPort& origin, const NetLogWithSource& net_log,
                 CompletionCallback done) override;
  int Preconnect(const SchemeHostPort& origin, int sockets,
                 const NetLogWithSource& net_log) override;
  int FetchAhead(const Url& url, const NetLogWithSource& net_log, CompletionCallback done) override;
  bool CanFetchAhead() const override;
  int SocketCount(const SchemeHostPort& origin) const override;
  bool IsResolved(const SchemeHostPort& origin) const override;

 private:
  class Work;  // one pre-resolve or fetch in flight
  // `work` finished with `result` (called from its own callback): destroys it and runs its
  // `done` in a posted task.
  void OnWorkDone(Work* work, int result);

  UrlRequestContext* const context_;
  std::list<std::unique_ptr<Work>> work_;
  WeakPtrFactory<ContextSpeculationTarget> weak_factory_{this};
};

}  // namespace netstack

#endif  // PREDICTOR_CONTEXT_SPECULATION_TARGET_H_
