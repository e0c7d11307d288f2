// HTTP dates (RFC 9110 section 5.6.7): the three forms a recipient must accept, and the one a
// sender produces. Used by the cache for Date, Expires, Last-Modified and If-Modified-Since.
// Pure functions, no state, no locale.
#ifndef NET_HTTP_HTTP_DATE_H_
#define NET_HTTP_HTTP_DATE_H_

#include <string>
#include <string_view>

#include "net/base/clock.h"

namespace netstack {

// Parses `text` (surrounding whitespace ignored) in one of:
//   IMF-fixdate  "Sun, 06 Nov 1994 08:49:37 GMT"
//   RFC 850      "Sunday, 06-Nov-94 08:49:37 GMT"   (obsolete)
//   asctime      "Sun Nov  6 08:49:37 1994"         (obsolete; the day may be one digit)
// into *out (UTC). Only these are valid HTTP-dates, and the cache counts nothing else (an
// Expires that is not one means already expired, RFC 9111 5.3): names are case-sensitive as in
// the RFC's grammar ("sun", "NOV" are refused), the zone is "GMT" only ("UTC" is refused), the
// day name is checked to be a day name but not against the date. A two-digit RFC 850 year is 19yy
// when yy >= 70 and 20yy otherwise (NSPR's rule, which Chrome uses; it satisfies RFC 9110's 50-year
// rule until 2020 + 50). A leap second (:60) is accepted. Returns false, leaving *out alone, for
// anything else: invalid day of month (Feb 30), out-of-range fields, trailing garbage, the value
// "0".
bool ParseHttpDate(std::string_view text, Time* out);

// `time` as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), sub-second part dropped
// (rounded down). Years outside 0..9999 are clamped to that range's ends.
std::string FormatHttpDate(Time time);

}  // namespace netstack

#endif  // NET_HTTP_HTTP_DATE_H_
