#include "tools/netstack/fetch_command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <memory>
#include <vector>

#include "net/base/load_timing_phases.h"
#include "net/base/net_log_file_writer.h"
#include "net/http/har_writer.h"
#include "net/http/http_cache.h"
#include "net/http/live_stack.h"
#include "net/http/request_record_json.h"
#include "net/http/url_request.h"
#include "tools/netstack/cache_loop.h"
#include "tools/netstack/fetch_cache.h"
#include "tools/netstack/fetch_record.h"
#include "tools/netstack/fetch_wire_log.h"
#include "tools/netstack/live_internals.h"
#include "tools/netstack/output_file.h"
#include "tools/netstack/page_command.h"
#include "tools/netstack/page_har.h"
#include "tools/netstack/page_predictor.h"
#include "tools/netstack/terminal_text.h"
#include "tools/netstack/write_out.h"

namespace netstack {

namespace {

// Seconds as microseconds; the flags were checked finite and bounded (FiniteSeconds).
TimeDelta SecondsToDelta(double seconds) {
  return TimeDelta(static_cast<int64_t>(std::llround(seconds * 1e6)));
}

}  // namespace

LiveStackOptions MakeLiveStackOptions(const FetchOptions& o) {
  LiveStackOptions s;
  s.context.pool.max_sockets = o.max_sockets;
  s.context.pool.max_sockets_per_group = o.max_sockets_per_group;
  s.context.pool.connect_timeout = SecondsToDelta(o.connect_timeout_s);
  s.context.stream.idle_timeout = SecondsToDelta(o.timeout_s);
  s.context.limits.max_time = SecondsToDelta(o.max_time_s);
  s.context.limits.min_bytes_per_second = o.speed_limit;
  s.context.limits.low_speed_time = Seconds(o.speed_time_s > 0 ? o.speed_time_s : 30);
  s.context.limits.headers_timeout = SecondsToDelta(o.headers_timeout_s);
  s.context.stream.max_body_bytes = static_cast<int64_t>(o.max_body);
  s.context.resolver.allow_stale = o.stale_dns;
  s.dns.servers = o.dns_servers;
  s.dns.timeout = Milliseconds(o.dns_timeout_ms);
  s.dns.tries = o.dns_tries;
  // Names given on the command line are meant exactly when a server is named.
  s.dns.use_search_domains = o.dns_servers.empty();
  s.ssl.verify_peer = !o.insecure;
  s.ssl.ca_file = o.cacert;
  if (o.http1_1) s.ssl.alpn = {"http/1.1"};
  s.context.http2.offered_in_alpn = !o.http1_1;
  s.context.http2.prior_knowledge = o.http2_prior_knowledge;
  // Chrome closes an idle session after the pool's used-idle timeout.
  s.context.http2.pool.session.idle_timeout = s.context.pool.used_idle_socket_timeout;
  s.overrides = o.resolves;
  return s;
}

namespace {

// One URL's fetch: owns its UrlRequest and output file, and turns the result into a record.
class FetchJob : public UrlRequest::Delegate {
 public:
  // `wire_log` (null without -v or -w) counts the request heads for %{size_request};
  // `predictor` (null without -e) learns that `referer` needs this URL.
  FetchJob(size_t index, const FetchOptions& options, UrlRequestContext* context,
           FetchWireLog* wire_log, Predictor* predictor, const Url* referer,
           std::function<void(FetchJob*)> on_done)
      : index_(index),
        options_(options),
        context_(context),
        wire_log_(wire_log),
        predictor_(predictor),
        referer_(referer),
        on_done_(std::move(on_done)) {
    record_.speculative = nullptr;  // plain fetches act for no page (-e only teaches it)
  }

  ~FetchJob() override {
    if (output_ && output_ != stdout) std::fclose(output_);
  }

