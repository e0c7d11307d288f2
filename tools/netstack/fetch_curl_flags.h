// curl's everyday flags on `netstack fetch` (docs/fetch.md "curl's flags"): -X's method token,
// -H lines as curl reads them, repeated names joined, and -A, -e, -u, -w and the output flags
// checked and turned into request headers. Kept apart from fetch_options so each stays one
// concept; ValidateFetchOptions calls ValidateCurlOptions.
#ifndef TOOLS_NETSTACK_FETCH_CURL_FLAGS_H_
#define TOOLS_NETSTACK_FETCH_CURL_FLAGS_H_

#include <string>
#include <utility>
#include <vector>

#include "tools/netstack/fetch_options.h"

namespace netstack {

// Checks -X's METHOD: an RFC 9110 token (tchar+) of at most kMaxMethodLength, not CONNECT (its
// target is an authority, not a URL's path). Returns the method to send: DELETE, GET, HEAD,
// OPTIONS, POST and PUT in any case upper-cased (the Fetch standard's normalization), anything
// else as given (methods are case-sensitive). False with a one-line message naming `text`.
bool NormalizeMethod(const std::string& text, std::string* method, std::string* message);

// Parses one -H line as curl does: "Name: value", or "Name;" for an empty value. False with a
// one-line message for anything else (no colon, a name that is not a token, a line break).
bool ParseHeaderLine(const std::string& line, std::pair<std::string, std::string>* out,
                     std::string* message);

// Adds `name: value` to `headers`: a name already there (any case) gets ", value" appended
// ("; value" for Cookie, RFC 6265 section 5.4) instead of a second entry.
void AddOrJoinHeader(std::vector<std::pair<std::string, std::string>>* headers,
                     const std::string& name, const std::string& value);

// "Basic " + base64(user_pass) (RFC 7617), for -u. `user_pass` is "user:password".
std::string BasicAuthorization(const std::string& user_pass);

// Whether `headers` has `name` (any case).
bool HasRequestHeader(const std::vector<std::pair<std::string, std::string>>& headers,
                      const std::string& name);

// -r's --help line.
inline constexpr char kRangeFlagHelp[] =
    "ask for bytes A-B, A- (to the end) or -N (the last N) as 'Range: bytes=...'; one range only";

// Checks -r's value (ParseByteRangeSpec: A-B, A-, -N; a list is refused, only one range is
// supported). Sets *header to the Range value to send ("bytes=0-1023"). False with a one-line
// message naming -r and the value.
bool ParseRangeFlag(const std::string& text, std::string* header, std::string* message);

// After -H's lines are in o->headers: -A, -e (a URL), -u (user:password) and -r (a byte range)
// become User-Agent, Referer, Authorization and Range unless -H gave them (curl lets -H win);
// -w's format is read (@FILE with its bound, kMaxWriteOutBytes); -w and -i conflict with --json,
// and -w, -i and -v with --page. False with a one-line message naming the flag and the value.
bool ValidateCurlOptions(FetchOptions* o, std::string* message);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_FETCH_CURL_FLAGS_H_
