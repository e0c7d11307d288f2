#include "net/http2/http2_frame_log.h"

#include <string>

namespace netstack {
namespace {

const char* SettingName(int32_t id) {
  switch (id) {
    case NGHTTP2_SETTINGS_HEADER_TABLE_SIZE:
      return "SETTINGS_HEADER_TABLE_SIZE";
    case NGHTTP2_SETTINGS_ENABLE_PUSH:
      return "SETTINGS_ENABLE_PUSH";
    case NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS:
      return "SETTINGS_MAX_CONCURRENT_STREAMS";
    case NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE:
      return "SETTINGS_INITIAL_WINDOW_SIZE";
    case NGHTTP2_SETTINGS_MAX_FRAME_SIZE:
      return "SETTINGS_MAX_FRAME_SIZE";
    case NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE:
      return "SETTINGS_MAX_HEADER_LIST_SIZE";
    default:
      return "SETTINGS_UNKNOWN";
  }
}

}  // namespace

void LogHttp2Frame(const NetLogWithSource& net_log, bool sent, const nghttp2_frame& frame) {
  if (!net_log.IsCapturing()) return;
  const int32_t stream_id = frame.hd.stream_id;
  const bool fin = (frame.hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  switch (frame.hd.type) {
    case NGHTTP2_SETTINGS: {
      if (frame.hd.flags & NGHTTP2_FLAG_ACK) return;
      nlohmann::json settings = nlohmann::json::array();
      for (size_t i = 0; i < frame.settings.niv; ++i) {
        settings.push_back(std::string(SettingName(frame.settings.iv[i].settings_id)) + " (" +
                           std::to_string(frame.settings.iv[i].settings_id) +
                           "): " + std::to_string(frame.settings.iv[i].value));
      }
      net_log.AddEvent(sent ? NetLogEventType::HTTP2_SESSION_SEND_SETTINGS
                            : NetLogEventType::HTTP2_SESSION_RECV_SETTINGS,
                       [&] {
                         return nlohmann::json{{"settings", settings}};
                       });
      return;
    }
    case NGHTTP2_HEADERS:
      net_log.AddEvent(sent ? NetLogEventType::HTTP2_SESSION_SEND_HEADERS
                            : NetLogEventType::HTTP2_SESSION_RECV_HEADERS,
                       [&](NetLogParams& p) {
                         const bool priority = sent && (frame.hd.flags & NGHTTP2_FLAG_PRIORITY);
                         if (priority) p.Add("exclusive", frame.headers.pri_spec.exclusive != 0);
                         p.Add("fin", fin).Add("stream_id", stream_id);
                         if (priority) p.Add("weight", frame.headers.pri_spec.weight);
                       });
      return;
    case NGHTTP2_DATA:
      if (sent) return;  // request bodies: the request's own events say it
      net_log.AddEvent(NetLogEventType::HTTP2_SESSION_RECV_DATA, [&](NetLogParams& p) {
        p.Add("fin", fin).Add("size", frame.hd.length).Add("stream_id", stream_id);
      });
      return;
    case NGHTTP2_WINDOW_UPDATE:
      net_log.AddEvent(sent ? NetLogEventType::HTTP2_SESSION_SEND_WINDOW_UPDATE
                            : NetLogEventType::HTTP2_SESSION_RECV_WINDOW_UPDATE,
                       [&] {
                         return nlohmann::json{
                             {"stream_id", stream_id},
                             {"delta", frame.window_update.window_size_increment}};
                       });
      return;
    case NGHTTP2_GOAWAY:
      net_log.AddEvent(sent ? NetLogEventType::HTTP2_SESSION_SEND_GOAWAY
                            : NetLogEventType::HTTP2_SESSION_RECV_GOAWAY,
                       [&] {
                         return nlohmann::json{
                             {"last_accepted_stream_id", frame.goaway.last_stream_id},
                             {"error_code", nghttp2_http2_strerror(frame.goaway.error_code)}};
                       });
      return;
    case NGHTTP2_RST_STREAM:
      net_log.AddEvent(sent ? NetLogEventType::HTTP2_SESSION_SEND_RST_STREAM
                            : NetLogEventType::HTTP2_SESSION_RECV_RST_STREAM,
                       [&] {
                         return nlohmann::json{
                             {"stream_id", stream_id},
                             {"error_code", nghttp2_http2_strerror(frame.rst_stream.error_code)}};
                       });
      return;
    case NGHTTP2_PUSH_PROMISE:
      net_log.AddEvent(NetLogEventType::HTTP2_SESSION_RECV_PUSH_PROMISE, [&] {
        return nlohmann::json{{"stream_id", stream_id},
                              {"promised_stream_id", frame.push_promise.promised_stream_id}};
      });
      return;
    case NGHTTP2_PING:
      if (frame.hd.flags & NGHTTP2_FLAG_ACK) return;
      net_log.AddEvent(NetLogEventType::HTTP2_SESSION_PING, [&] {
        return nlohmann::json{{"type", sent ? "sent" : "received"}};
      });
      return;
    default:
      return;
  }
}

}  // namespace netstack
