#include "tools/netstack/number_flags.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tools/netstack/terminal_text.h"

namespace netstack {
namespace {

std::string Quoted(const std::string& text) { return "'" + EchoInput(text, 32) + "'"; }

std::string CountRange(uint64_t min, uint64_t max) {
  return "(" + FormatFlagCount(min) + " to " + FormatFlagCount(max) + ")";
}

std::string NumberText(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

std::string NumberRange(double min, double max, bool min_exclusive) {
  return min_exclusive ? "(above " + NumberText(min) + ", at most " + NumberText(max) + ")"
                       : "(" + NumberText(min) + " to " + NumberText(max) + ")";
}

}  // namespace

std::string FormatFlagCount(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string CheckCountText(const std::string& text, uint64_t min, uint64_t max,
                           std::string* normalized) {
  bool negative = !text.empty() && text[0] == '-';
  std::string_view digits(text);
  if (negative) digits.remove_prefix(1);
  bool all_digits = !digits.empty() && digits.find_first_not_of("0123456789") == digits.npos;
  if (!all_digits) return Quoted(text) + " is not a whole number " + CountRange(min, max);
  // A negative whole number, or more digits than uint64_t holds, is simply out of range.
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (negative || ec != std::errc() || value < min || value > max) {
    return Quoted(text) + " is out of range " + CountRange(min, max);
  }
  *normalized = std::to_string(value);
  return std::string();
}

std::string CheckNumberText(const std::string& text, double min, double max, bool min_exclusive) {
  const std::string range = NumberRange(min, max, min_exclusive);
  // The syntax is from_chars' (decimal, with a fraction and an exponent; no hex); the value is
  // strtod's, which tells an overflow ("1e400": infinity) from an underflow ("1e-400": 0).
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;  // from_chars takes '-' but not '+'
  double parsed = 0;
  auto [end, ec] = std::from_chars(first, last, parsed, std::chars_format::general);
  if (text.empty() || end != last || (ec != std::errc() && ec != std::errc::result_out_of_range))
    return Quoted(text) + " is not a number " + range;
  double value = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(value)) {
    // "nan" and "inf" parse, but are not numbers a flag can mean; "1e400" is only too large.
    bool digits = text.find_first_of("0123456789") != std::string::npos;
    return Quoted(text) + (digits ? " is out of range " : " is not a finite number ") + range;
  }
  if (value < min || value > max || (min_exclusive && value == min))
    return Quoted(text) + " is out of range " + range;
  return std::string();
}

CLI::Validator CountFlag(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) {
        std::string normalized;
        std::string problem = CheckCountText(text, min, max, &normalized);
        if (problem.empty()) text = normalized;
        return problem;
      },
      "COUNT " + FormatFlagCount(min) + ".." + FormatFlagCount(max));
}

CLI::Validator NumberFlag(double min, double max, bool min_exclusive) {
  return CLI::Validator(
      [min, max, min_exclusive](std::string& text) {
        return CheckNumberText(text, min, max, min_exclusive);
      },
      std::string("NUMBER ") + (min_exclusive ? "above " : "") + NumberText(min) + ".." +
          NumberText(max));
}

}  // namespace netstack
