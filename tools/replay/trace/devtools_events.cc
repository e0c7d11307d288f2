#include "tools/replay/trace/devtools_events.h"

#include <utility>

#include "tools/replay/trace/devtools_pages.h"
#include "tools/replay/trace/har_entry.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

namespace {

// Timestamps are monotonic seconds (Chrome's uptime) or, for wallTime, seconds since the epoch.
constexpr double kMaxSeconds = 1e12;
constexpr double kMaxBytes = 1e15;  // any byte count; bodies are bounded later (trace.h)

// Reads a DevTools header object ({"Name": "value"}) at `key` into `out`, without HTTP/2
// pseudo-headers; Chrome joins repeated headers with '\n': each line becomes one header.
// Returns true when the member was present.
bool ReadHeaderObject(JsonFields& fields, const char* key, HeaderList* out) {
  const nlohmann::json* object = fields.Object(key);
  if (!object) return false;
  if (object->size() > kMaxDevtoolsHeaders) {
    fields.Fail(key, std::to_string(object->size()) + " headers, more than the limit of " +
                         std::to_string(kMaxDevtoolsHeaders));
    return false;
  }
  HeaderList headers;
  for (const auto& [name, value] : object->items()) {
    if (!value.is_string()) {
      fields.Fail(key, "header '" + name.substr(0, 64) + "': expected a string, got " +
                           JsonTypeName(value));
      return false;
    }
    if (!name.empty() && name[0] == ':') continue;
    const std::string& text = value.get_ref<const std::string&>();
    size_t begin = 0;
    while (true) {
      size_t end = text.find('\n', begin);
      headers.emplace_back(name, text.substr(begin, end == std::string::npos ? end : end - begin));
      if (end == std::string::npos) break;
      begin = end + 1;
      if (headers.size() > kMaxDevtoolsHeaders) {
        fields.Fail(key, "more than the limit of " + std::to_string(kMaxDevtoolsHeaders) +
                             " headers (counting each line of a joined value)");
        return false;
      }
    }
  }
  *out = std::move(headers);
  return true;
}

// A timing value in ms after requestTime: -1 when absent or negative.
double TimingMs(JsonFields& timing, const char* key) {
  double value = -1;
  timing.NumberIn(key, -1e9, kMaxTraceMs, &value);
  return value < 0 ? -1 : value;
}

// Reads a Network.Response (responseReceived's, or a redirect's redirectResponse) into
// `request`. `path` is its member path ("params.response").
// False with `error` set on a malformed response.
bool ReadResponse(const nlohmann::json& response, const std::string& path, DevtoolsRequest* request,
                  std::string* error) {
  JsonFields fields(response, path);
  int64_t status = 0;
  fields.Integer("status", 0, 999, &status, /*required=*/true);
  fields.String("statusText", &request->status_text);
  fields.String("mimeType", &request->mime_type);
  fields.String("protocol", &request->protocol);
  HeaderList headers;
  bool has_headers = ReadHeaderObject(fields, "headers", &headers);
  HeaderList sent;
  bool has_sent = ReadHeaderObject(fields, "requestHeaders", &sent);  // older Chrome
  // connectionId: a number in the protocol, a string in some writers; 0 means none.
  if (const nlohmann::json* id = fields.Get("connectionId")) {
    if (id->is_number()) {
      double value = id->get<double>();
      if (value != 0) request->connection_id = FormatNumber(value);
    } else if (id->is_string()) {
      const std::string& value = id->get_ref<const std::string&>();
      if (!value.empty() && value != "0") request->connection_id = value;
    } else {
      fields.Fail("connectionId", std::string("expected a number, got ") + JsonTypeName(*id));
    }
  }
  bool reused = false, disk = false, prefetch = false, worker = false;
  fields.Bool("connectionReused", &reused);
  fields.Bool("fromDiskCache", &disk);
  fields.Bool("fromPrefetchCache", &prefetch);
  fields.Bool("fromServiceWorker", &worker);
  fields.NumberIn("encodedDataLength", -1, kMaxBytes, &request->header_bytes);
  const nlohmann::json* timing = fields.Object("timing");
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  if (timing) {
    JsonFields t(*timing, fields.PathOf("timing"));
    t.NumberIn("requestTime", 0, kMaxSeconds, &request->request_time, /*required=*/true);
    request->dns_start = TimingMs(t, "dnsStart");
    request->dns_end = TimingMs(t, "dnsEnd");
    request->connect_start = TimingMs(t, "connectStart");
    request->connect_end = TimingMs(t, "connectEnd");
    request->ssl_start = TimingMs(t, "sslStart");
    request->ssl_end = TimingMs(t, "sslEnd");
    request->send_start = TimingMs(t, "sendStart");
    request->send_end = TimingMs(t, "sendEnd");
    request->headers_end = TimingMs(t, "receiveHeadersEnd");
    if (!t.ok()) {
      *error = t.error();
      return false;
    }
    request->has_timing = true;
  }
  request->has_response = true;
  request->status = static_cast<int>(status);
  request->connection_reused = reused;
  if (disk || prefetch || worker) request->from_cache = true;
  if (request->header_bytes < 0) request->header_bytes = 0;
  if (has_headers && !request->response_headers_as_received) {
    request->response_headers = std::move(headers);
  }
  if (has_sent && !request->request_headers_as_sent) request->request_headers = std::move(sent);
  return true;
}

}  // namespace