  void Start() {
    if (index_ < options_.outputs.size()) {
      const std::string& path = options_.outputs[index_];
      output_ = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
      if (!output_) {
        record_.url = options_.urls[index_].spec();
        record_.method = options_.method;
        record_.error = ERR_FAILED;
        record_.error_message = "cannot write " + path + ": " + std::strerror(errno);
        // Report asynchronously like every other outcome.
        context_->scheduler().PostTask([this] { on_done_(this); });
        return;
      }
    }
    UrlRequest::Params params;
    params.request.url = options_.urls[index_];
    params.request.method = options_.method;
    params.request.body = options_.data;
    params.request.cache_mode = options_.cache_mode;
    for (const auto& [name, value] : options_.headers)
      params.request.extra_headers.SetHeader(name, value);
    params.request.omitted_headers = options_.omitted_headers;
    params.follow_redirects = !options_.no_follow;
    params.max_redirects = options_.max_redirects;
    request_ = std::make_unique<UrlRequest>(context_, params, this);
    // -e: what a page load of the referrer tells the predictor, for this one request: the
    // navigation (its hints may preconnect what the referrer is known to need), the request,
    // then (OnComplete) how it was served and the load's end, when the learned policy learns.
    if (predictor_) {
      predictor_->OnNavigation(*referer_);
      predictor_->OnResourceRequested(*referer_, params.request.url);
    }
    request_->Start();
  }

  // -i: the final response's head goes before its body, where the body goes (the -o target,
  // else stdout), CRLFs and all, as curl writes it.
  void OnResponseStarted(UrlRequest* request) override { WriteHead(request); }

  // -i: each redirect's head too, its empty line ending it, as curl -i -L prints the hops (the
  // redirect bodies are not written). -w's %{size_header} counts every hop's, as curl's does.
  void OnRedirectReceived(UrlRequest* request) override {
    WriteHead(request);
    if (!options_.write_out.empty() && request->response_headers())
      redirect_header_bytes_ +=
          static_cast<int64_t>(request->response_headers()->ToHttpString().size());
  }

  void OnReadData(UrlRequest*, const char* data, int len) override {
    if (output_ && !write_failed_ &&
        std::fwrite(data, 1, static_cast<size_t>(len), output_) != static_cast<size_t>(len)) {
      write_failed_ = true;
      write_error_ = std::strerror(errno);
    }
  }

  void OnComplete(UrlRequest* request, int result) override {
    FillRecord(*request, result);
    if (predictor_) {
      predictor_->OnResourceServed(*referer_, request->original_url(), record_.cache,
                                   record_.connection.socket_source);
      predictor_->OnNavigationComplete(*referer_);
    }
    on_done_(this);
  }

  // The loop ended with this fetch unfinished (a bug: every path must complete). Records it
  // as failed so no URL goes unreported.
  void Abandon() {
    record_.url = options_.urls[index_].spec();
    record_.method = options_.method;
    record_.error = ERR_FAILED;
    record_.error_message = "internal error: the fetch never completed";
  }

  const RequestRecord& record() const { return record_; }
  bool failed() const { return record_.error != OK; }
  // -w's values (filled when the fetch ends, or from the record of an abandoned one).
  WriteOutValues write_out_values() const {
    // Copies of URLs and strings: only -w pays for them.
    if (options_.write_out.empty()) return WriteOutValues();
    return WriteOutValuesFromRecord(record_, content_type_, header_bytes_, http_version_,
                                    sent_.head_bytes, sent_.last_body_bytes);
  }

 private:
  // -i: `request`'s current head where the body goes (the -o target, else stdout).
  void WriteHead(UrlRequest* request) {
    if (!options_.include || !request->response_headers()) return;
    const std::string head = request->response_headers()->ToHttpString();
    OnReadData(request, head.data(), static_cast<int>(head.size()));
    if (!output_) std::fwrite(head.data(), 1, head.size(), stdout);
  }

  void FillRecord(const UrlRequest& r, int result) {
    // Only the --json object and the HAR carry the headers; the human line never shows them.
    FillRequestRecord(r, /*with_headers=*/options_.json || !options_.har_path.empty(), &record_);
    if (!options_.write_out.empty()) {
      header_bytes_ = redirect_header_bytes_;
      if (const auto& headers = r.response_headers()) {
        headers->GetNormalizedHeader("Content-Type", &content_type_);
        header_bytes_ += static_cast<int64_t>(headers->ToHttpString().size());
        const HttpVersion v = headers->version();
        // curl's spellings: "2" for h2, "1.1", and "1" for HTTP/1.0.
        http_version_ = r.connection_info().protocol == "h2" || v.major >= 2 ? "2"
                        : v.minor == 0 ? std::to_string(v.major)
                                       : std::to_string(v.major) + "." + std::to_string(v.minor);
      }
      if (wire_log_) sent_ = wire_log_->TakeSent(r.net_log().source().id);
    }
    if (result == OK && write_failed_) {
      record_.error = ERR_FAILED;
      record_.error_message = "cannot write " + options_.outputs[index_] + ": " + write_error_;
    }
  }

