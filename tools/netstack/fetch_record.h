// What `netstack fetch` prints per URL without --json: the human line of a request's record
// (net/http/request_record.h). The --json object is the record's one writer
// (net/http/request_record_json.h; the contract in docs/request-record.md).
#ifndef TOOLS_NETSTACK_FETCH_RECORD_H_
#define TOOLS_NETSTACK_FETCH_RECORD_H_

#include <string>

#include "net/http/request_record.h"

namespace netstack {

// "200 OK  URL  612 B  45.3 ms  [dns 1.2 connect 0.3 tls 0.0 send 0.1 wait 40.1 receive 3.6]
// socket 7 new  cache miss", or "error  URL  message (ERR_NAME)". The size is the decoded body
// (body_bytes); the socket's word is its SocketSourceName. "socket ..." is left out when no
// socket was used (a cache hit) and "cache ..." when the cache was bypassed. Server-supplied
// text is escaped for the terminal.
std::string FetchRecordToLine(const RequestRecord& record);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_FETCH_RECORD_H_
