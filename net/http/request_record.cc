#include "net/http/request_record.h"

#include "net/http/http_response_headers.h"
#include "net/http/url_request.h"

namespace netstack {

double RequestRecord::start_ms() const {
  return placement ? MillisecondsBetween(placement->page_start, start) : 0;
}

double RequestRecord::end_ms() const {
  return placement ? MillisecondsBetween(placement->page_start, end) : 0;
}

const char* RequestRecord::cache_name() const {
  if (recorded_hit) return "recorded-hit";
  if (recorded_failure) return "recorded-failure";
  return CacheDispositionName(cache);
}

void FillRequestRecord(const UrlRequest& r, bool with_headers, RequestRecord* record) {
  RequestRecord& rec = *record;
  rec.url.assign(r.original_url().spec());
  rec.final_url.assign(r.url().spec());
  rec.method.assign(r.original_method());
  rec.redirects.assign(r.redirect_chain().begin(), r.redirect_chain().end());
  rec.error = r.error();
  rec.error_message.assign(r.error_message());
  rec.headers.reset();
  if (const auto& headers = r.response_headers()) {
    rec.status = headers->response_code();
    rec.status_text.assign(headers->reason());
    if (with_headers) rec.headers = headers->ToJson();
  } else {
    rec.status = 0;
    rec.status_text.clear();
  }
  rec.body_bytes = r.decoded_body_bytes();
  rec.transfer_bytes = r.encoded_body_bytes();
  rec.cache = r.cache_disposition();
  rec.recorded_hit = false;
  rec.recorded_failure = false;
  rec.start = r.start_time();
  rec.end = r.end_time();
  rec.phases = r.load_timing_phases();
  rec.connection = r.connection_info();
}

void ClearRequestRecord(RequestRecord* record) {
  RequestRecord& rec = *record;
  rec.final_url.assign(rec.url);
  rec.redirects.clear();
  rec.error = OK;
  rec.error_message.clear();
  rec.status = 0;
  rec.status_text.clear();
  rec.headers.reset();
  rec.body_bytes = rec.transfer_bytes = 0;
  rec.cache = CacheDisposition::kBypass;
  rec.recorded_hit = false;
  rec.recorded_failure = false;
  rec.start = rec.end = TimeTicks{};
  rec.phases = LoadTimingPhases();
  rec.connection.socket_id = 0;
  rec.connection.socket_source = SocketSource::kNone;
  rec.connection.peer_address.clear();
  rec.connection.tls_version.clear();
  rec.connection.tls_resumed = false;
  rec.connection.dns_from_cache = false;
  rec.connection.dns_stale = false;
  rec.connection.protocol.clear();
  rec.connection.h2_session_id = 0;
  rec.connection.h2_stream_id = 0;
}

}  // namespace netstack
