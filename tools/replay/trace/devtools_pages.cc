#include "tools/replay/trace/devtools_pages.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include "net/base/net_error.h"
#include "net/base/string_util.h"
#include "net/base/url.h"
#include "tools/replay/trace/dependency_inference.h"
#include "tools/replay/trace/har_entry.h"
#include "tools/replay/trace/har_url.h"
#include "tools/replay/trace/recorded_error.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

namespace {

struct Built {
  TraceEntry entry;
  DependencyHints hints;
  double start_s = 0;
  size_t message = 0;
  bool warm = false;  // connectionReused
};

// "message 7 (Network.requestWillBeSent): " for the request's own message.
std::string Where(const std::string& name, const DevtoolsRequest& request) {
  return name + ": message " + std::to_string(request.message) + " (Network.requestWillBeSent): ";
}

const std::string* FindHeader(const HeaderList& headers, const char* lowercase_name) {
  for (const auto& [name, value] : headers) {
    if (ToLowerAscii(name) == lowercase_name) return &value;
  }
  return nullptr;
}

// The smallest of `values` that is >= 0, or -1.
double LeastNonNegative(std::initializer_list<double> values) {
  double least = -1;
  for (double value : values) {
    if (value >= 0 && (least < 0 || value < least)) least = value;
  }
  return least;
}

// HAR phases from the request's timing block, as Chrome's own HAR export computes them: blocked
// is the time from the request's issue to its first network phase, connect includes ssl, wait
// runs to the last response header byte, receive to the end. `total_ms` is issue to end.
RecordedTimings PhasesOf(const DevtoolsRequest& r, double total_ms) {
  RecordedTimings t;
  if (!r.has_timing) {
    if (!r.has_response) return t;
    // No timing (a cache read, an older Chrome): the response's arrival is the first byte.
    double first_byte = r.response_s >= 0 ? (r.response_s - r.start_s) * 1000 : total_ms;
    t.wait = std::clamp(first_byte, 0.0, total_ms);
    t.receive = total_ms - t.wait;
    return t;
  }
  double queued = std::max(0.0, (r.request_time - r.start_s) * 1000);
  double blocked_start =
      std::max(0.0, LeastNonNegative({r.dns_start, r.connect_start, r.send_start}));
  t.blocked = queued + blocked_start;
  if (r.dns_end >= 0 && r.dns_start >= 0) t.dns = std::max(0.0, r.dns_end - r.dns_start);
  if (r.connect_end >= 0 && r.connect_start >= 0) {
    t.connect = std::max(0.0, r.connect_end - r.connect_start);
  }
  if (r.ssl_end > 0 && r.ssl_start >= 0) t.ssl = std::max(0.0, r.ssl_end - r.ssl_start);
  t.send = r.send_end >= 0 && r.send_start >= 0 ? std::max(0.0, r.send_end - r.send_start) : 0;
  double highest = std::max({r.send_end, r.connect_end, r.ssl_end, r.dns_end, blocked_start, 0.0});
  double headers_at = r.headers_end >= 0  ? r.headers_end
                      : r.response_s >= 0 ? (r.response_s - r.request_time) * 1000
                                          : highest;
  t.wait = std::max(0.0, headers_at - highest);
  t.receive = std::max(0.0, total_ms - (queued + std::max(headers_at, highest)));
  return t;
}

// Body bytes on the wire: loadingFinished's total less the response's header bytes, else the
// dataReceived sums (a response the log left unfinished). A cache hit transferred nothing: its own
// size (Content-Length, else the decoded bytes) is what a replay with a cold cache must fetch.
double BodyBytes(const DevtoolsRequest& r) {
  if (r.from_cache) {
    if (const std::string* length = FindHeader(r.response_headers, "content-length")) {
      char* end = nullptr;
      double value = std::strtod(length->c_str(), &end);
      if (end != length->c_str() && value >= 0 && std::isfinite(value)) return value;
    }
    return r.data_decoded_bytes;
  }
  if (r.finished_encoded_bytes < 0) return r.data_encoded_bytes;
  double body = r.finished_encoded_bytes - r.header_bytes;
  if (body > 0) return body;
  if (r.data_encoded_bytes > 0) return r.data_encoded_bytes;
  // Older Chrome (before about M65) wrote the total into the response's encodedDataLength
  // too, and 0 into dataReceived's: the header block is estimated as HTTP/1.1 would write it.
  if (r.status == 204 || r.status == 304 || (r.status >= 100 && r.status < 200)) return 0;
  double header_bytes = 17 + static_cast<double>(r.status_text.size());
  for (const auto& [name, value] : r.response_headers) {
    header_bytes += static_cast<double>(name.size() + value.size() + 4);
  }
  body = std::max(0.0, r.finished_encoded_bytes - header_bytes);
  if (body == 0 && r.data_decoded_bytes > 0) {
    body = std::min(r.data_decoded_bytes, r.finished_encoded_bytes);
  }
  return body;
}

enum class Outcome { kRead, kNotHttp, kInvalidUrl, kUnfinished, kNoResponse, kError };

// Reads one request into `out`, moving its strings; on kInvalidUrl `detail` says why, on kError
// `error` does.
Outcome Convert(const std::string& name, DevtoolsRequest* request, Built* out, std::string* detail,
                std::string* error) {
  DevtoolsRequest& r = *request;
  TraceEntry& e = out->entry;
  e.url = EscapeRecordedUrl(r.url);
  std::string scheme = ToLowerAscii(e.url.substr(0, std::min(e.url.find(':'), size_t{16})));
  if (scheme != "http" && scheme != "https") return Outcome::kNotHttp;
  Url url;
  std::string problem;
  if (Url::Parse(e.url, &url, &problem) != 0) {
    *detail = Where(name, r) + "params.request.url: " + problem;
    return Outcome::kInvalidUrl;
  }
  if (!r.has_response && !r.finished) return Outcome::kUnfinished;
  if (r.has_response && r.status == 0 && r.error_text.empty()) return Outcome::kNoResponse;

  // The end: its finish or failure; a response the log left unfinished ends at its last data.
  double end_s = r.finished ? r.end_s : std::max({r.response_s, r.last_data_s, r.start_s});
  double total_ms = std::max(0.0, (end_s - r.start_s) * 1000);
  if (total_ms > kMaxTraceMs) {
    *error = Where(name, r) + "the request lasts " + FormatNumber(total_ms) +
             " ms, more than the limit of " + FormatNumber(kMaxTraceMs) + " ms";
    return Outcome::kError;
  }
  double body = BodyBytes(r);
  for (double bytes : {body, r.request_body_bytes}) {
    if (bytes > static_cast<double>(kMaxTraceBodyBytes)) {
      *error = Where(name, r) + (bytes == body ? "the response body" : "the request body") +
               " of " + FormatNumber(bytes) + " bytes is more than the limit of 1 GiB";
      return Outcome::kError;
    }
  }
  e.method = std::move(r.method);
  e.request_headers = std::move(r.request_headers);
  e.request_body_bytes = static_cast<int64_t>(std::llround(r.request_body_bytes));
  if (e.request_body_bytes == 0) {
    if (const std::string* length = FindHeader(e.request_headers, "content-length")) {
      e.request_body_bytes =
          std::clamp<int64_t>(std::atoll(length->c_str()), 0, kMaxTraceBodyBytes);
    }
  }
  e.status = r.has_response ? r.status : 0;
  e.status_text = std::move(r.status_text);
  e.response_headers = std::move(r.response_headers);
  e.response_body_bytes = static_cast<int64_t>(std::llround(body));
  e.http_version = r.protocol;
  e.protocol = NormalizeRecordedProtocol(r.protocol);
  e.recorded_from_cache = r.from_cache;
  if (!r.error_text.empty()) {
    e.recorded_error = r.error_text;
    e.recorded_error_code = NetErrorFromText(r.error_text);
  }
  e.connection_id = std::move(r.connection_id);
  e.recorded_total_ms = total_ms;
  e.timings = PhasesOf(r, total_ms);
  std::string type = ToLowerAscii(r.type);
  if (type.empty()) {
    std::string mime = r.mime_type;
    if (mime.empty()) {
      if (const std::string* content_type = FindHeader(e.response_headers, "content-type")) {
        mime = *content_type;
      }
    }
    type = ResourceTypeForMimeType(mime);
  }
  e.resource_type = type;
  e.initiator_url = std::move(r.initiator_url);
  out->hints.url = NormalizedRecordedUrl(url, url.spec());
  out->hints.redirect_to = NormalizedRecordedUrl(url, r.redirect_to);
  out->hints.initiator = NormalizedRecordedUrl(url, e.initiator_url);
  out->start_s = r.start_s;
  out->message = r.message;
  return Outcome::kRead;
}

// Adds `from`'s skip counts to `to`.
void MoveSkipped(const TracePage& from, TracePage* to) {
  to->skipped_entries += from.skipped_entries;
  to->skipped_not_http += from.skipped_not_http;
  to->skipped_invalid_url += from.skipped_invalid_url;
  to->skipped_no_response += from.skipped_no_response;
  to->skipped_unfinished += from.skipped_unfinished;
  if (to->first_invalid_url.empty()) to->first_invalid_url = from.first_invalid_url;
}

// Sorts a page's entries by start, makes times relative to the first, marks warm connections
// and links dependencies. False with `error` when a start is past kMaxTraceMs.
bool FinishPage(const std::string& name, const DevtoolsPageInfo& info, std::vector<Built>* built,
                double wall_anchor_s, double wall_anchor_start_s, TracePage* page,
                std::string* error) {
  std::stable_sort(built->begin(), built->end(),
                   [](const Built& a, const Built& b) { return a.start_s < b.start_s; });
  double start_s = built->front().start_s;
  std::vector<DependencyHints> hints;
  hints.reserve(built->size());
  std::set<std::string> connections;
  for (Built& b : *built) {
    b.entry.start_ms = (b.start_s - start_s) * 1000;
    if (b.entry.start_ms > kMaxTraceMs) {
      *error = name + ": message " + std::to_string(b.message) +
               " (Network.requestWillBeSent): starts " + FormatNumber(b.entry.start_ms) +
               " ms after its page, more than the limit of " + FormatNumber(kMaxTraceMs) + " ms";
      return false;
    }
    // The first entry of a connection in the page tells whether the page found it open.
    if (!b.entry.connection_id.empty() && connections.insert(b.entry.connection_id).second) {
      b.entry.recorded_warm_connection = b.warm;
    }
    page->entries.push_back(std::move(b.entry));
    hints.push_back(std::move(b.hints));
  }
  InferDependencies(&page->entries, hints);
  if (wall_anchor_s >= 0) {
    double epoch_s = wall_anchor_s - (wall_anchor_start_s - start_s);
    page->started_epoch_ms = static_cast<int64_t>(std::floor(std::max(0.0, epoch_s) * 1000));
  }
  auto relative = [start_s](double t) { return t < 0 ? -1 : std::max(0.0, (t - start_s) * 1000); };
  page->recorded_content_load_ms = std::min(relative(info.content_load_s), kMaxTraceMs);
  page->recorded_onload_ms = std::min(relative(info.load_s), kMaxTraceMs);
  page->title = info.navigation_url.empty() ? page->entries.front().url : info.navigation_url;
  return true;
}

}  // namespace

