// What `netstack fetch` reports about one URL, and its two renderings: the human line and the
// --json object (the contract in docs/fetch.md).
#ifndef TOOLS_NETSTACK_FETCH_RECORD_H_
#define TOOLS_NETSTACK_FETCH_RECORD_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/page/page_loader.h"

namespace netstack {

struct FetchRecord {
  std::string url;
  std::string final_url;
  std::string method;
  int status = 0;  // 0: no response
  std::string status_text;
  nlohmann::json headers = nlohmann::json::object();
  uint64_t bytes = 0;          // decoded body
  uint64_t encoded_bytes = 0;  // body off the wire, before content decoding
  int error = 0;               // a net error, 0 if none
  std::string error_message;
  // Milliseconds; see docs/fetch.md for what each covers.
  double dns_ms = 0, connect_ms = 0, tls_ms = 0, send_ms = 0, ttfb_ms = 0, receive_ms = 0,
         total_ms = 0;
  uint32_t socket_id = 0;
  bool socket_reused = false;
  std::string socket_address;
  std::string tls_version;  // empty for plain HTTP
  bool tls_resumed = false;
  bool dns_from_cache = false;
  bool dns_stale = false;
  std::vector<std::string> redirects;
  std::string cache = "bypass";  // CacheDispositionName: miss, hit, revalidated, stale, bypass
  // What the predictor had done for the request's origin (Predictor::SpeculativeFor); null
  // when no predictor ran (plain fetches, --predictor off).
  nlohmann::json speculative = nullptr;
};

// The FetchRecord of a finished request, from the record FillRequestRecord (tools/page) made of
// its UrlRequest: the one copy both a plain fetch and a page load's report go through.
// `speculative` is left null.
FetchRecord FetchRecordFromRequest(const PageRequestRecord& request, const std::string& method);
// The same, taking the record's strings, headers and redirects instead of copying them (a plain
// fetch's record is not used afterwards).
FetchRecord FetchRecordFromRequest(PageRequestRecord&& request, const std::string& method);

nlohmann::json FetchRecordToJson(const FetchRecord& record);

// "200 OK  URL  612 B  45.3 ms  [dns 1.2 connect 0.3 tls 0.0 send 0.1 wait 40.1 receive 3.6]
// socket 7 new  cache miss", or "error  URL  message (ERR_NAME)". "socket ..." is left out when
// no socket was used (a cache hit) and "cache ..." when the cache was bypassed.
std::string FetchRecordToLine(const FetchRecord& record);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_FETCH_RECORD_H_
