#include "tools/replay/replay_page_run.h"

#include <algorithm>
#include <cmath>

#include "net/base/load_timing_phases.h"
#include "net/base/net_error.h"
#include "net/http/http_response_headers.h"
#include "tools/replay/replay_responder.h"

namespace netstack {
namespace {

// Lighthouse's Lantern charges a response served from the browser's own cache 8 ms plus 20 ms
// per megabyte; recorded cache hits cost that, with no network use.
constexpr int64_t kRecordedHitBaseUs = 8'000;
constexpr int64_t kRecordedHitUsPerMiB = 20'000;

double Ms(TimeTicks from, TimeTicks to) {
  if (from == TimeTicks{} || to == TimeTicks{} || to < from) return 0;
  return ToMilliseconds(to - from);
}

double Ms(TimeDelta d) { return ToMilliseconds(d); }

// The phases of `r` (net/base/load_timing_phases.h, shared with fetch).
void FillPhases(const UrlRequest& r, RequestResult* out) {
  const LoadTimingPhases p = ComputeLoadTimingPhases(r.load_timing_info(), r.start_time());
  out->dns_ms = p.dns_ms;
  out->connect_ms = p.connect_ms;
  out->tls_ms = p.tls_ms;
  out->send_ms = p.send_ms;
  out->ttfb_ms = p.ttfb_ms;
  out->receive_ms = p.receive_ms;
  out->queued_ms = p.queued_ms;
}

}  // namespace

void ReplayPageRun::EntryRun::OnComplete(UrlRequest*, int result) {
  run->OnEntryComplete(this, result);
}

ReplayPageRun::ReplayPageRun(Scheduler& scheduler, UrlRequestContext* context,
                             ReplayResponder* responder, Delegate* delegate, RequestResult* scratch,
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
      entries_(page_->entries.size()) {
  for (size_t i = 0; i < entries_.size(); ++i) {
    entries_[i].run = this;
    entries_[i].index = static_cast<int>(i);
  }
  remaining_ = entries_.size();
}

ReplayPageRun::~ReplayPageRun() {
  if (empty_task_ != kNoTask) scheduler_.CancelTask(empty_task_);
  for (EntryRun& e : entries_) {
    if (e.task != kNoTask) scheduler_.CancelTask(e.task);
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
  if (entries_.empty()) {
    empty_task_ = scheduler_.PostTask([this] {
      empty_task_ = kNoTask;
      delegate_->OnPageDone(this, result_);
    });
    return;
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    const PreparedEntry& p = page_->entries[i];
    if (p.parent < 0) PostStart(static_cast<int>(i), p.offset);
  }
}

void ReplayPageRun::PostStart(int index, TimeDelta delay) {
  entries_[index].task = scheduler_.PostDelayedTask(delay, [this, index] {
    entries_[index].task = kNoTask;
    StartEntry(index);
  });
}

void ReplayPageRun::StartEntry(int index) {
  EntryRun& e = entries_[index];
  e.start = scheduler_.Now();
  const PreparedEntry& p = page_->entries[index];
  switch (p.kind) {
    case PreparedEntry::Kind::kNetwork: {
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
      e.task = scheduler_.PostDelayedTask(cost, [this, index] {
        entries_[index].task = kNoTask;
        CompleteLocally(index, "recorded-hit", "");
      });
      return;
    }
    case PreparedEntry::Kind::kSkipped:
      e.end = e.start;
      ++result_.skipped;
      FinishEntry(index);
      return;
    case PreparedEntry::Kind::kInvalid:
      CompleteLocally(index, "bypass", p.invalid_error);
      return;
  }
}

void ReplayPageRun::FillCommon(int index) {
  const TraceEntry& t = page_->page->entries[index];
  const PreparedEntry& p = page_->entries[index];
  const EntryRun& e = entries_[index];
  RequestResult& r = *scratch_;
  r.page_index = page_index_;
  r.entry_index = index;
  r.url.assign(t.url);
  r.host.assign(p.request().url.host());
  r.method.assign(t.method);
  r.resource_type.assign(t.resource_type);
  r.priority.assign(RequestPriorityToString(p.priority()));
  r.start_ms = Ms(start_, e.start);
  r.end_ms = Ms(start_, e.end);
  r.recorded_start_ms = t.start_ms;
  r.recorded_end_ms = t.recorded_total_ms >= 0 ? t.start_ms + t.recorded_total_ms : -1;
  r.status = 0;
  r.error.clear();
  r.body_bytes = 0;
  r.queued_ms = r.dns_ms = r.connect_ms = r.tls_ms = r.send_ms = r.ttfb_ms = r.receive_ms = 0;
  r.request_ms = r.server_ms = r.response_ms = 0;
  r.socket_id = 0;
  r.socket_reused = false;
  r.socket_source = SocketSource::kNone;
  r.connection.clear();
}

void ReplayPageRun::OnEntryComplete(EntryRun* e, int result) {
  responder_->Forget(e);
  UrlRequest& request = *e->request;
  e->end = request.end_time() != TimeTicks{} ? request.end_time() : scheduler_.Now();
  FillCommon(e->index);
  RequestResult& r = *scratch_;
  if (auto headers = request.response_headers()) r.status = headers->response_code();
  if (result != OK) {
    r.error = ErrorToString(result);
    if (!request.error_message().empty()) r.error += ": " + request.error_message();
  }
  r.cache.assign(CacheDispositionName(request.cache_disposition()));
  r.body_bytes = request.encoded_body_bytes();
  FillPhases(request, &r);
  const LoadTimingInfo& t = request.load_timing_info();
  if (e->served && t.send_start != TimeTicks{} && t.receive_headers_start != TimeTicks{} &&
      e->arrived >= t.send_start) {
    r.request_ms = Ms(t.send_start, e->arrived);
    r.server_ms = Ms(e->server_time);
    r.response_ms = Ms(e->arrived + e->server_time, t.receive_headers_start);
  }
  const ConnectionInfo& conn = request.connection_info();
  r.socket_id = conn.socket_id;
  r.socket_reused = conn.reused();
  r.socket_source = conn.socket_source;
  switch (conn.socket_source) {
    case SocketSource::kNone:
      break;
    case SocketSource::kNew:
      r.connection.assign("new");
      break;
    case SocketSource::kReused:
      r.connection.assign("reused");
      break;
    case SocketSource::kPreconnected:
      r.connection.assign("preconnected");
      break;
    case SocketSource::kPreconnectedLate:
      r.connection.assign("late");
      break;
    case SocketSource::kUnusedIdle:
      r.connection.assign("idle");
      break;
  }
  // The request is done with: its socket is back in the pool (or closed).
  e->request.reset();
  FinishEntry(e->index);
}

void ReplayPageRun::CompleteLocally(int index, const char* cache, const std::string& error) {
  EntryRun& e = entries_[index];
  e.end = scheduler_.Now();
  FillCommon(index);
  scratch_->cache.assign(cache);
  scratch_->error = error;
  if (error.empty()) {
    scratch_->status = page_->page->entries[index].status;
    scratch_->body_bytes = std::max<int64_t>(0, page_->page->entries[index].response_body_bytes);
  }
  FinishEntry(index);
}

void ReplayPageRun::FinishEntry(int index) {
  EntryRun& e = entries_[index];
  const PreparedEntry& p = page_->entries[index];
  e.done = true;
  if (p.kind != PreparedEntry::Kind::kSkipped) {
    const RequestResult& r = *scratch_;
    ++result_.requests;
    if (!r.error.empty()) ++result_.failed;
    if (r.socket_id != 0) ++(r.socket_reused ? result_.sockets_reused : result_.sockets_opened);
    if (r.cache == "hit" || r.cache == "stale") ++result_.cache_hits;
    if (r.cache == "revalidated") ++result_.revalidated;
    if (p.kind == PreparedEntry::Kind::kRecordedHit) ++result_.recorded_hits;
    result_.dns_ms += r.dns_ms;
    result_.connect_ms += r.connect_ms;
    result_.tls_ms += r.tls_ms;
    result_.queued_ms += r.queued_ms;
    result_.ttfb_ms += r.ttfb_ms;
    result_.receive_ms += r.receive_ms;
    result_.bytes += r.body_bytes;
    if (r.socket_id != 0 && !r.socket_reused)
      result_.connect_wait_ms += r.dns_ms + r.connect_ms + r.tls_ms;
    if (r.socket_source == SocketSource::kPreconnected) ++result_.preconnected;
    if (r.socket_source == SocketSource::kPreconnectedLate) ++result_.preconnect_late;
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
    delegate_->OnPageDone(this, result_);
  }
}

void ReplayPageRun::Abort(const std::string& why) {
  for (size_t i = 0; i < entries_.size(); ++i) {
    EntryRun& e = entries_[i];
    if (e.done) continue;
    if (e.task != kNoTask) {
      scheduler_.CancelTask(e.task);
      e.task = kNoTask;
    }
    responder_->Forget(&e);
    e.request.reset();
    if (e.start == TimeTicks{}) e.start = scheduler_.Now();
    CompleteLocally(static_cast<int>(i), "bypass", why);
  }
  // Children of the aborted entries were posted again while aborting: cancel them.
  for (EntryRun& e : entries_) {
    if (e.task != kNoTask) scheduler_.CancelTask(e.task);
    e.task = kNoTask;
  }
}

}  // namespace netstack