bool BuildDevtoolsPages(const std::string& name, std::vector<DevtoolsRequest>* requests,
                        const std::vector<DevtoolsPageInfo>& pages, HarFile* out,
                        std::string* error) {
  *out = HarFile();
  out->creator = "DevTools protocol log";
  if (requests->empty()) {
    *error = name + ": no request can be replayed: the log has no Network.requestWillBeSent";
    return false;
  }
  std::vector<std::vector<Built>> built(pages.size());
  std::vector<TracePage> traced(pages.size());
  // The first request of each page with a wallTime anchors the page's epoch.
  std::vector<double> wall(pages.size(), -1), wall_start(pages.size(), 0);
  for (DevtoolsRequest& r : *requests) {
    TracePage& page = traced[r.page];
    if (wall[r.page] < 0 && r.wall_s >= 0) {
      wall[r.page] = r.wall_s;
      wall_start[r.page] = r.start_s;
    }
    Built b;
    std::string detail;
    Outcome outcome = Convert(name, &r, &b, &detail, error);
    switch (outcome) {
      case Outcome::kRead:
        b.warm = r.connection_reused;
        built[r.page].push_back(std::move(b));
        continue;
      case Outcome::kError:
        return false;
      case Outcome::kNotHttp:
        ++page.skipped_not_http;
        break;
      case Outcome::kInvalidUrl:
        ++page.skipped_invalid_url;
        if (page.first_invalid_url.empty()) page.first_invalid_url = detail;
        break;
      case Outcome::kUnfinished:
        ++page.skipped_unfinished;
        break;
      case Outcome::kNoResponse:
        ++page.skipped_no_response;
        break;
    }
    ++page.skipped_entries;
  }
  // Pages with something to replay, in log order; a page with only skipped requests passes its
  // counts to the next such page (or the last).
  TracePage carried;
  for (size_t i = 0; i < pages.size(); ++i) {
    if (built[i].empty()) {
      MoveSkipped(traced[i], &carried);
      continue;
    }
    MoveSkipped(carried, &traced[i]);
    carried = TracePage();
    TracePage& page = traced[i];
    page.id = "page_" + std::to_string(out->pages.size() + 1);
    page.source = name + "#" + page.id;
    page.new_run = out->pages.empty();  // one log, one browser: only its first page is fresh
    if (!FinishPage(name, pages[i], &built[i], wall[i], wall_start[i], &page, error)) {
      *out = HarFile();
      return false;
    }
    out->pages.push_back(std::move(page));
  }
  if (carried.skipped_entries > 0) {
    if (out->pages.empty()) {
      *error = name + ": no request can be replayed: " + std::to_string(carried.skipped_entries) +
               " skipped (" + std::to_string(carried.skipped_not_http) + " not http(s), " +
               std::to_string(carried.skipped_invalid_url) + " invalid URL, " +
               std::to_string(carried.skipped_no_response) + " never answered, " +
               std::to_string(carried.skipped_unfinished) + " never finished)";
      if (!carried.first_invalid_url.empty()) {
        *error += "; the first invalid URL: " + carried.first_invalid_url.substr(name.size() + 2);
      }
      return false;
    }
    MoveSkipped(carried, &out->pages.back());
  }
  return true;
}

}  // namespace netstack
