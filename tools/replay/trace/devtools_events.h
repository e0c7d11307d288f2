// The Network.* and Page.* events of one Chrome DevTools protocol log, handled one message at a
// time, and the pages they make (docs/trace-format.md, "DevTools protocol logs"): each request
// (each hop of a redirect chain) becomes a TraceEntry with its response, recorded timings,
// bytes, cache state, connection and initiator; each main-frame navigation starts a page.
// Part of the DevTools log reader (devtools_log.h); internal.
#ifndef TOOLS_REPLAY_TRACE_DEVTOOLS_EVENTS_H_
#define TOOLS_REPLAY_TRACE_DEVTOOLS_EVENTS_H_

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tools/replay/trace/devtools_log.h"
#include "tools/replay/trace/har_reader.h"
#include "tools/replay/trace/trace.h"

namespace netstack {

// One request as the log describes it so far (one hop of a redirect chain). Times are the
// log's monotonic seconds; -1 where not (yet) known.
struct DevtoolsRequest {
  size_t message = 0;  // index of its Network.requestWillBeSent
  size_t page = 0;     // index in DevtoolsEvents' pages
  std::string url, method = "GET", type;
  HeaderList request_headers;
  bool request_headers_as_sent = false;  // from requestWillBeSentExtraInfo
  double request_body_bytes = 0;
  double start_s = 0, wall_s = -1;
  std::string initiator_url;

  bool has_response = false;
  int status = 0;
  std::string status_text, mime_type, protocol, connection_id;
  HeaderList response_headers;
  bool response_headers_as_received = false;  // from responseReceivedExtraInfo
  bool connection_reused = false, from_cache = false;
  double header_bytes = 0;  // response.encodedDataLength when the response arrived
  double response_s = -1;
  // The response's timing block: requestTime in seconds, the rest in ms after it, -1 absent.
  bool has_timing = false;
  double request_time = -1, dns_start = -1, dns_end = -1, connect_start = -1, connect_end = -1,
         ssl_start = -1, ssl_end = -1, send_start = -1, send_end = -1, headers_end = -1;

  double data_encoded_bytes = 0, data_decoded_bytes = 0, last_data_s = -1;  // dataReceived
  bool finished = false;  // loadingFinished, loadingFailed or a redirect ended it
  double end_s = -1;
  double finished_encoded_bytes = -1;  // loadingFinished's encodedDataLength
  std::string error_text;              // loadingFailed: "net::ERR_ABORTED"
  std::string redirect_to;             // the next hop's URL when it redirected
};

class DevtoolsEvents {
 public:
  // `name` labels messages and page sources (the file's path); `limits` bounds the requests and
  // pages (its `messages` is the reader's).
  DevtoolsEvents(std::string name, const DevtoolsLogLimits& limits);

  // Handles message `index` of the log: `method` and its `params` (JSON null when absent).
  // Unknown methods, and events naming a request the log never started, are ignored. Returns
  // false with a one-line `error` without the file name: "message 12
  // (Network.responseReceived): params.response.status: expected a number, got string", or a
  // bound ("message 9 (Network.requestWillBeSent): more than the limit of 100000 requests").
  bool Handle(size_t index, const std::string& method, const nlohmann::json& params,
              std::string* error);

  // Builds the pages once every message is handled (once: the requests' strings move into
  // the entries): entries in start order with times after the
  // page's first entry, skips counted, dependencies from initiators. False with `error` (with
  // the file name) when nothing can be replayed or a time or size is past trace.h's bounds.
  bool Finish(HarFile* out, std::string* error);

 private:
  struct Page {
    bool has_navigation = false;
    std::string navigation_url;
    double content_load_s = -1, load_s = -1;
  };

  bool OnRequestWillBeSent(const nlohmann::json& params, std::string* error);
  bool OnResponseReceived(const nlohmann::json& params, std::string* error);
  bool OnExtraInfo(const nlohmann::json& params, bool response, std::string* error);
  bool OnData(const nlohmann::json& params, std::string* error);
  bool OnFinished(const nlohmann::json& params, bool failed, std::string* error);
  bool OnServedFromCache(const nlohmann::json& params, std::string* error);
  bool OnPageEvent(const nlohmann::json& params, bool load, std::string* error);
  bool OnFrame(const nlohmann::json& params, bool navigated, std::string* error);
  // The current hop of `request_id`, or null when the log never started it.
  DevtoolsRequest* Find(const std::string& request_id);

  std::string name_;
  DevtoolsLogLimits limits_;
  size_t message_ = 0;  // the index of the message being handled
  std::vector<DevtoolsRequest> requests_;
  std::map<std::string, size_t> current_;  // request id -> its latest hop in requests_
  // Headers an ExtraInfo event brought before its request was sent (Chrome sends them in
  // either order), by request id; applied to the next hop of that id.
  std::map<std::string, HeaderList> early_request_headers_, early_response_headers_;
  std::vector<Page> pages_;
  std::string main_frame_;              // the main frame's id, once known
  std::set<std::string> child_frames_;  // frames known to have a parent (iframes)
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_DEVTOOLS_EVENTS_H_
