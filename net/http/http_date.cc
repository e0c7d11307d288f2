#include "net/http/http_date.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "net/http/http_util.h"

namespace netstack {
namespace {

constexpr std::string_view kShortDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::string_view kLongDays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                          "Thursday", "Friday", "Saturday"};
constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// Days since 1970-01-01 of a proleptic Gregorian date (month 1..12), by shifting the year to
// start in March so the leap day is last.
int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

// The inverse of DaysFromCivil.
void CivilFromDays(int64_t days, int64_t* year, int* month, int* day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t day_of_era = days - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t mp = (5 * day_of_year + 2) / 153;
  *day = static_cast<int>(day_of_year - (153 * mp + 2) / 5 + 1);
  *month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *year = year_of_era + era * 400 + (*month <= 2 ? 1 : 0);
}

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// A cursor over the date text; every Take* consumes on success only.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}

  bool done() const { return s_.empty(); }

  bool TakeChar(char c) {
    if (s_.empty() || s_[0] != c) return false;
    s_.remove_prefix(1);
    return true;
  }

  // Exactly `n` digits.
  bool TakeDigits(size_t n, int* value) {
    if (s_.size() < n) return false;
    int v = 0;
    for (size_t i = 0; i < n; ++i) {
      if (s_[i] < '0' || s_[i] > '9') return false;
      v = v * 10 + (s_[i] - '0');
    }
    s_.remove_prefix(n);
    *value = v;
    return true;
  }

  // One of `names` (exactly: HTTP-date is case-sensitive, RFC 9110 5.6.7), followed by something
  // that is not a letter; *index is its position.
  template <size_t N>
  bool TakeName(const std::string_view (&names)[N], size_t* index) {
    size_t len = 0;
    while (len < s_.size() &&
           ((s_[len] >= 'a' && s_[len] <= 'z') || (s_[len] >= 'A' && s_[len] <= 'Z'))) {
      ++len;
    }
    for (size_t i = 0; i < N; ++i) {
      if (s_.substr(0, len) == names[i]) {
        s_.remove_prefix(len);
        *index = i;
        return true;
      }
    }
    return false;
  }

  // "GMT", the only zone an HTTP-date has ("UTC", "+0000" or "gmt" make it invalid).
  bool TakeZone() {
    if (s_.substr(0, 3) != "GMT") return false;
    s_.remove_prefix(3);
    return true;
  }

  // "HH:MM:SS".
  bool TakeTime(int* h, int* m, int* s) {
    return TakeDigits(2, h) && TakeChar(':') && TakeDigits(2, m) && TakeChar(':') &&
           TakeDigits(2, s);
  }

 private:
  std::string_view s_;
};

bool Assemble(int64_t year, int month, int day, int hour, int minute, int second, Time* out) {
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  const int64_t seconds =
      DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  *out = TimeFromUnixSeconds(seconds);
  return true;
}

// "Sun, 06 Nov 1994 08:49:37 GMT" (after the day name and comma).
bool ParseImfFixdate(Cursor c, Time* out) {
  int day, year, h, m, s;
  size_t month;
  if (!c.TakeChar(' ') || !c.TakeDigits(2, &day) || !c.TakeChar(' ') ||
      !c.TakeName(kMonths, &month) || !c.TakeChar(' ') || !c.TakeDigits(4, &year) ||
      !c.TakeChar(' ') || !c.TakeTime(&h, &m, &s) || !c.TakeChar(' ') || !c.TakeZone() ||
      !c.done()) {
    return false;
  }
  return Assemble(year, static_cast<int>(month) + 1, day, h, m, s, out);
}

// "Sunday, 06-Nov-94 08:49:37 GMT" (after the day name and comma).
bool ParseRfc850(Cursor c, Time* out) {
  int day, yy, h, m, s;
  size_t month;
  if (!c.TakeChar(' ') || !c.TakeDigits(2, &day) || !c.TakeChar('-') ||
      !c.TakeName(kMonths, &month) || !c.TakeChar('-') || !c.TakeDigits(2, &yy) ||
      !c.TakeChar(' ') || !c.TakeTime(&h, &m, &s) || !c.TakeChar(' ') || !c.TakeZone() ||
      !c.done()) {
    return false;
  }
  const int year = yy >= 70 ? 1900 + yy : 2000 + yy;
  return Assemble(year, static_cast<int>(month) + 1, day, h, m, s, out);
}

// "Sun Nov  6 08:49:37 1994" (after the day name).
bool ParseAsctime(Cursor c, Time* out) {
  int day, year, h, m, s;
  size_t month;
  if (!c.TakeChar(' ') || !c.TakeName(kMonths, &month) || !c.TakeChar(' ')) return false;
  // date3 = month SP ( 2DIGIT / ( SP DIGIT ))
  if (c.TakeChar(' ')) {
    if (!c.TakeDigits(1, &day)) return false;
  } else if (!c.TakeDigits(2, &day)) {
    return false;
  }
  if (!c.TakeChar(' ') || !c.TakeTime(&h, &m, &s) || !c.TakeChar(' ') || !c.TakeDigits(4, &year) ||
      !c.done()) {
    return false;
  }
  return Assemble(year, static_cast<int>(month) + 1, day, h, m, s, out);
}

}  // namespace

bool ParseHttpDate(std::string_view text, Time* out) {
  Cursor c(TrimHttpWhitespace(text));
  size_t day_name;
  Cursor after_short = c;
  if (after_short.TakeName(kShortDays, &day_name)) {
    Cursor imf = after_short;
    if (imf.TakeChar(',')) return ParseImfFixdate(imf, out);
    return ParseAsctime(after_short, out);
  }
  if (c.TakeName(kLongDays, &day_name) && c.TakeChar(',')) return ParseRfc850(c, out);
  return false;
}

std::string FormatHttpDate(Time time) {
  int64_t micros = ToUnixMicros(time);
  // Floor division, so a time just before the epoch is 23:59:59 of the previous day.
  int64_t seconds = micros / 1'000'000 - (micros % 1'000'000 < 0 ? 1 : 0);
  int64_t days = seconds / 86400 - (seconds % 86400 < 0 ? 1 : 0);
  int64_t second_of_day = seconds - days * 86400;
  int64_t year;
  int month, day;
  CivilFromDays(days, &year, &month, &day);
  if (year < 0) return "Sat, 01 Jan 0000 00:00:00 GMT";
  if (year > 9999) return "Fri, 31 Dec 9999 23:59:59 GMT";
  // 1970-01-01 was a Thursday (index 4).
  int weekday = static_cast<int>(((days % 7) + 7 + 4) % 7);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                std::string(kShortDays[weekday]).c_str(), day,
                std::string(kMonths[month - 1]).c_str(), static_cast<int>(year),
                static_cast<int>(second_of_day / 3600), static_cast<int>(second_of_day / 60 % 60),
                static_cast<int>(second_of_day % 60));
  return buf;
}

}  // namespace netstack
