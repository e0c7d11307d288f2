#include "tests/http2/h2_test_server.h"

#include <algorithm>
#include <cstring>

namespace netstack {

H2TestServer::H2TestServer(std::vector<nghttp2_settings_entry> settings) {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &OnHeader);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &OnFrameRecv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &OnDataChunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &OnStreamClose);
  nghttp2_option* option = nullptr;
  nghttp2_option_new(&option);
  // Large header lists are a test's to send (the client's bound is under test).
  nghttp2_option_set_max_send_header_block_length(option, 4 * 1024 * 1024);
  nghttp2_session_server_new2(&session_, callbacks, this, option);
  nghttp2_option_del(option);
  nghttp2_session_callbacks_del(callbacks);
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
}

H2TestServer::~H2TestServer() { nghttp2_session_del(session_); }

int H2TestServer::Pump(Http2Connection& client) {
  int rv = 0;
  for (int round = 0; round < 1000; ++round) {
    bool moved = false;
    if (client.WantsWrite()) {
      Receive(client.TakeOutput());
      moved = true;
    }
    const std::string in = TakeOutput();
    if (!in.empty()) {
      rv = client.OnBytesRead(in);
      moved = true;
    }
    if (!moved) break;
  }
  return rv;
}

void H2TestServer::Receive(std::string_view bytes) {
  nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

std::string H2TestServer::TakeOutput() {
  std::string out;
  for (;;) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n <= 0) break;
    out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
  out += std::exchange(raw_, std::string());
  return out;
}

void H2TestServer::Respond(int32_t stream_id, int status,
                           std::vector<std::pair<std::string, std::string>> headers,
                           std::string body, bool end) {
  std::vector<std::pair<std::string, std::string>> all;
  all.emplace_back(":status", std::to_string(status));
  for (auto& h : headers) all.push_back(std::move(h));
  std::vector<nghttp2_nv> nva;
  for (auto& [name, value] : all) {
    nva.push_back({reinterpret_cast<uint8_t*>(name.data()),
                   reinterpret_cast<uint8_t*>(value.data()), name.size(), value.size(),
                   NGHTTP2_NV_FLAG_NONE});
  }
  if (body.empty() && end) {
    nghttp2_submit_response(session_, stream_id, nva.data(), nva.size(), nullptr);
    return;
  }
  bodies_[stream_id] = Body{std::move(body), 0, end};
  nghttp2_data_provider provider;
  provider.source.ptr = nullptr;
  provider.read_callback = &ReadBody;
  nghttp2_submit_response(session_, stream_id, nva.data(), nva.size(), &provider);
}

void H2TestServer::Reset(int32_t stream_id, uint32_t error_code) {
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream_id, error_code);
}

void H2TestServer::Goaway(int32_t last_stream_id, uint32_t error_code) {
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, last_stream_id, error_code, nullptr, 0);
}

std::string H2TestServer::Header(int32_t stream_id, const std::string& name) {
  for (const auto& [n, v] : requests_[stream_id].headers) {
    if (n == name) return v;
  }
  return "";
}

// static
int H2TestServer::OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                           size_t namelen, const uint8_t* value, size_t valuelen, uint8_t,
                           void* user) {
  auto* self = static_cast<H2TestServer*>(user);
  self->requests_[frame->hd.stream_id].headers.emplace_back(
      std::string(reinterpret_cast<const char*>(name), namelen),
      std::string(reinterpret_cast<const char*>(value), valuelen));
  return 0;
}

// static
int H2TestServer::OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<H2TestServer*>(user);
  if (frame->hd.type == NGHTTP2_GOAWAY) self->goaway_received_ = true;
  if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
      (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
    self->requests_[frame->hd.stream_id].ended = true;
  }
  return 0;
}

// static
int H2TestServer::OnDataChunk(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data,
                              size_t len, void* user) {
  auto* self = static_cast<H2TestServer*>(user);
  self->requests_[stream_id].body.append(reinterpret_cast<const char*>(data), len);
  return 0;
}

// static
int H2TestServer::OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code,
                                void* user) {
  auto* self = static_cast<H2TestServer*>(user);
  self->requests_[stream_id].closed_with = error_code;
  self->bodies_.erase(stream_id);
  return 0;
}

// static
ssize_t H2TestServer::ReadBody(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length,
                               uint32_t* data_flags, nghttp2_data_source*, void* user) {
  auto* self = static_cast<H2TestServer*>(user);
  auto it = self->bodies_.find(stream_id);
  if (it == self->bodies_.end()) {
    *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return 0;
  }
  Body& body = it->second;
  const size_t n = std::min(length, body.data.size() - body.sent);
  if (n == 0 && !body.end) return NGHTTP2_ERR_DEFERRED;
  std::memcpy(buf, body.data.data() + body.sent, n);
  body.sent += n;
  if (body.sent == body.data.size() && body.end) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace netstack
