#include "net/sim/sim_http_server.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "net/base/string_util.h"
#include "net/http/http_keep_alive.h"
#include "net/sim/sim_world.h"

namespace netstack {

// static
void SimHttpServer::NormalizeHost(std::string* host, std::string_view scheme) {
  for (char& c : *host) c = ToLowerAscii(c);
  size_t colon = host->rfind(':');
  size_t bracket = host->rfind(']');
  if (colon == std::string::npos || (bracket != std::string::npos && colon < bracket)) return;
  std::string_view port = std::string_view(*host).substr(colon + 1);
  if ((scheme == "https" && port == "443") || (scheme == "http" && port == "80")) {
    host->erase(colon);
  }
}

SimHttpServer::SimHttpServer(SimWorld& world, const SimHost* host, Output* output)
    : world_(world),
      host_(host),
      output_(output),
      reader_(HttpRequestReader::Limits{.max_head_bytes = kMaxRequestHeadBytes,
                                        .max_body_bytes = kMaxRequestBodyBytes,
                                        .keep_body = false,
                                        .keep_headers = false}) {}

void SimHttpServer::OnClientBytes(const char* data, size_t len) {
  const int64_t base = offset_;
  offset_ += static_cast<int64_t>(len);
  if (failed_) return;
  const int64_t end = base + static_cast<int64_t>(len);
  size_t done = 0;
  while (done < len) {
    const size_t n = reader_.Feed(data + done, len - done);
    done += n;
    const HttpRequestReader::State state = reader_.state();
    if (state == HttpRequestReader::State::kError) return Fail(end);
    if (state == HttpRequestReader::State::kReading) {
      if (n == 0) return Fail(end);  // no progress: cannot happen, never loop on it
      continue;
    }
    // This model speaks HTTP/1.1 only: a protocol upgrade (or CONNECT) ends the exchange.
    if (reader_.upgrade() || pending_.size() >= kMaxPendingRequests) return Fail(end);
    // `done` is where the request ends: the reader stopped there (after the empty lines that
    // follow it in these bytes).
    const bool keep_alive = reader_.keep_alive();
    HttpServerRequest read = reader_.TakeRequest();
    SimRequest request;
    request.method = std::move(read.method);
    request.target = std::move(read.target);
    request.host = read.Header("host");
    NormalizeHost(&request.host, scheme_);
    request.body_bytes = static_cast<int64_t>(read.body_bytes);
    pending_.push_back(
        Pending{base + static_cast<int64_t>(done), false, keep_alive, std::move(request)});
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

// static
SimHttpServer::Answered SimHttpServer::Respond(SimWorld& world, const SimHost* host,
                                               const SimRequest& request) {
  ++world.stats.requests;
  Answered answered;
  SimResponse& response = answered.response;
  if (world.responder) {
    response = world.responder->Respond(request);
  } else {
    response.head = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
  }
  // A HEAD response has no body on the wire, whatever the responder said.
  answered.body_bytes = request.method == "HEAD" ? 0 : std::max<int64_t>(response.body_bytes, 0);
  const TimeDelta host_server_time =
      host ? host->params.server_time : world.params.defaults.server_time;
  const TimeDelta server_time =
      std::max(response.server_time.value_or(host_server_time), TimeDelta::zero());
  answered.depart = world.scheduler.Now() + server_time;
  return answered;
}

void SimHttpServer::Answer(Pending& pending) {
  SimRequest& request = pending.request;
  request.scheme = scheme_;
  request.arrived_at = world_.scheduler.Now();
  ++answered_;
  Answered answered = Respond(world_, host_, request);
  const bool close = !pending.keep_alive || !ResponseHeadKeepsConnectionAlive(
                                                answered.response.head, request.method == "HEAD");
  output_->SendResponse(answered.depart, std::move(answered.response.head), answered.body_bytes);
  if (close) {
    closed_ = true;
    output_->CloseConnection(answered.depart);
  }
}

}  // namespace netstack