DevtoolsEvents::DevtoolsEvents(std::string name, const DevtoolsLogLimits& limits)
    : name_(std::move(name)), limits_(limits) {}

DevtoolsRequest* DevtoolsEvents::Find(const std::string& request_id) {
  auto it = current_.find(request_id);
  return it == current_.end() ? nullptr : &requests_[it->second];
}

bool DevtoolsEvents::Handle(size_t index, const std::string& method, const nlohmann::json& params,
                            std::string* error) {
  message_ = index;
  bool ok = true;
  if (method == "Network.requestWillBeSent") {
    ok = OnRequestWillBeSent(params, error);
  } else if (method == "Network.responseReceived") {
    ok = OnResponseReceived(params, error);
  } else if (method == "Network.requestWillBeSentExtraInfo") {
    ok = OnExtraInfo(params, /*response=*/false, error);
  } else if (method == "Network.responseReceivedExtraInfo") {
    ok = OnExtraInfo(params, /*response=*/true, error);
  } else if (method == "Network.dataReceived") {
    ok = OnData(params, error);
  } else if (method == "Network.loadingFinished") {
    ok = OnFinished(params, /*failed=*/false, error);
  } else if (method == "Network.loadingFailed") {
    ok = OnFinished(params, /*failed=*/true, error);
  } else if (method == "Network.requestServedFromCache") {
    ok = OnServedFromCache(params, error);
  } else if (method == "Page.loadEventFired") {
    ok = OnPageEvent(params, /*load=*/true, error);
  } else if (method == "Page.domContentEventFired") {
    ok = OnPageEvent(params, /*load=*/false, error);
  } else if (method == "Page.frameNavigated") {
    ok = OnFrame(params, /*navigated=*/true, error);
  } else if (method == "Page.frameAttached") {
    ok = OnFrame(params, /*navigated=*/false, error);
  }
  if (!ok) {
    *error = "message " + std::to_string(index) + " (" + method.substr(0, 64) + "): " + *error;
  }
  return ok;
}

