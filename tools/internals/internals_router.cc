#include "tools/internals/internals_router.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/base/string_util.h"
#include "net/http/http_cache.h"
#include "net/http/url_request_context.h"
#include "predictor/predictor.h"
#include "tools/internals/cache_view.h"
#include "tools/internals/dns_view.h"
#include "tools/internals/http2_view.h"
#include "tools/internals/internals_assets.h"
#include "tools/internals/memory_report.h"
#include "tools/internals/sockets_view.h"

namespace netstack {
namespace {

using json = nlohmann::json;
using Respond = UvHttpServer::Respond;

constexpr char kVersion[] = "netstack 0.1.0";
constexpr char kTokenHeader[] = "x-netstack-token";

// Taken when the program's static objects are initialized: close enough to the process start
// for /api/info's uptime_ms.
const std::chrono::steady_clock::time_point kProcessStart = std::chrono::steady_clock::now();

// Network strings may be any bytes: the dump replaces invalid UTF-8 instead of throwing.
HttpServerResponse JsonAnswer(int status, const json& body) {
  HttpServerResponse response;
  response.status = status;
  response.content_type = "application/json; charset=utf-8";
  response.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return response;
}

HttpServerResponse ErrorAnswer(int status, const std::string& message) {
  return JsonAnswer(status, json{{"error", message}});
}

HttpServerResponse ResultAnswer(const InternalsResult& result) {
  return JsonAnswer(result.status, result.body);
}

// Rule 1: the Host header names this server. Browsers omit ":80" for port 80.
bool HostAllowed(const std::string& host_header, const InternalsRouter::Options& options) {
  if (host_header.empty()) return false;
  std::string host = ToLowerAscii(host_header);
  std::vector<std::string> names = {"127.0.0.1", "localhost", "[::1]"};
  const std::string& listen = options.listen_address;
  if (!listen.empty()) {
    names.push_back(
        ToLowerAscii(listen.find(':') != std::string::npos ? "[" + listen + "]" : listen));
  }
  const std::string port = std::to_string(options.port);
  for (const std::string& name : names) {
    if (host == name + ":" + port) return true;
    if (options.port == 80 && host == name) return true;
  }
  return false;
}

// Rule 2: origin-form, and nothing a file system or a decoder could turn into a traversal.
bool PathRefused(const HttpServerRequest& request) {
  if (request.target.empty() || request.target[0] != '/') return true;
  const std::string path = ToLowerAscii(request.path);
  if (path.empty() || path[0] != '/') return true;
  if (path.find("..") != std::string::npos || path.find('\\') != std::string::npos) return true;
  for (std::string_view encoded : {"%2e", "%2f", "%5c", "%00"}) {
    if (path.find(encoded) != std::string::npos) return true;
  }
  for (char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// A decimal query parameter; `fallback` when absent. False (with `error`) when malformed.
template <typename T>
bool QueryNumber(const HttpServerRequest& request, const char* name, T fallback, T* out,
                 std::string* error) {
  auto it = request.query.find(name);
  if (it == request.query.end()) {
    *out = fallback;
    return true;
  }
  const std::string& text = it->second;
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    *error = std::string(name) + ": not a non-negative decimal number";
    return false;
  }
  *out = value;
  return true;
}

std::string QueryString(const HttpServerRequest& request, const char* name) {
  auto it = request.query.find(name);
  return it == request.query.end() ? std::string() : it->second;
}

// A string field of a POST body; false when absent or not a string.
bool BodyString(const json& body, const char* name, std::string* out) {
  auto it = body.find(name);
  if (it == body.end() || !it->is_string()) return false;
  *out = it->get<std::string>();
  return true;
}

struct RouteContext {
  InternalsHost* host;
  NetLogRing* ring;
  StackHistograms* histograms;
  const InternalsRouter::Options& options;
};

using RouteHandler = void (*)(const RouteContext&, const HttpServerRequest&, const json& body,
                              Respond& respond);

struct Route {
  std::string_view path;
  bool post;  // state-changing: POST with the token; else GET (or HEAD)
  bool needs_stack;
  RouteHandler handler;
};

UrlRequestContext& Stack(const RouteContext& rc) { return *rc.host->context(); }

void Info(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  UrlRequestContext* context = rc.host->context();
  json info = {
      {"version", kVersion},
      {"pid", static_cast<int64_t>(::getpid())},
      {"now_ms", context ? json(ToMilliseconds(context->scheduler().Now())) : json(nullptr)},
      {"time_tick_offset_ms", rc.host->time_tick_offset_ms()},
      {"uptime_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - kProcessStart)
                        .count()},
      {"stack", context != nullptr}};
  json host = rc.host->GetInfo();
  if (host.is_object()) info.update(host);
  respond(JsonAnswer(200, info));
}

void Sockets(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  respond(JsonAnswer(200, SocketsJson(Stack(rc))));
}

void SocketsCloseIdle(const RouteContext& rc, const HttpServerRequest&, const json&,
                      Respond& respond) {
  InternalsResult result = CloseIdleSockets(Stack(rc));
  rc.host->OnStackChanged("close idle sockets");
  respond(ResultAnswer(result));
}

void SocketsFlush(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  InternalsResult result = FlushSocketPools(Stack(rc));
  rc.host->OnStackChanged("flush socket pools");
  respond(ResultAnswer(result));
}

void Http2(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  respond(JsonAnswer(200, Http2Json(Stack(rc))));
}

void Dns(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  respond(JsonAnswer(200, DnsJson(Stack(rc), rc.host->predictor())));
}

void DnsClear(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  InternalsResult result = ClearHostCache(Stack(rc));
  rc.host->OnStackChanged("clear host cache");
  respond(ResultAnswer(result));
}

void DnsResolve(const RouteContext& rc, const HttpServerRequest&, const json& body,
                Respond& respond) {
  std::string host;
  if (!BodyString(body, "host", &host)) {
    respond(ErrorAnswer(400, "body: \"host\" (a string) is required"));
    return;
  }
  rc.host->Resolve(host, [respond = std::move(respond)](InternalsResult result) {
    respond(ResultAnswer(result));
  });
}

void PredictorInfo(const RouteContext& rc, const HttpServerRequest&, const json&,
                   Respond& respond) {
  Predictor* predictor = rc.host->predictor();
  respond(JsonAnswer(200, predictor ? predictor->GetInfoAsJson() : json{{"policy", "off"}}));
}

void Cache(const RouteContext& rc, const HttpServerRequest& request, const json&,
           Respond& respond) {
  CacheListQuery query;
  std::string error;
  if (!ParseCacheListQuery(request.query, &query, &error)) {
    respond(ErrorAnswer(400, error));
    return;
  }
  respond(JsonAnswer(200, CacheListJson(Stack(rc).http_cache(), query)));
}

void CacheEntryRoute(const RouteContext& rc, const HttpServerRequest& request, const json&,
                     Respond& respond) {
  if (request.query.find("key") == request.query.end()) {
    respond(ErrorAnswer(400, "key: missing"));
    return;
  }
  size_t max_bytes = 0;
  std::string error;
  if (!QueryNumber<size_t>(request, "max_bytes", kCacheEntryDefaultMaxBytes, &max_bytes, &error)) {
    respond(ErrorAnswer(400, error));
    return;
  }
  UrlRequestContext& context = Stack(rc);
  ReadCacheEntry(
      context.http_cache(), context.scheduler(), QueryString(request, "key"), max_bytes,
      [respond = std::move(respond)](InternalsResult result) { respond(ResultAnswer(result)); });
}

void Events(const RouteContext& rc, const HttpServerRequest& request, const json&,
            Respond& respond) {
  uint64_t after = 0;
  size_t limit = 0;
  std::string error;
  if (!QueryNumber<uint64_t>(request, "after", 0, &after, &error) ||
      !QueryNumber<size_t>(request, "limit", 1000, &limit, &error)) {
    respond(ErrorAnswer(400, error));
    return;
  }
  respond(JsonAnswer(200, rc.ring->EventsAfter(after, limit, QueryString(request, "filter"))));
}

void EventsSource(const RouteContext& rc, const HttpServerRequest& request, const json&,
                  Respond& respond) {
  uint32_t id = 0;
  std::string error;
  if (request.query.find("id") == request.query.end()) {
    respond(ErrorAnswer(400, "id: missing"));
    return;
  }
  if (!QueryNumber<uint32_t>(request, "id", 0, &id, &error)) {
    respond(ErrorAnswer(400, error));
    return;
  }
  respond(JsonAnswer(200, rc.ring->SourceEvents(id)));
}

void NetLogExport(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  UrlRequestContext* context = rc.host->context();
  json polled = context ? context->GetPolledData() : json::object();
  HttpServerResponse response;
  response.content_type = "application/json; charset=utf-8";
  response.headers.emplace_back("Content-Disposition",
                                "attachment; filename=\"netstack-netlog.json\"");
  response.body =
      rc.ring->ExportNetLog(rc.host->time_tick_offset_ms(), rc.options.command_line, polled);
  respond(std::move(response));
}

void Histograms(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  respond(JsonAnswer(200, rc.histograms->ToJson()));
}

void HistogramsReset(const RouteContext& rc, const HttpServerRequest&, const json&,
                     Respond& respond) {
  rc.histograms->Reset();
  respond(JsonAnswer(200, json{{"reset", true}}));
}

void Memory(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  MemorySources sources;
  sources.context = rc.host->context();
  sources.predictor = rc.host->predictor();
  sources.ring = rc.ring;
  sources.histograms = rc.histograms;
  respond(JsonAnswer(200, MemoryReport(sources)));
}

void Fetches(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  respond(ResultAnswer(rc.host->FetchHistory()));
}

void FetchRoute(const RouteContext& rc, const HttpServerRequest&, const json& body,
                Respond& respond) {
  std::string url;
  if (!BodyString(body, "url", &url)) {
    respond(ErrorAnswer(400, "body: \"url\" (a string) is required"));
    return;
  }
  respond(ResultAnswer(rc.host->Fetch(url)));
}

void Omnibox(const RouteContext& rc, const HttpServerRequest&, const json& body, Respond& respond) {
  std::string text;
  if (!BodyString(body, "text", &text)) {
    respond(ErrorAnswer(400, "body: \"text\" (a string) is required"));
    return;
  }
  respond(ResultAnswer(rc.host->Omnibox(text)));
}

void Hover(const RouteContext& rc, const HttpServerRequest&, const json& body, Respond& respond) {
  std::string url;
  if (!BodyString(body, "url", &url)) {
    respond(ErrorAnswer(400, "body: \"url\" (a string) is required"));
    return;
  }
  respond(ResultAnswer(rc.host->Hover(url)));
}

void Replay(const RouteContext& rc, const HttpServerRequest&, const json& body, Respond& respond) {
  std::string action;
  if (!BodyString(body, "action", &action) ||
      (action != "pause" && action != "run" && action != "step" && action != "step_page")) {
    respond(ErrorAnswer(400, "body: \"action\" must be pause, run, step or step_page"));
    return;
  }
  respond(ResultAnswer(rc.host->ReplayControl(action)));
}

void Quit(const RouteContext& rc, const HttpServerRequest&, const json&, Respond& respond) {
  // The answer is queued first; the host's Quit posts the shutdown, so it goes out.
  respond(JsonAnswer(200, json{{"quitting", true}}));
  rc.host->Quit();
}

constexpr Route kRoutes[] = {
    {"/api/info", false, false, Info},
    {"/api/sockets", false, true, Sockets},
    {"/api/sockets/close-idle", true, true, SocketsCloseIdle},
    {"/api/sockets/flush", true, true, SocketsFlush},
    {"/api/http2", false, true, Http2},
    {"/api/dns", false, true, Dns},
    {"/api/dns/clear", true, true, DnsClear},
    {"/api/dns/resolve", true, true, DnsResolve},
    {"/api/predictor", false, false, PredictorInfo},
    {"/api/cache", false, true, Cache},
    {"/api/cache/entry", false, true, CacheEntryRoute},
    {"/api/events", false, false, Events},
    {"/api/events/source", false, false, EventsSource},
    {"/api/netlog", false, false, NetLogExport},
    {"/api/histograms", false, false, Histograms},
    {"/api/histograms/reset", true, false, HistogramsReset},
    {"/api/memory", false, false, Memory},
    {"/api/fetches", false, false, Fetches},
    {"/api/fetch", true, false, FetchRoute},
    {"/api/omnibox", true, false, Omnibox},
    {"/api/hover", true, false, Hover},
    {"/api/replay", true, false, Replay},
    {"/api/quit", true, false, Quit},
};

bool TokenMatches(const std::string& given, const std::string& token) {
  if (token.empty() || given.size() != token.size()) return false;
  return CRYPTO_memcmp(given.data(), token.data(), token.size()) == 0;
}

bool IsJsonContentType(const std::string& content_type) {
  std::string type = ToLowerAscii(content_type.substr(0, content_type.find(';')));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.pop_back();
  return type == "application/json";
}

void ServeAsset(const InternalsAsset& asset, const std::string& token, Respond& respond) {
  HttpServerResponse response;
  response.content_type = std::string(asset.content_type);
  response.body = std::string(asset.data);
  if (asset.path == "/") {
    // Every occurrence: the page may carry the token in more than one place.
    const std::string placeholder(kInternalsTokenPlaceholder);
    for (size_t pos = response.body.find(placeholder); pos != std::string::npos;
         pos = response.body.find(placeholder, pos + token.size())) {
      response.body.replace(pos, placeholder.size(), token);
    }
  }
  respond(std::move(response));
}

}  // namespace

InternalsRouter::InternalsRouter(InternalsHost* host, NetLogRing* ring, StackHistograms* histograms,
                                 Options options)
    : host_(host), ring_(ring), histograms_(histograms), options_(std::move(options)) {}

void InternalsRouter::Handle(const HttpServerRequest& request, UvHttpServer::Respond respond) {
  // 1. DNS rebinding.
  if (!HostAllowed(request.Header("host"), options_)) {
    respond(ErrorAnswer(403, "Host header does not name this server"));
    return;
  }
  // 2. Paths, before any lookup.
  if (PathRefused(request)) {
    respond(ErrorAnswer(400, "path refused"));
    return;
  }
  const bool get = request.method == "GET" || request.method == "HEAD";
  if (request.path.rfind("/api/", 0) != 0) {
    const InternalsAsset* asset = FindInternalsAsset(request.path);
    if (!asset) {
      respond(ErrorAnswer(404, "not found"));
    } else if (!get) {
      respond(ErrorAnswer(405, "method not allowed: assets are GET only"));
    } else {
      ServeAsset(*asset, options_.token, respond);
    }
    return;
  }
  const Route* route = nullptr;
  for (const Route& r : kRoutes) {
    if (r.path == request.path) route = &r;
  }
  if (!route) {
    respond(ErrorAnswer(404, "no such endpoint"));
    return;
  }
  // 3. Methods, the token, the body.
  json body = json::object();
  if (route->post) {
    if (request.method != "POST") {
      respond(ErrorAnswer(405, "method not allowed: this endpoint is POST only"));
      return;
    }
    if (!TokenMatches(request.Header(kTokenHeader), options_.token)) {
      respond(ErrorAnswer(403, "missing or wrong X-Netstack-Token"));
      return;
    }
    if (!request.body.empty()) {
      const std::string& type = request.Header("content-type");
      if (!type.empty() && !IsJsonContentType(type)) {
        respond(ErrorAnswer(415, "the body must be application/json"));
        return;
      }
      body = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
      if (body.is_discarded() || !body.is_object()) {
        respond(ErrorAnswer(400, "the body is not a JSON object"));
        return;
      }
    }
  } else if (!get) {
    respond(ErrorAnswer(405, "method not allowed: this endpoint is GET only"));
    return;
  }
  if (route->needs_stack && !host_->context()) {
    respond(ErrorAnswer(503, "no stack yet (a replay before its first event)"));
    return;
  }
  RouteContext rc{host_, ring_, histograms_, options_};
  route->handler(rc, request, body, respond);
}

std::string MakeInternalsToken() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
    // No CSPRNG: fail closed. An empty token matches nothing (TokenMatches), so every POST is
    // refused rather than guarded by a guessable value.
    return std::string();
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token.push_back(kDigits[b >> 4]);
    token.push_back(kDigits[b & 0x0f]);
  }
  return token;
}

}  // namespace netstack
