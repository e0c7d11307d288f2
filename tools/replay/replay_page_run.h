// ReplayPageRun: one navigation in flight in the replay engine. Places the page's entries in
// time (recorded offsets, or after the entry that revealed them), issues each as a UrlRequest
// (one per redirect hop: redirects are not followed, each hop is its own entry), records each
// completion (FillRequestRecord, then the entry's placement, replay entry and model parts), and
// says when the page is complete.
//
// Internal to the engine (tools/replay/replay_engine.cc).
#ifndef TOOLS_REPLAY_REPLAY_PAGE_RUN_H_
#define TOOLS_REPLAY_REPLAY_PAGE_RUN_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "net/base/scheduler.h"
#include "net/http/url_request.h"
#include "tools/replay/replay_oracle.h"
#include "tools/replay/replay_prepared_page.h"
#include "tools/replay/replay_result.h"

namespace netstack {

class ReplayResponder;
class UrlRequestContext;

class ReplayPageRun {
 public:
  // What the engine hears from a page. Calls happen on the scheduler, possibly inside Start().
  class Delegate {
   public:
    virtual ~Delegate() = default;
    // One entry finished. `result` is valid only during the call.
    virtual void OnRequestDone(ReplayPageRun* page, const RequestRecord& record) = 0;
    // Every entry finished; `page` has the page's figures. The run must not be destroyed
    // inside this call (the engine reaps it later).
    virtual void OnPageDone(ReplayPageRun* run, const PageResult& page) = 0;
    // Entry `index` is about to be issued (network) or read from the browser's cache
    // (recorded hit): the predictor hears of every resource a page asks for.
    virtual void OnEntryStarting(ReplayPageRun* page, int index) {}
  };

  // One entry's progress. The UrlRequest's delegate.
  struct EntryRun : public UrlRequest::Delegate {
    EntryRun(ReplayPageRun* run, int index, Scheduler& scheduler)
        : run(run), index(index), timer(scheduler) {}

    ReplayPageRun* const run;
    const int index;
    std::unique_ptr<UrlRequest> request;
    OneShotTimer timer;  // pending start (or recorded-hit completion)
    TimeTicks start{};
    TimeTicks end{};
    bool done = false;
    // Set by the responder when the modelled server answered this entry's request.
    bool expected = false;  // registered with the responder and not served yet
    bool served = false;
    TimeTicks arrived{};
    TimeDelta server_time{};
    // The connection setup the request waited for (replay_oracle.h's SetupInterval).
    OracleInterval setup;

    void OnReadData(UrlRequest*, const char*, int) override {}
    void OnComplete(UrlRequest* request, int result) override;
  };

  // `scheduler`, `context`, `responder`, `delegate` and `scratch` (a record reused for every
  // request) must outlive the run. `page_start` is when the navigation happens;
  // `session_start` is the session's time zero (PageResult::start_ms).
  ReplayPageRun(Scheduler& scheduler, UrlRequestContext* context, ReplayResponder* responder,
                Delegate* delegate, RequestRecord* scratch,
                std::shared_ptr<const PreparedPage> page, uint64_t page_index,
                TimeTicks session_start);
  // Cancels what is pending: start tasks, requests in flight (their results are not reported).
  ~ReplayPageRun();
  ReplayPageRun(const ReplayPageRun&) = delete;
  ReplayPageRun& operator=(const ReplayPageRun&) = delete;

  // Places the entries from now on. A page without entries completes on its first task.
  void Start();
  // Fails every unfinished entry now with `why` (the replay could not make progress), which
  // completes the page.
  void Abort(const std::string& why);

  bool done() const { return remaining_ == 0 && started_; }
  // The navigation's URL as the predictor knows the page (set by the engine before Start;
  // empty when the page has none that parses).
  void set_page_url(const Url& url) { page_url_ = url; }
  // Connections opened for the page before it started (warm_start): PageResult's
  // warm_connections. Set before Start.
  void set_warm_connections(int count) { warm_connections_ = count; }
  const Url& page_url() const { return page_url_; }
  // The page's start on the replay's wall clock (PageResult::started_epoch_ms); set by the
  // engine before Start.
  void set_started_epoch_ms(double epoch_ms) { result_.started_epoch_ms = epoch_ms; }
  uint64_t page_index() const { return page_index_; }
  const PreparedPage& prepared() const { return *page_; }
  const std::shared_ptr<const PreparedPage>& prepared_page() const { return page_; }
  EntryRun& entry(int index) { return entries_[index]; }

 private:
  void PostStart(int index, TimeDelta delay);
  void StartEntry(int index);
  void OnEntryComplete(EntryRun* entry, int result);
  // How a request that did not use the network ended.
  enum class Local {
    kRecordedHit,      // served by the browser's cache when recorded
    kRecordedFailure,  // failed when recorded: the trace's recorded error
    kError,            // invalid or aborted: `error` and what about it (`detail`)
  };
  void CompleteLocally(int index, Local how, int error, const std::string& detail);
  // The page's replayed onLoad and DOMContentLoaded (replay_page_metrics.h), when recorded, and
  // its oracle ceiling (replay_oracle.h).
  void ComputePageFigures();
  // Common end of an entry: figures, the observers, children, the page.
  void FinishEntry(int index);
  // The scratch record's context parts (placement, entry, model's recording) and the trace's
  // URL and method, for entry `index`.
  void FillContext(int index);

  Scheduler& scheduler_;
  UrlRequestContext* const context_;
  ReplayResponder* const responder_;
  Delegate* const delegate_;
  RequestRecord* const scratch_;
  const std::shared_ptr<const PreparedPage> page_;
  const uint64_t page_index_;
  const TimeTicks session_start_;
  TimeTicks start_{};
  TimeTicks last_end_{};
  std::deque<EntryRun> entries_;  // a deque: built in place (an EntryRun's timer cannot move)
  size_t remaining_ = 0;
  bool started_ = false;
  OneShotTimer empty_timer_;  // a page without entries completes on this
  PageResult result_;
  Url page_url_;
  int warm_connections_ = 0;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_PAGE_RUN_H_
