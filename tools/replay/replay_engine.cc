#include "tools/replay/replay_engine.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "net/base/clock.h"
#include "net/base/net_log.h"
#include "net/base/net_log_file_writer.h"
#include "net/base/virtual_scheduler.h"
#include "net/http/sim_stack.h"
#include "net/http/url_request_context.h"
#include "net/sim/sim_network.h"
#include "tools/replay/replay_page_run.h"
#include "tools/replay/replay_predictor.h"
#include "tools/replay/replay_prepared_page.h"
#include "tools/replay/replay_responder.h"
#include "tools/replay/replay_warm_start.h"

namespace netstack {
namespace {

// Virtual time starts here rather than at zero: TimeTicks{} means "not set" in timings.
const TimeTicks kSessionStart = TimeTicks{} + std::chrono::seconds(1);
// The wall clock's origin when the trace does not say when it was recorded.
constexpr int64_t kDefaultEpochMs = 1'704'067'200'000;  // 2024-01-01T00:00:00Z
// Finished pages the modelled servers remember for a predictor's fetch-ahead.
constexpr size_t kKeptFinishedPages = 64;

TimeDelta FromMs(double ms) {
  return TimeDelta(static_cast<int64_t>(std::llround(std::max(0.0, ms) * 1000.0)));
}

}  // namespace

class ReplayEngine::Impl : public ReplayPageRun::Delegate {
 public:
  explicit Impl(const ReplayConfig& config)
      : config_(config), responder_(config_.network), page_cache_(config_) {}

  ~Impl() override {
    if (monitor_ && context_) monitor_->OnStackDestroyed();
    // Pages own requests of the context: they go first, then the predictor (it observes the
    // context's pool).
    for (auto& page : pages_) responder_.RemovePage(page.get());
    pages_.clear();
    predictor_.reset();
  }

  bool Run(TraceSource* source, std::string* error);
  void OnRequestDone(ReplayPageRun* page, const RequestRecord& record) override;
  void OnPageDone(ReplayPageRun* run, const PageResult& page) override;
  void OnEntryStarting(ReplayPageRun* page, int index) override;

  ReplayConfig config_;
  std::vector<ReplayObserver*> observers_;
  std::string netlog_path_, netlog_command_line_;
  uint64_t progress_every_ = 0;
  std::function<void(const ReplayTotals&)> progress_;
  uint64_t next_page_index_ = 0;
  ReplayTotals totals_;
  bool input_error_ = false;
  Monitor* monitor_ = nullptr;

 private:
  // Builds the stack at the first navigation (or at the end, or at the first event the
  // predictor acts on), with the wall clock's origin at `epoch_ms` now. False with `error` if
  // the NetLog file cannot be written.
  bool EnsureStack(int64_t epoch_ms, std::string* error);
  // At the first navigation: the wall clock starts at its page's recorded start (the stack may
  // have been built earlier for the predictor, with the default origin).
  void SetClockOrigin(int64_t epoch_ms);
  // cold_runs: the stack goes (pages in flight finish first), and the next EnsureStack builds
  // a fresh one: empty cache, pools, host cache, TLS sessions and predictor. The NetLog and
  // its file stay (one file across stacks). Adds the network's counters and the predictor's
  // figures to the totals first.
  void DestroyStack();
  // Adds the current stack's network counters and predictor figures to the totals.
  void CollectStackTotals();
  // warm_start: opens `page`'s warm connections and runs virtual time until they are open.
  // Returns how many it opened.
  int WarmUp(const PreparedPage& page);
  void Navigate(const SessionEvent& event, std::shared_ptr<const PreparedPage> prepared,
                int warm_connections);
  // Runs the scheduler until no page is in flight; aborts the pages if nothing is left to run.
  void RunUntilPagesDone();
  void Reap();

