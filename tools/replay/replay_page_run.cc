#include "tools/replay/replay_page_run.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "net/base/load_timing_phases.h"
#include "net/base/net_error.h"
#include "net/http/http_response_headers.h"
#include "tools/replay/replay_page_metrics.h"
#include "tools/replay/replay_responder.h"

namespace netstack {
namespace {

// Lighthouse's Lantern charges a response served from the browser's own cache 8 ms plus 20 ms
// per megabyte; recorded cache hits cost that, with no network use.
constexpr int64_t kRecordedHitBaseUs = 8'000;
constexpr int64_t kRecordedHitUsPerMiB = 20'000;

double Ms(TimeTicks from, TimeTicks to) { return MillisecondsBetween(from, to); }

double Ms(TimeDelta d) { return ToMilliseconds(d); }

// The message of a request that failed with `error` (as UrlRequest words its own).
std::string ErrorMessage(int error, const std::string& detail) {
  return ErrorToMessage(error) + ": " + detail;
}

// Test-only: NETSTACK_ICOUNT_TEST_SPIN=N makes every replayed network request spin N loop
// iterations, a known slowdown for tests/bench/icount_test.py to check that the instruction-count
// gate (tools/bench/icount --check) trips. Unset (always, outside that test), it costs about 14
// instructions per request (0.008 % of one; measured with callgrind).
void IcountTestSpin() {
  static const long spins = [] {
    const char* v = std::getenv("NETSTACK_ICOUNT_TEST_SPIN");
    return v ? std::max(0L, std::strtol(v, nullptr, 10)) : 0L;
  }();
  for (volatile long i = 0; i < spins; i = i + 1) {
  }
}

}  // namespace

void ReplayPageRun::EntryRun::OnComplete(UrlRequest*, int result) {
  run->OnEntryComplete(this, result);
}

ReplayPageRun::ReplayPageRun(Scheduler& scheduler, UrlRequestContext* context,
                             ReplayResponder* responder, Delegate* delegate, RequestRecord* scratch,
                             std::shared_ptr<const PreparedPage> page, uint64_t page_index,
                             TimeTicks session_start)
    : scheduler_(scheduler),
      context_(context),
      responder_(responder),
      delegate_(delegate),
      scratch_(scratch),
      page_(std::move(page)),
      page_index_(page_index),
      session_start_(session_start),
      empty_timer_(scheduler) {
  for (size_t i = 0; i < page_->entries.size(); ++i)
    entries_.emplace_back(this, static_cast<int>(i), scheduler_);
  remaining_ = entries_.size();
}

ReplayPageRun::~ReplayPageRun() {
  empty_timer_.Stop();
  for (EntryRun& e : entries_) {
    e.timer.Stop();
    responder_->Forget(&e);
    e.request.reset();
  }
}

void ReplayPageRun::Start() {
  started_ = true;
  start_ = last_end_ = scheduler_.Now();
  const TracePage& page = *page_->page;
  result_.page_index = page_index_;
  result_.id = page.id;
  result_.url = page.entries.empty() ? page.title : page.entries[0].url;
  result_.source = page.source;
  result_.start_ms = Ms(session_start_, start_);
  result_.recorded_load_ms = page.entries.empty() ? -1 : page.RecordedLastEndMs();
  // What the reader skipped is reported with the page (entries without a response add to it).
  result_.skipped = page.skipped_entries;
  result_.skipped_not_http = page.skipped_not_http;
  result_.skipped_invalid_url = page.skipped_invalid_url;
  result_.skipped_unfinished = page.skipped_unfinished;
  result_.warm_connections = warm_connections_;
  result_.first_invalid_url = page.first_invalid_url;
  result_.recorded_onload_ms = page.recorded_onload_ms >= 0 ? page.recorded_onload_ms : -1;
  result_.recorded_content_load_ms =
      page.recorded_content_load_ms >= 0 ? page.recorded_content_load_ms : -1;
  // Without entries, the page events are as recorded (an empty load set).
  result_.onload_ms = result_.recorded_onload_ms;
  result_.content_load_ms = result_.recorded_content_load_ms;
  if (entries_.empty()) {
    empty_timer_.Start(TimeDelta::zero(), [this] { delegate_->OnPageDone(this, result_); });
    return;
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    const PreparedEntry& p = page_->entries[i];
    if (p.parent < 0) PostStart(static_cast<int>(i), p.offset);
  }
}

void ReplayPageRun::PostStart(int index, TimeDelta delay) {
  // The task captures one pointer (the entry knows its run and index), so the timer's posted
  // function needs no allocation.
  EntryRun* e = &entries_[index];
  e->timer.Start(delay, [e] { e->run->StartEntry(e->index); });
}

void ReplayPageRun::StartEntry(int index) {
  EntryRun& e = entries_[index];
  e.start = scheduler_.Now();
  const PreparedEntry& p = page_->entries[index];
  switch (p.kind) {
    case PreparedEntry::Kind::kNetwork: {
      IcountTestSpin();
      delegate_->OnEntryStarting(this, index);
      e.request = std::make_unique<UrlRequest>(context_, p.params, &e);
      responder_->Expect(&e);
      e.request->Start();
      return;
    }
    case PreparedEntry::Kind::kRecordedHit: {
      delegate_->OnEntryStarting(this, index);
      const TraceEntry& recorded = page_->page->entries[index];
      // Clamped to the readers' bound (trace.h) and divided first, so that no page a caller
      // builds can overflow the product.
      int64_t bytes = std::clamp<int64_t>(recorded.response_body_bytes, 0, kMaxTraceBodyBytes);
      constexpr int64_t kMiB = 1024 * 1024;
      TimeDelta cost(kRecordedHitBaseUs + kRecordedHitUsPerMiB * (bytes / kMiB) +
                     kRecordedHitUsPerMiB * (bytes % kMiB) / kMiB);
      // The browser's own cache is not modelled: when the recording timed the read, that is
      // what it cost (a memory-cache hit takes ~1 ms, a disk read more); Lantern's constant is
      // the fallback for recordings without a duration.
      if (recorded.recorded_total_ms > 0) {
        double ms = std::min(recorded.recorded_total_ms, kMaxTraceMs);
        cost = TimeDelta(static_cast<int64_t>(std::llround(ms * 1000)));
      }
      e.timer.Start(cost, [entry = &e] {
        entry->run->CompleteLocally(entry->index, Local::kRecordedHit, OK, "");
      });
      return;
    }
    case PreparedEntry::Kind::kRecordedFailure: {
      delegate_->OnEntryStarting(this, index);
      // The failure as recorded: it costs its recorded duration and touches no network.
      const TraceEntry& recorded = page_->page->entries[index];
      double ms = std::clamp(recorded.recorded_total_ms, 0.0, kMaxTraceMs);
      e.timer.Start(TimeDelta(static_cast<int64_t>(std::llround(ms * 1000))), [entry = &e] {
        entry->run->CompleteLocally(entry->index, Local::kRecordedFailure, OK, "");
      });
      return;
    }
    case PreparedEntry::Kind::kSkipped:
      e.end = e.start;
      ++result_.skipped;
      FinishEntry(index);
      return;
    case PreparedEntry::Kind::kInvalid:
      CompleteLocally(index, Local::kError, p.invalid_error, p.invalid_detail);
      return;
  }
}

void ReplayPageRun::FillContext(int index) {
  const TraceEntry& t = page_->page->entries[index];
  const PreparedEntry& p = page_->entries[index];
  const EntryRun& e = entries_[index];
  RequestRecord& r = *scratch_;
  // The trace's own text (the URL as recorded, even one that does not parse).
  r.url.assign(t.url);
  r.method.assign(t.method);
  r.start = e.start;
  r.end = e.end;
  // Engaged once and then reused: their strings keep their buffers.
  if (!r.placement) r.placement.emplace();
  r.placement->type.assign(t.resource_type);
  r.placement->priority = p.priority();
  r.placement->page_start = start_;
  if (!r.entry) r.entry.emplace();
  r.entry->page = page_index_;
  r.entry->entry = index;
  r.entry->host.assign(p.request().url.host());
  r.entry->parent = t.parent;
  if (!r.model) r.model.emplace();
  r.model->request_ms = r.model->server_ms = r.model->response_ms = 0;
  r.model->recorded_start_ms = t.start_ms;
  r.model->recorded_end_ms = t.recorded_total_ms >= 0 ? t.start_ms + t.recorded_total_ms : -1;
}

void ReplayPageRun::OnEntryComplete(EntryRun* e, int result) {
  responder_->Forget(e);
  UrlRequest& request = *e->request;
  e->end = request.end_time() != TimeTicks{} ? request.end_time() : scheduler_.Now();
  RequestRecord& r = *scratch_;
  FillRequestRecord(request, /*with_headers=*/false, &r);
  FillContext(e->index);
  const LoadTimingInfo& t = request.load_timing_info();
  e->setup = SetupInterval(r.connection.socket_source, t, e->start, start_);
  if (e->served && t.send_start != TimeTicks{} && t.receive_headers_start != TimeTicks{} &&
      e->arrived >= t.send_start) {
    r.model->request_ms = Ms(t.send_start, e->arrived);
    r.model->server_ms = Ms(e->server_time);
    r.model->response_ms = Ms(e->arrived + e->server_time, t.receive_headers_start);
  }
  // The request is done with: its socket is back in the pool (or closed).
  e->request.reset();
  FinishEntry(e->index);
}

void ReplayPageRun::CompleteLocally(int index, Local how, int error, const std::string& detail) {
  EntryRun& e = entries_[index];
  e.end = scheduler_.Now();
  RequestRecord& r = *scratch_;
  FillContext(index);
  ClearRequestRecord(&r);
  r.start = e.start;
  r.end = e.end;
  const TraceEntry& t = page_->page->entries[index];
  if (how == Local::kRecordedFailure) {
    // The readers give a net error (< 0); anything else is named ERR_FAILED.
    r.recorded_failure = true;
    r.error = t.recorded_error_code < 0 ? t.recorded_error_code : ERR_FAILED;
    r.error_message = ErrorMessage(r.error, "recorded failure: " + t.recorded_error);
  } else if (how == Local::kError) {
    r.error = error;
    r.error_message = ErrorMessage(error, detail);
  } else {
    r.recorded_hit = true;
    r.status = t.status;
    // The recording knows the body as transferred only; nothing decodes it here.
    r.body_bytes = r.transfer_bytes = std::max<int64_t>(0, t.response_body_bytes);
  }
  FinishEntry(index);
}

void ReplayPageRun::FinishEntry(int index) {
  EntryRun& e = entries_[index];
  const PreparedEntry& p = page_->entries[index];
  e.done = true;
  if (p.kind != PreparedEntry::Kind::kSkipped) {
    const RequestRecord& r = *scratch_;
    const SocketSource source = r.connection.socket_source;
    AddRequestCounts(r, &result_);
    // A socket used before has no setup: only new connections add to the wait.
    if (source != SocketSource::kNone && source != SocketSource::kReused)
      result_.connect_wait_ms += r.phases.connect_wait_ms();
    // Critical and background apart, as the predictor's accounting counts them (the pool's
    // Assignment::background: IDLE priority is off the page's critical path).
    const bool background = r.placement && r.placement->priority == IDLE;
    if (source == SocketSource::kPreconnected)
      ++(background ? result_.preconnected_background : result_.preconnected);
    if (source == SocketSource::kPreconnectedLate)
      ++(background ? result_.preconnect_late_background : result_.preconnect_late);
    if (IsConnectJobSocket(source) || IsPreconnectSocket(source))
      ++(background ? result_.connections_needed_background : result_.connections_needed);
    if (page_->page->entries[index].pushed) ++result_.pushed;
    delegate_->OnRequestDone(this, r);
  }
  last_end_ = std::max(last_end_, e.end);
  for (int c = page_->child_begin[index]; c < page_->child_begin[index + 1]; ++c) {
    int child = page_->children[c];
    TimeDelta delay = (e.end + page_->entries[child].gap) - scheduler_.Now();
    PostStart(child, delay);
  }
  if (--remaining_ == 0) {
    result_.load_ms = Ms(start_, last_end_);
    ComputePageFigures();
    delegate_->OnPageDone(this, result_);
  }
}

void ReplayPageRun::ComputePageFigures() {
  const TracePage& page = *page_->page;
  std::vector<PageEventEntry> ends(entries_.size());
  std::vector<OracleEntry> oracle(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    ends[i].recorded_end_ms = page.entries[i].RecordedEndMs();
    // Skipped entries are not in any load set.
    if (page_->entries[i].kind != PreparedEntry::Kind::kSkipped)
      ends[i].replayed_end_ms = Ms(start_, entries_[i].end);
    oracle[i].parent = page_->entries[i].parent;
    oracle[i].setup = entries_[i].setup;
  }
  if (result_.recorded_onload_ms >= 0 || result_.recorded_content_load_ms >= 0) {
    result_.onload_ms = ReplayedPageEventMs(result_.recorded_onload_ms, ends);
    result_.content_load_ms = ReplayedPageEventMs(result_.recorded_content_load_ms, ends);
  }
  OracleResult o = CriticalPathSetup(oracle, PageLoadLastEntry(result_.recorded_onload_ms, ends));
  result_.oracle_setup_ms = o.setup_ms;
  result_.oracle_critical_requests = o.critical_requests;
}

void ReplayPageRun::Abort(const std::string& why) {
  for (size_t i = 0; i < entries_.size(); ++i) {
    EntryRun& e = entries_[i];
    if (e.done) continue;
    e.timer.Stop();
    responder_->Forget(&e);
    e.request.reset();
    if (e.start == TimeTicks{}) e.start = scheduler_.Now();
    CompleteLocally(static_cast<int>(i), Local::kError, ERR_FAILED, why);
  }
  // Children of the aborted entries were posted again while aborting: cancel them.
  for (EntryRun& e : entries_) e.timer.Stop();
}

}  // namespace netstack
