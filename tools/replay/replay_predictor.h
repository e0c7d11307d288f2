// ReplayPredictor: the predictor (predictor/predictor.h) in the simulated world. The engine
// builds one over its UrlRequestContext and tells it every session event at its time; this
// class turns events into Predictor calls and ends the predictor's accounting into the
// replay's totals. (How each request got its connection is the pool's SocketSource, in the
// request's ConnectionInfo: nothing here matches pool events to requests.)
//
// Events (docs/trace-format.md says what each makes the predictor do):
//   startup -> OnStartup; navigate -> OnNavigation(page URL) before the document is requested;
//   each entry issued (or read from the recorded browser cache) -> OnResourceRequested(page,
//   url); its answer -> OnResourceServed(page, url, cache disposition, connection); page
//   loaded -> OnNavigationComplete; hover -> OnHover; omnibox -> OnOmnibox(text,
//   url); hint "dns-prefetch" | "preconnect" | "preload" | "prefetch" -> OnStaticHint(latest
//   page, kind, url); hint "mouse-over" -> OnHover; any other hint -> AddHint: a pre-resolve
//   (the cheapest action: an unknown hint only says the host will be wanted) of the URL's
//   origin, static-referral, likelihood 0.5, expiring after 10 s.
//
// Internal to the engine (tools/replay/replay_engine.cc). Everything runs on the replay's
// scheduler.
#ifndef TOOLS_REPLAY_REPLAY_PREDICTOR_H_
#define TOOLS_REPLAY_REPLAY_PREDICTOR_H_

#include <memory>

#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/url.h"
#include "net/http/http_transaction.h"
#include "net/socket/socket_source.h"
#include "predictor/context_predictor.h"
#include "predictor/predictor_config.h"
#include "tools/replay/replay_result.h"
#include "tools/replay/trace/trace.h"

namespace netstack {

class UrlRequestContext;

class ReplayPredictor {
 public:
  // `scheduler` and `context` must outlive this object. `net_log` (may be null) receives the
  // predictor's events; with policy "off" it is not used, so the NetLog's ids (and every
  // output) are those of a replay without a predictor.
  ReplayPredictor(const PredictorConfig& config, Scheduler& scheduler, UrlRequestContext* context,
                  NetLog* net_log);
  // Removes the predictor from the pool (Finish() need not have run).
  ~ReplayPredictor();
  ReplayPredictor(const ReplayPredictor&) = delete;
  ReplayPredictor& operator=(const ReplayPredictor&) = delete;

  // A startup, hover, omnibox or hint event, now. Other types are ignored.
  void OnEvent(const SessionEvent& event);
  // A page load starts (call before its first request is issued).
  void OnNavigation(const Url& page);
  // One of `page`'s entries is requested.
  void OnResourceRequested(const Url& page, const Url& url);
  // One of `page`'s entries was served (or failed): `cache` as its record says (kBypass for a
  // recorded hit or failure), `connection` its record's socket source.
  void OnResourceServed(const Url& page, const Url& url, CacheDisposition cache,
                        SocketSource connection);
  // `page`'s load finished.
  void OnNavigationComplete(const Url& page);

  // Ends the predictor's accounting (Predictor::Finish) and writes its policy, stats and tables
  // into `totals`. Later events are ignored. Call once, before the pool goes.
  void Finish(ReplayTotals* totals);

  // The predictor, for the internals page.
  Predictor* predictor() { return predictor_; }

 private:
  Scheduler& scheduler_;
  UrlRequestContext* const context_;
  ContextPredictor context_predictor_;
  Predictor* const predictor_;  // context_predictor_'s
  Url last_page_;               // the page a session's "hint" event is for
  bool finished_ = false;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_PREDICTOR_H_
