#include "net/sim/network_value.h"

#include <algorithm>
#include <cctype>

#include "net/base/ip_address.h"

namespace netstack {

// What a message echoes of a value: at most 64 bytes of it ("..." after a cut), so a 200 KB
// value is not repeated whole. Escaping for the terminal is the printer's (one place for all).
std::string ShownValue(const std::string& text) {
  constexpr size_t kMaxShown = 64;
  if (text.size() <= kMaxShown) return text;
  size_t cut = kMaxShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

// Parses "123" or "123.456" (no exponent) into value * units, rounded to the nearest unit.
// Checks the bounds: a negative number ("-1") is out of range, not malformed. `label` names the
// key in errors (with its host prefix).
bool ParseNetworkNumber(const NetworkNumberKey& key, const std::string& label,
                        const std::string& text, int64_t* out, std::string* error) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::string digits = negative ? text.substr(1) : text;
  size_t dot = digits.find('.');
  std::string whole = digits.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : digits.substr(dot + 1);
  auto all_digits = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  bool ok = !whole.empty() && all_digits(whole) && all_digits(frac) &&
            (dot == std::string::npos || !frac.empty());
  if (!ok) {
    *error = label + ": '" + ShownValue(text) + "' is not a number";
    return false;
  }
  std::string range = key.range ? std::string(" is out of range (") + key.range + ")"
                                : " is out of range (" + std::to_string(key.min) + ".." +
                                      std::to_string(key.max) + ")";
  // Every bound is at least 0: any negative number but zero is below it.
  if (negative && (whole.find_first_not_of('0') != std::string::npos ||
                   frac.find_first_not_of('0') != std::string::npos)) {
    *error = label + ": " + ShownValue(text) + range;
    return false;
  }
  if (key.integer && dot != std::string::npos) {
    *error = label + ": '" + ShownValue(text) + "' is not a whole number";
    return false;
  }
  // Leading zeros carry no value; more digits than the largest bound has is out of range.
  size_t first = whole.find_first_not_of('0');
  whole = first == std::string::npos ? "0" : whole.substr(first);
  if (whole.size() > 12) {
    *error = label + ": " + ShownValue(text) + range;
    return false;
  }
  int64_t value = std::stoll(whole) * key.units;
  // The fraction, to the precision of `units` (a power of ten), rounded half up.
  int64_t scale = key.units;
  int64_t frac_value = 0;
  size_t i = 0;
  for (; i < frac.size() && scale > 1; ++i) {
    scale /= 10;
    frac_value += (frac[i] - '0') * scale;
  }
  if (i < frac.size() && frac[i] >= '5') ++frac_value;
  value += frac_value;
  const int64_t min = key.min_units >= 0 ? key.min_units : key.min * key.units;
  if (value < min || value > key.max * key.units) {
    *error = label + ": " + ShownValue(text) + range;
    return false;
  }
  *out = value;
  return true;
}

bool ParseTlsVersion(const std::string& label, const std::string& text, TlsVersion* out,
                     std::string* error) {
  if (text == "1.2") {
    *out = TlsVersion::kTls12;
  } else if (text == "1.3") {
    *out = TlsVersion::kTls13;
  } else {
    *error = label + ": '" + ShownValue(text) + "' is not 1.2 or 1.3";
    return false;
  }
  return true;
}

// A host name as URLs carry it: letters, digits, '-', '.', '_', or an IPv6 literal (hex digits,
// ':' and '.' in brackets; without them, text IPAddress::Parse takes).
bool IsValidHostName(const std::string& host) {
  if (host.empty() || host.size() > 255) return false;
  auto ipv6_char = [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
  };
  if (host.front() == '[') {
    return host.size() > 2 && host.back() == ']' &&
           std::all_of(host.begin() + 1, host.end() - 1, ipv6_char);
  }
  if (host.find(':') != std::string::npos) return IPAddress::Parse(host).has_value();
  return std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
  });
}

std::string HostKey(const std::string& host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

}  // namespace netstack
