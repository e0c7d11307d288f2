#include "net/sim/sim_http_server.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include "net/base/string_util.h"
#include "net/sim/sim_world.h"

namespace netstack {

namespace {

// True if the comma-separated header value lists `token` (case-insensitive).
bool HasToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    size_t comma = value.find(',');
    if (EqualsCaseInsensitiveAscii(TrimAscii(value.substr(0, comma), " \t\r"), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

// Whether a server sending `head` (for a request with `method`) must close the connection
// afterwards: `Connection: close`, HTTP/1.0 without keep-alive, or a body delimited by the end
// of the connection (neither Content-Length nor chunked, on a response that has a body).
bool HeadEndsConnection(std::string_view head, const std::string& method) {
  size_t eol = head.find('\n');
  std::string_view status = head.substr(0, eol);
  const bool http10 = status.rfind("HTTP/1.0", 0) == 0;
  int code = 0;
  if (status.size() >= 12) {
    std::string_view digits = status.substr(9, 3);
    if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      code = (digits[0] - '0') * 100 + (digits[1] - '0') * 10 + (digits[2] - '0');
    }
  }
  bool close = false, keep_alive = false, framed = false;
  while (eol != std::string_view::npos) {
    head.remove_prefix(eol + 1);
    eol = head.find('\n');
    std::string_view line = head.substr(0, eol);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = TrimAscii(line.substr(0, colon), " \t\r");
    std::string_view value = TrimAscii(line.substr(colon + 1), " \t\r");
    if (EqualsCaseInsensitiveAscii(name, "connection")) {
      close |= HasToken(value, "close");
      keep_alive |= HasToken(value, "keep-alive");
    } else if (EqualsCaseInsensitiveAscii(name, "content-length")) {
      framed = true;
    } else if (EqualsCaseInsensitiveAscii(name, "transfer-encoding")) {
      framed |= HasToken(value, "chunked");
    }
  }
  const bool bodiless = method == "HEAD" || code / 100 == 1 || code == 204 || code == 304;
  return close || (http10 && !keep_alive) || (!framed && !bodiless);
}

// "host[:port]" lowercase, without the scheme's default port (as Url::HostHeader writes it).
void NormalizeHost(std::string* host, std::string_view scheme) {
  for (char& c : *host) c = ToLowerAscii(c);
  size_t colon = host->rfind(':');
  size_t bracket = host->rfind(']');
  if (colon == std::string::npos || (bracket != std::string::npos && colon < bracket)) return;
  std::string_view port = std::string_view(*host).substr(colon + 1);
  if ((scheme == "https" && port == "443") || (scheme == "http" && port == "80")) {
    host->erase(colon);
  }
}

SimHttpServer* From(http_parser* p) { return static_cast<SimHttpServer*>(p->data); }

}  // namespace

SimHttpServer::SimHttpServer(SimWorld& world, const SimHost* host, Output* output)
    : world_(world), host_(host), output_(output) {
  http_parser_init(&parser_, HTTP_REQUEST);
  parser_.data = this;
}

const http_parser_settings& SimHttpServer::Settings() {
  static const http_parser_settings settings = [] {
    http_parser_settings s;
    http_parser_settings_init(&s);
    s.on_message_begin = &OnMessageBegin;
    s.on_url = &OnUrl;
    s.on_header_field = &OnHeaderField;
    s.on_header_value = &OnHeaderValue;
    s.on_headers_complete = &OnHeadersComplete;
    s.on_body = &OnBody;
    s.on_message_complete = &OnMessageComplete;
    return s;
  }();
  return settings;
}

// The callbacks only append to strings whose growth CountHead bounds; they do not throw
// beyond std::bad_alloc, which the simulator does not recover from anyway.
int SimHttpServer::OnMessageBegin(http_parser* p) {
  SimHttpServer* s = From(p);
  s->current_ = SimRequest();
  s->head_bytes_ = 0;
  s->field_.clear();
  s->in_value_ = false;
  s->host_value_ = false;
  s->keep_alive_ = true;
  return 0;
}

int SimHttpServer::OnUrl(http_parser* p, const char* at, size_t len) {
  SimHttpServer* s = From(p);
  if (!s->CountHead(len)) return -1;
  s->current_.target.append(at, len);
  return 0;
}

int SimHttpServer::OnHeaderField(http_parser* p, const char* at, size_t len) {
  SimHttpServer* s = From(p);
  if (!s->CountHead(len)) return -1;
  if (s->in_value_) {
    s->in_value_ = false;
    s->field_.clear();
  }
  s->field_.append(at, len);
  return 0;
}

int SimHttpServer::OnHeaderValue(http_parser* p, const char* at, size_t len) {
  SimHttpServer* s = From(p);
  if (!s->CountHead(len)) return -1;
  if (!s->in_value_) {
    s->in_value_ = true;
    s->host_value_ = EqualsCaseInsensitiveAscii(s->field_, "host");
    if (s->host_value_) s->current_.host.clear();
  }
  if (s->host_value_) s->current_.host.append(at, len);
  return 0;
}

int SimHttpServer::OnHeadersComplete(http_parser* p) {
  SimHttpServer* s = From(p);
  s->current_.method = http_method_str(static_cast<http_method>(p->method));
  s->keep_alive_ = http_should_keep_alive(p) != 0;
  NormalizeHost(&s->current_.host, s->scheme_);
  return 0;
}

int SimHttpServer::OnBody(http_parser* p, const char* at, size_t len) {
  (void)at;
  From(p)->current_.body_bytes += static_cast<int64_t>(len);
  return 0;
}

int SimHttpServer::OnMessageComplete(http_parser* p) {
  From(p)->message_done_ = true;
  // Stop here so that OnClientBytes learns where the request ends.
  http_parser_pause(p, 1);
  return 0;
}

bool SimHttpServer::CountHead(size_t len) {
  head_bytes_ += len;
  return head_bytes_ <= kMaxRequestHeadBytes;
}

void SimHttpServer::OnClientBytes(const char* data, size_t len) {
  const int64_t base = offset_;
  offset_ += static_cast<int64_t>(len);
  if (failed_) return;
  size_t done = 0;
  while (done < len) {
    size_t n = http_parser_execute(&parser_, &Settings(), data + done, len - done);
    done += n;
    const http_errno err = HTTP_PARSER_ERRNO(&parser_);
    if (err == HPE_PAUSED && message_done_) {
      http_parser_pause(&parser_, 0);
      message_done_ = false;
      // Line breaks right after a message are skipped by the parser before the next request;
      // they arrive with this one.
      size_t end = done;
      while (end < len && (data[end] == '\r' || data[end] == '\n')) ++end;
      // This model speaks HTTP/1.1 only: a protocol upgrade (or CONNECT) ends the exchange.
      if (parser_.upgrade || pending_.size() >= kMaxPendingRequests) {
        return Fail(base + static_cast<int64_t>(len));
      }
      pending_.push_back(
          Pending{base + static_cast<int64_t>(end), false, keep_alive_, std::move(current_)});
      current_ = SimRequest();
      continue;
    }
    if (err != HPE_OK || n == 0) return Fail(base + static_cast<int64_t>(len));
  }
}

void SimHttpServer::Fail(int64_t end) {
  failed_ = true;
  Pending pending;
  pending.end = end;
  pending.error = true;
  pending_.push_back(std::move(pending));
}

void SimHttpServer::OnFlowDelivered(SimFlow* uplink) {
  const int64_t delivered = uplink->delivered();
  while (!pending_.empty() && pending_.front().end <= delivered) {
    Pending pending = std::move(pending_.front());
    pending_.pop_front();
    if (closed_) continue;
    if (pending.error) {
      closed_ = true;
      output_->CloseConnection(world_.scheduler.Now());
      continue;
    }
    Answer(pending);
  }
}

void SimHttpServer::Answer(Pending& pending) {
  const TimeTicks now = world_.scheduler.Now();
  SimRequest& request = pending.request;
  request.scheme = scheme_;
  request.arrived_at = now;
  ++world_.stats.requests;
  ++answered_;
  SimResponse response;
  if (world_.responder) {
    response = world_.responder->Respond(request);
  } else {
    response.head = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
  }
  // A HEAD response has no body on the wire, whatever the responder said.
  const int64_t body = request.method == "HEAD" ? 0 : std::max<int64_t>(response.body_bytes, 0);
  const TimeDelta host_server_time =
      host_ ? host_->params.server_time : world_.params.defaults.server_time;
  const TimeDelta server_time =
      std::max(response.server_time.value_or(host_server_time), TimeDelta::zero());
  const TimeTicks depart = now + server_time;
  const bool close = !pending.keep_alive || HeadEndsConnection(response.head, request.method);
  output_->SendResponse(depart, std::move(response.head), body);
  if (close) {
    closed_ = true;
    output_->CloseConnection(depart);
  }
}

}  // namespace netstack