bool DevtoolsEvents::OnRequestWillBeSent(const nlohmann::json& params, std::string* error) {
  JsonFields fields(params, "params");
  DevtoolsRequest request;
  std::string request_id, loader_id, frame_id;
  fields.String("requestId", &request_id, /*required=*/true);
  fields.String("loaderId", &loader_id);
  fields.String("frameId", &frame_id);
  fields.String("type", &request.type);
  fields.NumberIn("timestamp", 0, kMaxSeconds, &request.start_s, /*required=*/true);
  fields.NumberIn("wallTime", 0, kMaxSeconds, &request.wall_s);
  const nlohmann::json* body = fields.Object("request", /*required=*/true);
  const nlohmann::json* initiator = fields.Object("initiator");
  const nlohmann::json* redirect = fields.Object("redirectResponse");
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  JsonFields req(*body, "params.request");
  req.String("url", &request.url, /*required=*/true);
  req.String("method", &request.method);
  std::string post_data;
  req.String("postData", &post_data);
  ReadHeaderObject(req, "headers", &request.request_headers);
  if (!req.ok()) {
    *error = req.error();
    return false;
  }
  if (request.method.empty()) request.method = "GET";
  request.request_body_bytes = static_cast<double>(post_data.size());
  if (initiator) {
    request.initiator_url = InitiatorObjectUrl(*initiator);
    // A CORS preflight is sent by the request it precedes (its initiator names that request),
    // not revealed by it: it was revealed with that request, so it takes that one's initiator.
    auto type = initiator->find("type");
    auto id = initiator->find("requestId");
    if (type != initiator->end() && type->is_string() && *type == "preflight" &&
        id != initiator->end() && id->is_string()) {
      auto preflighted = current_.find(id->get_ref<const std::string&>());
      if (preflighted != current_.end())
        request.initiator_url = requests_[preflighted->second].initiator_url;
    }
  }
  request.message = message_;

  // A redirect: the previous hop of this id ends here with the redirect as its response.
  auto previous = current_.find(request_id);
  if (redirect && previous != current_.end()) {
    DevtoolsRequest& hop = requests_[previous->second];
    if (!ReadResponse(*redirect, "params.redirectResponse", &hop, error)) return false;
    hop.finished = true;
    hop.end_s = request.start_s;
    hop.redirect_to = request.url;
    request.page = hop.page;
  } else {
    // A main-frame navigation (its own loader's document request) starts a page, unless the
    // current page has none yet (requests logged before the navigation belong to it).
    bool document = request.type == "Document" && !loader_id.empty() && loader_id == request_id;
    if (document && main_frame_.empty() && !frame_id.empty() && !child_frames_.count(frame_id)) {
      main_frame_ = frame_id;
    }
    bool navigation = document && !frame_id.empty() && frame_id == main_frame_;
    if (pages_.empty() || (navigation && pages_.back().has_navigation)) {
      if (pages_.size() >= limits_.pages) {
        *error = "more than the limit of " + std::to_string(limits_.pages) +
                 " pages (main-frame navigations)";
        return false;
      }
      pages_.emplace_back();
    }
    if (navigation && !pages_.back().has_navigation) {
      pages_.back().has_navigation = true;
      pages_.back().navigation_url = request.url;
    }
    request.page = pages_.size() - 1;
  }
  if (requests_.size() >= limits_.requests) {
    *error = "more than the limit of " + std::to_string(limits_.requests) + " requests";
    return false;
  }
  if (auto early = early_request_headers_.find(request_id); early != early_request_headers_.end()) {
    request.request_headers = std::move(early->second);
    request.request_headers_as_sent = true;
    early_request_headers_.erase(early);
  }
  if (auto early = early_response_headers_.find(request_id);
      early != early_response_headers_.end()) {
    request.response_headers = std::move(early->second);
    request.response_headers_as_received = true;
    early_response_headers_.erase(early);
  }
  current_[request_id] = requests_.size();
  requests_.push_back(std::move(request));
  return true;
}

bool DevtoolsEvents::OnResponseReceived(const nlohmann::json& params, std::string* error) {
  JsonFields fields(params, "params");
  std::string request_id, type;
  double timestamp = -1;
  fields.String("requestId", &request_id, /*required=*/true);
  fields.NumberIn("timestamp", 0, kMaxSeconds, &timestamp);
  fields.String("type", &type);
  const nlohmann::json* response = fields.Object("response", /*required=*/true);
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  // A response to a request the log never started (or that ended) is still checked.
  DevtoolsRequest* request = Find(request_id);
  DevtoolsRequest ignored;
  if (!ReadResponse(*response, "params.response",
                    request && !request->finished ? request : &ignored, error)) {
    return false;
  }
  if (!request || request->finished) return true;
  request->response_s = timestamp;
  // The response's resource type is the one Chrome settled on (older versions send "Other"
  // with the request and the real type here).
  if (!type.empty()) request->type = type;
  return true;
}

bool DevtoolsEvents::OnExtraInfo(const nlohmann::json& params, bool response, std::string* error) {
  JsonFields fields(params, "params");
  std::string request_id;
  HeaderList headers;
  fields.String("requestId", &request_id, /*required=*/true);
  bool has_headers = ReadHeaderObject(fields, "headers", &headers);
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  if (!has_headers) return true;
  // It belongs to the current hop of its id unless that hop has its own already (then it is
  // the next hop's, sent before its requestWillBeSent).
  DevtoolsRequest* request = Find(request_id);
  bool* taken = !request   ? nullptr
                : response ? &request->response_headers_as_received
                           : &request->request_headers_as_sent;
  if (request && !*taken && !request->finished) {
    (response ? request->response_headers : request->request_headers) = std::move(headers);
    *taken = true;
  } else {
    auto& early = response ? early_response_headers_ : early_request_headers_;
    if (early.size() < limits_.requests) early[request_id] = std::move(headers);
  }
  return true;
}

