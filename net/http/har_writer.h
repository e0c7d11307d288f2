// HarWriter: request records (request_record.h) as an HTTP Archive (HAR 1.2), the format every
// HAR viewer reads (Chrome DevTools' import, PerfCascade, WebPageTest). `fetch --page --har`
// writes a live page load with it and `replay --har` the simulated loads, so real and simulated
// loads open side by side, and a HAR netstack writes replays through netstack
// (docs/request-record.md, "As HAR").
//
// Streamed: the writer hands text to a sink as it goes and keeps only the pages (id, title, date,
// timings: about a hundred bytes each, at most kMaxPages). The entries come first, each written
// as it is added; the pages array follows them when Finish is called (HAR orders neither member:
// both are members of one JSON object). A long replay's entries are never held.
//
// Deterministic: every date is given by the caller (replay: its virtual clock, which starts at the
// recording's start), numbers are printed the same way every time, no wall clock is read here.
//
// Per entry (what a record has; the mapping field by field is in docs/request-record.md):
// startedDateTime, time (the sum of the timings), request {method, url, httpVersion, headers (none:
// a record keeps no request headers), queryString (from the URL), cookies, headersSize -1,
// bodySize 0}, response {status, statusText, httpVersion (the protocol: "h2", "http/1.1"),
// headers, cookies, content {size (decoded body), mimeType}, redirectURL (Location of a 3xx),
// headersSize -1, bodySize (transfer bytes)}, cache {}, timings {blocked, dns, connect (TCP + TLS,
// as HAR 1.2 says), ssl, send, wait, receive; -1 for a phase the request did not go through},
// serverIPAddress, connection (the socket id), pageref, and the extensions Chrome and WebPageTest
// write: _fromCache ("disk": served by the HTTP cache, or a recorded hit), _cache_disposition,
// _initiator {type, url}, _priority, _resourceType, _protocol, _error, _redirects. No
// _transferSize: readers (netstack's among them) take a transfer size of 0 for a cache hit.
#ifndef NET_HTTP_HAR_WRITER_H_
#define NET_HTTP_HAR_WRITER_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "net/http/request_record.h"

namespace netstack {

// One page of the archive.
struct HarPage {
  std::string id;               // the id entries name in `pageref` ("page_1"); unique within a file
  std::string title;            // the page's URL, usually
  double started_epoch_ms = 0;  // when the page started, ms since the Unix epoch
  // pageTimings, ms after the page's start; -1 when unknown (as HAR 1.2 says).
  double on_content_load_ms = -1;
  double on_load_ms = -1;
};

// What a record does not say about itself: where it sits in the archive.
struct HarEntryContext {
  std::string pageref;          // the page's id
  double started_epoch_ms = 0;  // when the request started, ms since the Unix epoch
  // Chrome's _initiator: type "parser", "script", "preload" or "other"; the URL of what revealed
  // the request ("" when unknown: then only the type is written).
  std::string initiator_type = "other";
  std::string initiator_url;
};

class HarWriter {
 public:
  // Receives the archive's text in order; each call's text is a complete piece of it.
  using Sink = std::function<void(std::string_view text)>;

  // Pages one archive holds: netstack's HAR reader reads at most 10,000 (docs/trace-format.md).
  static constexpr size_t kMaxPages = 10'000;

  // Writes the archive's head (log, version, creator {name "netstack", version
  // `creator_version`}, the start of the entries) to `sink` at once. The archive keeps at most
  // `max_pages` pages (at most kMaxPages; tests lower it to reach the bound cheaply).
  HarWriter(std::string creator_version, Sink sink, size_t max_pages = kMaxPages);
  HarWriter(const HarWriter&) = delete;
  HarWriter& operator=(const HarWriter&) = delete;

  // Writes one entry for `record` (a finished request) at once. Call before Finish.
  void AddEntry(const RequestRecord& record, const HarEntryContext& context);

  // Keeps `page` for the pages array. False, keeping nothing, when max_pages() pages are
  // already kept. Call before Finish.
  bool AddPage(HarPage page);

  // Writes the pages kept, in the order they were added, and closes the archive. Call once; no
  // other call after it.
  void Finish();

  size_t entries() const { return entries_; }
  size_t pages() const { return pages_.size(); }
  size_t max_pages() const { return max_pages_; }

 private:
  Sink sink_;
  size_t max_pages_;
  std::vector<HarPage> pages_;
  size_t entries_ = 0;
  bool finished_ = false;
  std::string buffer_;  // one entry's text, reused
};

// "2024-01-01T00:00:00.000Z": `epoch_ms` (ms since the Unix epoch, rounded to the ms) in ISO 8601
// UTC as HAR writers write dates. Dates before 1970 or after 9999 are clamped to those years.
std::string FormatHarDate(double epoch_ms);

}  // namespace netstack

#endif  // NET_HTTP_HAR_WRITER_H_
