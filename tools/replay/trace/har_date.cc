#include "tools/replay/trace/har_date.h"

#include <cstdint>

namespace netstack {

namespace {

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool AtEnd() const { return pos_ == text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  bool Take(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  // Exactly `count` digits.
  bool Digits(int count, int* out) {
    int value = 0;
    for (int i = 0; i < count; ++i) {
      char c = Peek();
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
      ++pos_;
    }
    *out = value;
    return true;
  }
  // One or more digits after a decimal mark, as a fraction of one (at most 12 counted).
  bool Fraction(double* out) {
    double scale = 0.1, value = 0;
    int count = 0;
    while (Peek() >= '0' && Peek() <= '9') {
      if (count < 12) value += (Peek() - '0') * scale;
      scale /= 10;
      ++count;
      ++pos_;
    }
    *out = value;
    return count > 0;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

bool IsLeapYear(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// Days from 1970-01-01 to year-month-day (proleptic Gregorian), counted directly: whole years,
// then whole months. Years are at most 9999, so the loops are short.
int64_t DaysSinceEpoch(int year, int month, int day) {
  int64_t days = 0;
  for (int y = 1970; y < year; ++y) days += IsLeapYear(y) ? 366 : 365;
  for (int m = 1; m < month; ++m) days += DaysInMonth(year, m);
  return days + day - 1;
}

}  // namespace

bool ParseIso8601(std::string_view text, double* epoch_ms) {
  Cursor cursor(text);
  int year, month, day, hour, minute, second = 0;
  double fraction = 0;
  if (!cursor.Digits(4, &year) || !cursor.Take('-') || !cursor.Digits(2, &month) ||
      !cursor.Take('-') || !cursor.Digits(2, &day)) {
    return false;
  }
  if (!cursor.Take('T') && !cursor.Take('t') && !cursor.Take(' ')) return false;
  if (!cursor.Digits(2, &hour) || !cursor.Take(':') || !cursor.Digits(2, &minute)) return false;
  if (cursor.Take(':')) {
    if (!cursor.Digits(2, &second)) return false;
    if ((cursor.Take('.') || cursor.Take(',')) && !cursor.Fraction(&fraction)) return false;
  }
  int offset_minutes = 0;
  if (cursor.Take('Z') || cursor.Take('z')) {
  } else if (cursor.Peek() == '+' || cursor.Peek() == '-') {
    int sign = cursor.Take('-') ? -1 : (cursor.Take('+'), 1);
    int offset_hours = 0, offset_mins = 0;
    if (!cursor.Digits(2, &offset_hours)) return false;
    if (cursor.Take(':')) {
      if (!cursor.Digits(2, &offset_mins)) return false;
    } else if (!cursor.AtEnd() && !cursor.Digits(2, &offset_mins)) {
      return false;
    }
    if (offset_hours > 23 || offset_mins > 59) return false;
    offset_minutes = sign * (offset_hours * 60 + offset_mins);
  }
  if (!cursor.AtEnd()) return false;
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) ||
      hour > 23 || minute > 59 || second > 60) {
    return false;
  }
  if (second == 60) {  // a leap second: the last instant of the minute before it
    second = 59;
    fraction = 0.999;
  }
  int64_t seconds = DaysSinceEpoch(year, month, day) * 86400 + hour * 3600 + minute * 60 + second -
                    static_cast<int64_t>(offset_minutes) * 60;
  *epoch_ms = static_cast<double>(seconds) * 1000.0 + fraction * 1000.0;
  return true;
}

}  // namespace netstack