  VirtualScheduler scheduler_{kSessionStart};
  std::unique_ptr<NetLog> net_log_;
  std::unique_ptr<NetLogFileWriter> netlog_writer_;
  ReplayResponder responder_;
  // The simulated stack; its wall clock follows virtual time from an origin fixed at the first
  // navigation.
  std::unique_ptr<SimStack> stack_;
  UrlRequestContext* context_ = nullptr;  // stack_'s
  ReplayPageCache page_cache_;
  // The predictor over context_ (declared after it: destroyed first).
  std::unique_ptr<ReplayPredictor> predictor_;
  bool clock_origin_set_ = false;
  // Pages navigated by this run (the first page of the trace starts on the first stack).
  uint64_t navigated_ = 0;
  // Network counters and predictor figures of the stacks cold runs destroyed.
  uint64_t past_dns_lookups_ = 0, past_tls_handshakes_ = 0, past_tls_resumed_ = 0;
  PredictorStats past_predictor_;
  // Pages in flight and finished ones not yet destroyed (declared after what they use).
  std::vector<std::unique_ptr<ReplayPageRun>> pages_;
  std::vector<ReplayPageRun*> finished_;
  size_t in_flight_ = 0;
  RequestRecord scratch_;
  TimeTicks last_done_ = kSessionStart;
  bool stalled_ = false;
  bool ran_ = false;
};

bool ReplayEngine::Impl::EnsureStack(int64_t epoch_ms, std::string* error) {
  if (context_) return true;
  if (!net_log_) {
    // Always a NetLog: sockets take their ids from it. Without an observer it only counts ids.
    // One for the whole run: a cold run's stack writes into the same file.
    net_log_ = std::make_unique<NetLog>(scheduler_);
  }
  if (!netlog_path_.empty() && !netlog_writer_) {
    // The wall-clock time of TimeTicks zero, so viewers show the recording's dates.
    int64_t offset_ms =
        epoch_ms - static_cast<int64_t>(ToMilliseconds(scheduler_.Now().time_since_epoch()));
    netlog_writer_ = NetLogFileWriter::Create(
        netlog_path_, net_log_.get(), NetLogConstants(offset_ms, netlog_command_line_), error);
    if (!netlog_writer_) return false;
  }
  SimStackOptions options;
  options.network = config_.network.Resolved();  // the trace's values and the scales applied
  options.context.pool.max_sockets = config_.max_sockets;
  options.context.pool.max_sockets_per_group = config_.max_sockets_per_group;
  options.clock_origin = TimeFromUnixMicros(kDefaultEpochMs * 1000);
  options.clock_ticks_origin = kSessionStart;
  options.http_cache = config_.cache;
  options.cache.max_bytes = config_.cache_bytes;
  stack_ = SimStack::Create(scheduler_, net_log_.get(), &responder_, options, error);
  if (!stack_) return false;
  context_ = stack_->context();
  // A predictor's fetch-ahead asks for a page's URL before the page is navigated to: the
  // modelled servers answer it as the page was last time.
  if (config_.predictor.policy != "off") responder_.KeepFinishedPages(kKeptFinishedPages);
  predictor_ =
      std::make_unique<ReplayPredictor>(config_.predictor, scheduler_, context_, net_log_.get());
  if (monitor_)
    monitor_->OnStackCreated(context_, predictor_->predictor(), net_log_.get(), stack_->clock());
  return true;
}

void ReplayEngine::Impl::SetClockOrigin(int64_t epoch_ms) {
  if (clock_origin_set_) return;
  clock_origin_set_ = true;
  stack_->clock().SetOrigin(TimeFromUnixMicros(epoch_ms * 1000), scheduler_.Now());
}

void ReplayEngine::Impl::CollectStackTotals() {
  const SimNetwork::Stats& stats = stack_->network()->stats();
  totals_.dns_lookups = past_dns_lookups_ + stats.dns_lookups;
  totals_.tls_handshakes = past_tls_handshakes_ + stats.tls_handshakes;
  totals_.tls_resumed = past_tls_resumed_ + stats.tls_resumed;
  // Pending speculative actions end as wasted; the outcomes go into the NetLog too.
  predictor_->Finish(&totals_);
  AddPredictorStats(&totals_.predictor, past_predictor_);
}

void ReplayEngine::Impl::DestroyStack() {
  if (!context_) return;
  CollectStackTotals();
  past_dns_lookups_ = totals_.dns_lookups;
  past_tls_handshakes_ = totals_.tls_handshakes;
  past_tls_resumed_ = totals_.tls_resumed;
  past_predictor_ = totals_.predictor;
  if (monitor_) monitor_->OnStackDestroyed();
  // Idle sockets end their NetLog lifetimes before the stack goes.
  context_->socket_pool()->CloseIdleSockets();
  Reap();
  predictor_.reset();
  context_ = nullptr;
  stack_.reset();
  clock_origin_set_ = false;
  ++totals_.cold_runs;
}

int ReplayEngine::Impl::WarmUp(const PreparedPage& page) {
  ReplayWarmStart warm(context_,
                       NetLogWithSource::Make(net_log_.get(), NetLogSourceType::HTTP_STREAM_JOB));
  warm.Start(page.warm_groups);
  while (!warm.done()) {
    TimeTicks next;
    if (!scheduler_.NextTaskTime(&next)) {
      warm.Abandon();  // nothing can finish it: the page starts with what is open
      break;
    }
    totals_.scheduler_tasks +=
        scheduler_.AdvanceBy(std::max(TimeDelta::zero(), next - scheduler_.Now()));
    Reap();
  }
  return warm.opened();
}

void ReplayEngine::Impl::Navigate(const SessionEvent& event,
                                  std::shared_ptr<const PreparedPage> prepared,
                                  int warm_connections) {
  ++navigated_;
  auto run =
      std::make_unique<ReplayPageRun>(scheduler_, context_, &responder_, this, &scratch_,
                                      std::move(prepared), next_page_index_++, kSessionStart);
  ReplayPageRun* page = run.get();
  page->set_warm_connections(warm_connections);
  pages_.push_back(std::move(run));
  responder_.AddPage(page);
  ++in_flight_;
  // The page as the predictor knows it: the navigation's URL, else its document's.
  const TracePage& trace_page = *event.page;
  const std::string& text =
      !event.url.empty() ? event.url
                         : (trace_page.entries.empty() ? std::string() : trace_page.entries[0].url);
  Url url;
  std::string message;
  if (!text.empty() && Url::Parse(text, &url, &message) == OK) {
    page->set_page_url(url);
    // Before the document is requested (Start posts it): hints act from now.
    predictor_->OnNavigation(url);
  }
  page->set_started_epoch_ms(static_cast<double>(ToUnixMicros(stack_->clock().Now())) / 1000.0);
  page->Start();
}

void ReplayEngine::Impl::OnEntryStarting(ReplayPageRun* page, int index) {
  if (page->page_url().spec().empty()) return;
  const Url& url = page->prepared().entries[index].request().url;
  if (!url.host().empty()) predictor_->OnResourceRequested(page->page_url(), url);
}

void ReplayEngine::Impl::OnRequestDone(ReplayPageRun* page, const RequestRecord& r) {
  // How the entry was served decides a fetch ahead of its URL (a recorded hit or failure is
  // kBypass: the browser's own cache or the recording served it, not the fetch).
  if (!page->page_url().spec().empty() && r.entry) {
    const Url& url = page->prepared().entries[r.entry->entry].request().url;
    if (!url.host().empty())
      predictor_->OnResourceServed(page->page_url(), url, r.cache, r.connection.socket_source);
  }
  ReplayTotals& t = totals_;
  AddRequestCounts(r, &t);
  for (ReplayObserver* o : observers_) o->OnRequest(r);
  if (progress_every_ && progress_ && t.requests % progress_every_ == 0) {
    t.virtual_ms = ToMilliseconds(scheduler_.Now() - kSessionStart);
    progress_(t);
  }
}

void ReplayEngine::Impl::OnPageDone(ReplayPageRun* run, const PageResult& page) {
  ++totals_.pages;
  totals_.skipped += static_cast<uint64_t>(page.skipped);
  totals_.skipped_not_http += static_cast<uint64_t>(page.skipped_not_http);
  totals_.skipped_invalid_url += static_cast<uint64_t>(page.skipped_invalid_url);
  totals_.skipped_unfinished += static_cast<uint64_t>(page.skipped_unfinished);
  if (page.has_onload()) ++totals_.pages_with_onload;
  totals_.warm_connections += static_cast<uint64_t>(page.warm_connections);
  if (totals_.first_invalid_url.empty()) totals_.first_invalid_url = page.first_invalid_url;
  totals_.pushed += static_cast<uint64_t>(page.pushed);
  totals_.connect_wait_ms += page.connect_wait_ms;
  if (!run->page_url().spec().empty()) predictor_->OnNavigationComplete(run->page_url());
  last_done_ = std::max(last_done_, scheduler_.Now());
  --in_flight_;
  finished_.push_back(run);
  for (ReplayObserver* o : observers_) o->OnPage(page);
}

void ReplayEngine::Impl::Reap() {
  if (finished_.empty()) return;
  for (ReplayPageRun* run : finished_) responder_.RemovePage(run);
  auto is_finished = [this](const std::unique_ptr<ReplayPageRun>& p) {
    return std::find(finished_.begin(), finished_.end(), p.get()) != finished_.end();
  };
  pages_.erase(std::remove_if(pages_.begin(), pages_.end(), is_finished), pages_.end());
  finished_.clear();
}

void ReplayEngine::Impl::RunUntilPagesDone() {
  while (in_flight_ > 0) {
    TimeTicks next;
    if (!scheduler_.NextTaskTime(&next)) {
      // Nothing can complete the pages in flight: a bug in the stack or the model. Report
      // their requests as failed rather than hang or drop them.
      stalled_ = true;
      std::vector<ReplayPageRun*> open;
      for (auto& p : pages_)
        if (std::find(finished_.begin(), finished_.end(), p.get()) == finished_.end())
          open.push_back(p.get());
      for (ReplayPageRun* p : open) p->Abort("replay stalled: the request never completed");
      Reap();
      return;
    }
    totals_.scheduler_tasks +=
        scheduler_.AdvanceBy(std::max(TimeDelta::zero(), next - scheduler_.Now()));
    Reap();
  }
}

bool ReplayEngine::Impl::Run(TraceSource* source, std::string* error) {
  if (ran_) {
    *error = "ReplayEngine::Run called twice";
    return false;
  }
  ran_ = true;
  SessionEvent event;
  std::string source_error;
  TimeDelta shift{};
  TimeTicks last_event = kSessionStart;
  uint64_t index = 0;
  while (source->Next(&event, &source_error)) {
    if (monitor_) monitor_->BeforeEvent(event, index, totals_);
    ++index;
    TimeTicks due = kSessionStart + FromMs(event.t_ms) + shift;
    if (due > scheduler_.Now()) {
      totals_.scheduler_tasks += scheduler_.AdvanceBy(due - scheduler_.Now());
      Reap();
    }
    last_event = std::max(last_event, scheduler_.Now());
    switch (event.type) {
      case SessionEvent::Type::kNavigate:
        if (!event.page) {
          ++totals_.other_events;
          break;
        }
        {
          // A recorded run after the trace's first page: a fresh browser (cold_runs). Pages in
          // flight finish on the old stack first; the time that takes shifts later events.
          if (config_.cold_runs && event.as_recorded && event.page->new_run && navigated_ > 0 &&
              context_) {
            TimeTicks wait_start = scheduler_.Now();
            RunUntilPagesDone();
            shift += scheduler_.Now() - wait_start;
            DestroyStack();
          }
          int64_t epoch =
              event.page->started_epoch_ms > 0 ? event.page->started_epoch_ms : kDefaultEpochMs;
          if (!EnsureStack(epoch, error)) return false;
          SetClockOrigin(epoch);
          auto prepared = page_cache_.Get(event.page);
          int warm = 0;
          if (config_.warm_start && event.as_recorded && !prepared->warm_groups.empty()) {
            // The connections the recording shows open are opened first; the page starts when
            // they are (its time is not the page's, and later events shift by it).
            TimeTicks warm_start = scheduler_.Now();
            warm = WarmUp(*prepared);
            shift += scheduler_.Now() - warm_start;
          }
          Navigate(event, std::move(prepared), warm);
        }
        break;
      case SessionEvent::Type::kWait:
        if (in_flight_ > 0) {
          TimeTicks wait_start = scheduler_.Now();
          RunUntilPagesDone();
          shift += scheduler_.Now() - wait_start;
        }
        break;
      default:
        ++totals_.other_events;
        // The predictor acts on startup, hover, omnibox and hint events; with it off, the stack
        // is not built for them (the replay is what it was without a predictor).
        if (config_.predictor.policy != "off") {
          if (!EnsureStack(kDefaultEpochMs, error)) return false;
          predictor_->OnEvent(event);
        }
        break;
    }
    // Drop the event's hold on its page before reading the next (bounded memory).
    event.page.reset();
  }
  if (!source_error.empty()) input_error_ = true;
  RunUntilPagesDone();
  if (!context_ && !EnsureStack(kDefaultEpochMs, error)) return false;
  totals_.virtual_ms = ToMilliseconds(std::max(last_done_, last_event) - kSessionStart);
  const SimNetwork::Stats& stats = stack_->network()->stats();
  totals_.dns_lookups = past_dns_lookups_ + stats.dns_lookups;
  totals_.tls_handshakes = past_tls_handshakes_ + stats.tls_handshakes;
  totals_.tls_resumed = past_tls_resumed_ + stats.tls_resumed;
  totals_.unmatched = responder_.unmatched();
  if (monitor_) monitor_->OnRunEnd(totals_);
  CollectStackTotals();
  if (netlog_writer_) {
    // Idle sockets end their NetLog lifetimes inside the file.
    context_->socket_pool()->CloseIdleSockets();
    std::string write_error;
    bool ok = netlog_writer_->Finish(context_->GetPolledData(), &write_error);
    netlog_writer_.reset();
    if (!ok && source_error.empty()) {
      *error = write_error;
      return false;
    }
  }
  if (!source_error.empty()) {
    *error = source_error;
    return false;
  }
  if (stalled_) {
    *error = source->name() + ": the replay stalled: some requests never completed";
    return false;
  }
  return true;
}

ReplayEngine::ReplayEngine(const ReplayConfig& config) : impl_(std::make_unique<Impl>(config)) {}
ReplayEngine::~ReplayEngine() = default;

void ReplayEngine::AddObserver(ReplayObserver* observer) { impl_->observers_.push_back(observer); }

bool ReplayEngine::SetNetLogFile(const std::string& path, const std::string& command_line,
                                 std::string* error) {
  // Checked now so a bad path is reported before the replay runs; written during Run.
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    *error = "cannot write netlog " + path + ": " + std::strerror(errno);
    return false;
  }
  std::fclose(f);
  impl_->netlog_path_ = path;
  impl_->netlog_command_line_ = command_line;
  return true;
}

void ReplayEngine::SetProgressCallback(uint64_t every,
                                       std::function<void(const ReplayTotals&)> callback) {
  impl_->progress_every_ = every;
  impl_->progress_ = std::move(callback);
}

void ReplayEngine::SetMonitor(Monitor* monitor) { impl_->monitor_ = monitor; }

void ReplayEngine::SetFirstPageIndex(uint64_t first) { impl_->next_page_index_ = first; }

bool ReplayEngine::Run(TraceSource* source, std::string* error) {
  return impl_->Run(source, error);
}

bool ReplayEngine::input_error() const { return impl_->input_error_; }

const ReplayTotals& ReplayEngine::totals() const { return impl_->totals_; }

}  // namespace netstack