bool DevtoolsEvents::OnData(const nlohmann::json& params, std::string* error) {
  JsonFields fields(params, "params");
  std::string request_id;
  double timestamp = -1, data_length = 0, encoded = 0;
  fields.String("requestId", &request_id, /*required=*/true);
  fields.NumberIn("timestamp", 0, kMaxSeconds, &timestamp);
  fields.NumberIn("dataLength", 0, kMaxBytes, &data_length);
  fields.NumberIn("encodedDataLength", 0, kMaxBytes, &encoded);
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  DevtoolsRequest* request = Find(request_id);
  if (!request || request->finished) return true;
  request->data_decoded_bytes += data_length;
  request->data_encoded_bytes += encoded;
  if (timestamp >= 0) request->last_data_s = timestamp;
  return true;
}

bool DevtoolsEvents::OnFinished(const nlohmann::json& params, bool failed, std::string* error) {
  JsonFields fields(params, "params");
  std::string request_id, error_text, blocked_reason;
  double timestamp = 0, encoded = -1;
  bool canceled = false;
  fields.String("requestId", &request_id, /*required=*/true);
  fields.NumberIn("timestamp", 0, kMaxSeconds, &timestamp, /*required=*/true);
  if (failed) {
    fields.String("errorText", &error_text);
    fields.Bool("canceled", &canceled);
    fields.String("blockedReason", &blocked_reason);
  } else {
    fields.NumberIn("encodedDataLength", -1, kMaxBytes, &encoded);
  }
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  DevtoolsRequest* request = Find(request_id);
  if (!request || request->finished) return true;
  request->finished = true;
  request->end_s = timestamp;
  if (failed) {
    // What Chrome reports: errorText ("net::ERR_ABORTED"); a request canceled or blocked
    // without one still failed.
    if (error_text.empty()) {
      error_text = !blocked_reason.empty() ? "net::ERR_BLOCKED_BY_CLIENT"
                   : canceled              ? "net::ERR_ABORTED"
                                           : "net::ERR_FAILED";
    }
    request->error_text = std::move(error_text);
  } else {
    request->finished_encoded_bytes = encoded;
  }
  return true;
}

bool DevtoolsEvents::OnServedFromCache(const nlohmann::json& params, std::string* error) {
  JsonFields fields(params, "params");
  std::string request_id;
  fields.String("requestId", &request_id, /*required=*/true);
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  if (DevtoolsRequest* request = Find(request_id)) request->from_cache = true;
  return true;
}

bool DevtoolsEvents::OnPageEvent(const nlohmann::json& params, bool load, std::string* error) {
  JsonFields fields(params, "params");
  double timestamp = 0;
  fields.NumberIn("timestamp", 0, kMaxSeconds, &timestamp, /*required=*/true);
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  if (pages_.empty()) return true;  // no request yet: nothing it could belong to
  double& slot = load ? pages_.back().load_s : pages_.back().content_load_s;
  if (slot < 0) slot = timestamp;  // the first of each per page
  return true;
}

bool DevtoolsEvents::OnFrame(const nlohmann::json& params, bool navigated, std::string* error) {
  JsonFields fields(params, "params");
  std::string frame_id, parent_id;
  if (navigated) {
    const nlohmann::json* frame = fields.Object("frame", /*required=*/true);
    if (frame) {
      JsonFields frame_fields(*frame, "params.frame");
      frame_fields.String("id", &frame_id, /*required=*/true);
      frame_fields.String("parentId", &parent_id);
      if (!frame_fields.ok()) {
        *error = frame_fields.error();
        return false;
      }
    }
  } else {
    fields.String("frameId", &frame_id, /*required=*/true);
    fields.String("parentFrameId", &parent_id);
  }
  if (!fields.ok()) {
    *error = fields.error();
    return false;
  }
  if (!parent_id.empty()) {
    if (child_frames_.size() < limits_.requests) child_frames_.insert(frame_id);
  } else if (navigated && main_frame_.empty()) {
    main_frame_ = frame_id;
  }
  return true;
}

bool DevtoolsEvents::Finish(HarFile* out, std::string* error) {
  std::vector<DevtoolsPageInfo> pages;
  pages.reserve(pages_.size());
  for (const Page& page : pages_) {
    pages.push_back({page.navigation_url, page.content_load_s, page.load_s});
  }
  return BuildDevtoolsPages(name_, &requests_, pages, out, error);
}

}  // namespace netstack
