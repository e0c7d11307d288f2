// The one JSON writer of a RequestRecord (request_record.h): `fetch --json` lines,
// `fetch --page --json` request lines (and the internals fetch box's), and `replay --json`
// request lines are this object. The schema, field by field: docs/request-record.md.
//
// The object is written as text directly (AppendRequestRecordJson), not built as a
// nlohmann::json tree and dumped: that was ~90k instructions a replay request, most of a
// `replay --json` run's output cost. The text is the bytes nlohmann's dump() writes for the
// same object (keys sorted, numbers and strings as it prints them), so a consumer that wants a
// tree parses it (RequestRecordToJson) and dumping that tree gives the same line back.
#ifndef NET_HTTP_REQUEST_RECORD_JSON_H_
#define NET_HTTP_REQUEST_RECORD_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "net/http/request_record.h"

namespace netstack {

// How numbers of milliseconds are written. kRounded: to the microsecond (RoundMsForJson), what
// every output shows. kExact: the shortest text that reads back as the same double (nlohmann's
// dump()), so a reader rebuilds the figures bit for bit (`replay --shard`'s files, read by
// `netstack merge`: docs/replay.md, "Shards and merge").
enum class JsonNumbers { kRounded, kExact };

// Appends `record` as one JSON object (no newline) to `out`:
// {url, final_url, method, status, status_text, [headers], bytes (= body_bytes), body_bytes,
//  transfer_bytes, error (the message or null), error_code (the net error's name or null),
//  timing {queued_ms, dns_ms, connect_ms, tls_ms, send_ms, ttfb_ms, receive_ms, total_ms},
//  socket {id, reused, source (null: no socket), address, tls_version, tls_resumed},
//  dns {from_cache, stale}, redirects, cache, [speculative],
//  [kind: "request", type, priority, start_ms, end_ms] (with a placement),
//  [page, entry, host] (a replay entry),
//  [model {request_ms, server_ms, response_ms, recorded {start_ms, end_ms}}]}
// Bracketed members are written only when the record has that part. Text that is not valid
// UTF-8 is written with U+FFFD in its place (nlohmann's error_handler_t::replace). With
// kExact, a replay entry's record also has "parent" (ReplayEntryRef::parent), and only -1 is
// written as null where "unknown" is null.
void AppendRequestRecordJson(const RequestRecord& record, std::string* out,
                             JsonNumbers numbers = JsonNumbers::kRounded);

// Rebuilds a record from its object as AppendRequestRecordJson wrote it (exact or rounded), so
// that writing it again gives the same line, and every figure an output reads (phases,
// start_ms(), end_ms(), total_ms(), socket, cache, error, placement, entry, model) is the one
// written. The times are rebuilt on an arbitrary origin (only their differences are kept).
// Never throws: false with `error` naming the first bad member ("timing.dns_ms: not a
// number"); `record` is then unspecified.
bool RequestRecordFromJson(const nlohmann::json& object, RequestRecord* record, std::string* error);

// The same object as a tree (AppendRequestRecordJson's text, parsed), for consumers that keep
// it or add to it (the fetch box's history, replay's labelled --compare lines, tests).
nlohmann::json RequestRecordToJson(const RequestRecord& record);

}  // namespace netstack

#endif  // NET_HTTP_REQUEST_RECORD_JSON_H_