  const size_t index_;
  const FetchOptions& options_;
  UrlRequestContext* const context_;
  FetchWireLog* const wire_log_;
  Predictor* const predictor_;
  const Url* const referer_;
  std::function<void(FetchJob*)> on_done_;
  std::unique_ptr<UrlRequest> request_;
  FILE* output_ = nullptr;
  bool write_failed_ = false;
  std::string write_error_;
  RequestRecord record_;
  // What -w needs beyond the record.
  std::string content_type_;
  std::string http_version_;
  int64_t header_bytes_ = 0;           // every hop's head (curl's %{size_header})
  int64_t redirect_header_bytes_ = 0;  // the redirects' heads, as they were followed
  FetchWireLog::Sent sent_;
};

}  // namespace

bool OpenFetchStack(const FetchOptions& options, const std::string& command_line, FetchStack* out) {
  std::string error;
  out->stack = LiveStack::Create(MakeLiveStackOptions(options), &error);
  if (!out->stack) {
    std::fprintf(stderr, "netstack: %s\n", error.c_str());
    return false;
  }
  LiveStack* stack = out->stack.get();
  if (!options.netlog_path.empty()) {
    out->netlog = NetLogFileWriter::Create(
        options.netlog_path, stack->net_log(),
        NetLogConstants(stack->time_tick_offset_ms(), command_line), &error);
    if (!out->netlog) {
      std::fprintf(stderr, "netstack: %s\n", error.c_str());
      return false;
    }
  }
  // The cache is open (or known unavailable) before the context that uses it is built.
  FetchCache cache =
      OpenFetchCache(options, stack, [](const char* name) { return std::getenv(name); });
  out->profile = std::move(cache.profile);
  if (!stack->BuildContext(std::move(cache.backend), &error)) {
    std::fprintf(stderr, "netstack: %s\n", error.c_str());
    return false;
  }
  return true;
}

int RunFetchCommand(const FetchOptions& options, const std::string& command_line) {
  if (options.page) return RunPageCommand(options, command_line);
  // --har (docs/fetch.md "`--har`"): every fetch one entry of one page, streamed as each ends;
  // the file is opened before anything is fetched.
  OutputFile har_file;
  std::unique_ptr<HarWriter> har;
  std::string har_error;
  if (!options.har_path.empty()) {
    if (!har_file.Open(options.har_path, &har_error)) {
      std::fprintf(stderr, "netstack: %s\n", TerminalSafe(har_error).c_str());
      return 2;
    }
    har = std::make_unique<HarWriter>(kNetstackHarVersion,
                                      [f = har_file.file()](std::string_view text) {
                                        std::fwrite(text.data(), 1, text.size(), f);
                                      });
  }
  FetchStack opened;
  if (!OpenFetchStack(options, command_line, &opened)) return 2;
  std::unique_ptr<LiveStack>& stack = opened.stack;

  // --internals: the page is up before the first fetch. Its fetch box loads pages with the
  // predictor (the fetches of the command line do not inform it: they are not page loads).
  std::unique_ptr<PagePredictor> box_predictor;
  std::unique_ptr<LiveInternals> internals;
  if (options.internals_port >= 0) {
    opened.profile = OpenPredictorProfile(options, std::move(opened.profile));
    box_predictor = std::make_unique<PagePredictor>(
        options.predictor, stack.get(),
        opened.profile ? opened.profile->predictor_db_path() : std::string(), stderr);
    PageLoadOptions load_options;
    load_options.headers = options.headers;
    load_options.omitted_headers = options.omitted_headers;
    load_options.follow_redirects = !options.no_follow;
    load_options.max_redirects = options.max_redirects;
    internals = MakeFetchInternals(
        options, command_line, stack.get(),
        options.predictor.policy == "off" ? nullptr : box_predictor->predictor(),
        opened.profile ? opened.profile->dir() : std::string(), std::move(load_options));
    if (!internals) return 2;
  }

  // -v's lines and -w's request bytes come from the NetLog (fetch_wire_log.h).
  std::unique_ptr<FetchWireLog> wire_log;
  if (options.verbose || !options.write_out.empty())
    wire_log = std::make_unique<FetchWireLog>(stack->net_log(), options.verbose, stderr);
  // -w: parsed once; curl's warning for each unknown variable, before anything is fetched.
  std::vector<std::string> write_out_warnings;
  const WriteOutFormat write_out(options.write_out, &write_out_warnings);
  for (const std::string& warning : write_out_warnings)
    std::fprintf(stderr, "netstack: warning: %s\n", TerminalSafe(warning).c_str());

  // -e: the learned predictor of the profile hears of the referrer's "load" of each URL and
  // saves what it learned (docs/fetch.md "-e"); --private keeps it in memory only.
  std::unique_ptr<PagePredictor> referer_predictor;
  Url referer;
  if (!options.referer.empty() && options.internals_port < 0 && options.predictor.policy != "off") {
    std::string ignored;
    Url::Parse(options.referer, &referer, &ignored);  // checked by ValidateCurlOptions
    opened.profile = OpenPredictorProfile(options, std::move(opened.profile));
    referer_predictor = std::make_unique<PagePredictor>(
        options.predictor, stack.get(),
        opened.profile ? opened.profile->predictor_db_path() : std::string(), stderr);
  }
  Predictor* const predictor = referer_predictor ? referer_predictor->predictor() : nullptr;

  // When the body goes to stdout, the per-URL lines go to stderr so they don't mix.
  bool body_to_stdout = false;
  for (const std::string& out : options.outputs) body_to_stdout |= out == "-";
  FILE* report = body_to_stdout ? stderr : stdout;
  // Lines reach a terminal at once. To a file or pipe they are flushed at most every 100 ms and
  // at the end: one write(2) per URL was a system call per request in a run of many URLs.
  const bool report_is_tty = isatty(fileno(report)) == 1;
  bool flush_pending = false;
  auto flush_soon = [&] {
    if (report_is_tty) {
      std::fflush(report);
    } else if (!flush_pending) {
      flush_pending = true;
      stack->scheduler().PostDelayedTask(Milliseconds(100), [&flush_pending, report] {
        flush_pending = false;
        std::fflush(report);
      });
    }
  };

  std::list<std::unique_ptr<FetchJob>> active;
  std::vector<FetchJob*> finished;
  size_t next = 0;
  bool any_failed = false;
  std::function<void()> start_more;
  // The run's start on the wall clock (the HAR's page date) and the wall clock at TimeTicks zero.
  const double tick_offset_ms = static_cast<double>(stack->time_tick_offset_ms());
  const double run_start_epoch_ms = tick_offset_ms + ToMilliseconds(stack->scheduler().Now());
  // -w's text or the record line (neither with -s alone), then a failure's error line (unless
  // -s without -S).
  auto report_record = [&](const RequestRecord& rec, const WriteOutValues& values) {
    if (har) {
      HarEntryContext context;
      context.pageref = "page_1";
      context.started_epoch_ms = rec.start == TimeTicks{}
                                     ? run_start_epoch_ms
                                     : tick_offset_ms + ToMilliseconds(rec.start);
      har->AddEntry(rec, context);
    }
    std::string line;
    if (!options.write_out.empty()) {
      write_out.Render(values, &line);
      // After the body when it went to stdout, as curl prints it.
      std::fflush(report);
      std::fwrite(line.data(), 1, line.size(), stdout);
      flush_soon();
    } else if (options.json) {
      AppendRequestRecordJson(rec, &line);
    } else if (!options.silent) {
      line = FetchRecordToLine(rec);
    }
    // A human error line on stderr would only repeat the one below.
    if (options.write_out.empty() && !line.empty() &&
        (options.json || rec.error == OK || report != stderr)) {
      std::fputs(line.c_str(), report);
      std::fputc('\n', report);
      flush_soon();
    }
    if (rec.error != OK) {
      any_failed = true;
      // Every failure is also one line on stderr, in one format scripts can grep; the lines
      // before it go out first, so a combined stream keeps the order.
      std::fflush(report);
      std::fflush(stdout);
      if (options.silent && !options.show_error) return;
      std::fprintf(stderr, "netstack: %s: %s (%s)\n", TerminalSafe(rec.url).c_str(),
                   TerminalSafe(rec.error_message).c_str(), ErrorToString(rec.error).c_str());
    }
  };
  auto on_done = [&](FetchJob* job) {
    report_record(job->record(), job->write_out_values());
    // Freed on the next task: the job may be inside its request's callback now.
    finished.push_back(job);
    stack->scheduler().PostTask(start_more);
  };
  start_more = [&] {
    for (FetchJob* done : finished)
      active.remove_if([done](const std::unique_ptr<FetchJob>& j) { return j.get() == done; });
    finished.clear();
    while (active.size() < static_cast<size_t>(options.parallel) && next < options.urls.size()) {
      active.push_back(std::make_unique<FetchJob>(next++, options, stack->context(), wire_log.get(),
                                                  predictor, &referer, on_done));
      active.back()->Start();
    }
    // Idle keep-alive sockets and DNS sockets keep the loop alive: stop it explicitly.
    if (active.empty() && next == options.urls.size()) stack->Stop();
  };
  start_more();
  // The disk cache answers through the poster, which does not keep the loop alive by itself: a
  // run of cache hits has no socket or timer that would. start_more stops the loop at the end.
  stack->poster()->Ref();
  stack->Run();
  stack->poster()->Unref();

  // The loop only stops early if a fetch lost its completion; report those rather than
  // exit 0 with URLs missing from the output.
  for (auto& job : active) {
    if (std::find(finished.begin(), finished.end(), job.get()) != finished.end()) continue;
    job->Abandon();
    report_record(job->record(), job->write_out_values());
  }
  for (; next < options.urls.size(); ++next) {
    FetchJob never_started(next, options, stack->context(), nullptr, nullptr, nullptr, nullptr);
    never_started.Abandon();
    report_record(never_started.record(), never_started.write_out_values());
  }
  // Reported: their requests must not complete (and report again) in the loop runs below.
  active.clear();
  std::fflush(report);

  if (internals) {
    internals->ServeUntilQuit();
    internals.reset();
    box_predictor->Save();
    box_predictor->Finish();
    box_predictor.reset();
  }

  if (har) {
    // Plain fetches are no page load: no onContentLoad or onLoad.
    har->AddPage({"page_1", options.urls.empty() ? std::string() : options.urls[0].spec(),
                  run_start_epoch_ms, -1, -1});
    har->Finish();
    if (!har_file.Commit(&har_error)) {
      std::fprintf(stderr, "netstack: %s: %s\n", TerminalSafe(options.har_path).c_str(),
                   TerminalSafe(har_error).c_str());
      any_failed = true;
    }
  }
  if (referer_predictor) {
    referer_predictor->Save();
    referer_predictor->Finish();
    referer_predictor.reset();
  }
  wire_log.reset();  // before the stack's NetLog goes
  if (!FinishFetchStack(&opened)) any_failed = true;
  return any_failed ? 1 : 0;
}

bool FinishFetchStack(FetchStack* opened, const std::function<void()>& before_sockets_close) {
  LiveStack* stack = opened->stack.get();
  if (HttpCache* http_cache = stack->context()->http_cache()) {
    LoopSignal done(stack->loop());
    http_cache->WaitForBackgroundWork([&done](int) { done.Set(); });
    RunLoopUntil(stack->loop(), stack->poster(), done);
  }
  if (before_sockets_close) before_sockets_close();
  stack->context()->socket_pool()->CloseIdleSockets();
  bool ok = true;
  std::string error;
  if (opened->netlog && !opened->netlog->Finish(stack->context()->GetPolledData(), &error)) {
    std::fprintf(stderr, "netstack: %s\n", error.c_str());
    ok = false;
  }
  opened->netlog.reset();
  opened->stack.reset();
  return ok;
}

}  // namespace netstack
