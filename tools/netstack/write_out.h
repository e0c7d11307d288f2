// `fetch -w FORMAT` (curl's --write-out): a format with curl's %{variable} names, parsed once
// and rendered after each URL from the values of its finished fetch. The times come from the
// record's phases, the same numbers `--json` prints (docs/fetch.md "-w").
#ifndef TOOLS_NETSTACK_WRITE_OUT_H_
#define TOOLS_NETSTACK_WRITE_OUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/http/request_record.h"

namespace netstack {

// What the variables of one fetch print. Times are seconds from the fetch's start (its first
// hop: with redirects they include the earlier hops), as curl counts them.
struct WriteOutValues {
  int status = 0;  // %{http_code}, %{response_code}: 000 when no response came
  double time_namelookup = 0, time_connect = 0, time_appconnect = 0, time_pretransfer = 0;
  double time_starttransfer = 0, time_total = 0;
  int64_t size_download = 0;  // the body as carried (before content decoding), as curl counts
  int64_t size_header = 0;    // every hop's status line and headers, CRLFs included (curl's sum)
  int64_t size_request = 0;   // the request heads sent, every hop's
  int64_t size_upload = 0;    // the body the last hop sent (0 once a 303 made it a GET)
  int num_connects = 0;       // new connections the last hop opened (0 or 1)
  int num_redirects = 0;
  std::string url;            // the URL as given
  std::string url_effective;  // the last hop's URL
  std::string content_type;   // the final response's Content-Type ("" when none)
  std::string remote_ip;      // the last hop's peer ("" for a cache hit)
  int remote_port = 0;
  std::string http_version;  // "1.1", "2", "1.0" ("0" when no response came)
  std::string scheme;        // the effective URL's, upper-case as curl prints it ("HTTPS")
  std::string method;
  std::string errormsg;        // the error's one line ("" on success)
  std::string cache;           // netstack's: hit, miss, revalidated, stale or bypass
  bool socket_reused = false;  // netstack's: the last hop's socket carried an earlier request
};

// The values of `record` (times, sizes, URL, peer, method, cache, socket) with what the record
// does not hold given by the caller: the response's Content-Type, the heads' bytes (every hop's),
// its HTTP version and the request heads' bytes.
WriteOutValues WriteOutValuesFromRecord(const RequestRecord& record,
                                        const std::string& content_type, int64_t header_bytes,
                                        const std::string& http_version, int64_t request_bytes,
                                        int64_t upload_bytes);

class WriteOutFormat {
 public:
  // Parses `format`: %{name} variables, %% for '%', the escapes \n \r \t (any other backslash
  // is kept as typed, as curl does); text outside them as is. A %{name} netstack does not know
  // prints nothing and adds curl's warning ("unknown --write-out variable: 'name'") to
  // `warnings` once per name; a "%{" without its "}" is kept as text. Never fails.
  explicit WriteOutFormat(std::string_view format, std::vector<std::string>* warnings);

  // Appends the format rendered with `values` to `out`.
  void Render(const WriteOutValues& values, std::string* out) const;

  // The variable names netstack knows, in the order docs/fetch.md lists them.
  static const std::vector<std::string>& KnownVariables();

 private:
  struct Piece {
    int variable = -1;  // an index into KnownVariables(), or -1 for `text`
    std::string text;
  };
  std::vector<Piece> pieces_;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_WRITE_OUT_H_
