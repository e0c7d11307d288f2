#include "tools/replay/report/report_text.h"

#include <cmath>
#include <cstdio>

namespace netstack {

namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence at the start of `s`, or 0 when the first byte does not
// start one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t Utf8SequenceLength(std::string_view s) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s.size() < len) return 0;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (size_t i = 2; i < len; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return len;
}

}  // namespace

void AppendHtmlEscaped(std::string_view text, std::string* out) {
  out->reserve(out->size() + text.size());
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      size_t len = Utf8SequenceLength(text.substr(i));
      if (len == 0) {
        out->append(kReplacement);
        ++i;
      } else {
        out->append(text.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '&':
        out->append("&amp;");
        break;
      case '<':
        out->append("&lt;");
        break;
      case '>':
        out->append("&gt;");
        break;
      case '"':
        out->append("&quot;");
        break;
      case '\'':
        out->append("&#39;");
        break;
      case '\t':
      case '\n':
        out->push_back(static_cast<char>(c));
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out->append(kReplacement);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
}

std::string HtmlEscape(std::string_view text) {
  std::string out;
  AppendHtmlEscaped(text, &out);
  return out;
}

std::string TruncateText(std::string_view text, size_t max_chars) {
  if (max_chars == 0) return std::string();
  // Find where code point `max_chars - 1` ends, and whether more follow.
  size_t i = 0, chars = 0, cut = 0;
  while (i < text.size()) {
    size_t len = Utf8SequenceLength(text.substr(i));
    if (len == 0) len = 1;
    if (chars == max_chars - 1) cut = i;
    i += len;
    ++chars;
    if (chars > max_chars) return std::string(text.substr(0, cut)) + "\xE2\x80\xA6";  // …
  }
  return std::string(text);
}

std::string FormatFixed(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  std::string s = buffer;
  if (s == "-0" || s.rfind("-0.", 0) == 0) {
    // "-0.0" for a tiny negative value reads as a sign error; print it unsigned.
    bool all_zero = s.find_first_not_of("-0.") == std::string::npos;
    if (all_zero) s.erase(0, 1);
  }
  return s;
}

std::string FormatCount(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string FormatMs(double ms) {
  if (!std::isfinite(ms)) return "n/a";
  if (std::fabs(ms) >= 10000) return FormatFixed(ms / 1000, 1) + " s";
  if (std::fabs(ms) >= 1000) {
    std::string sign = ms < 0 ? "-" : "";
    return sign + FormatCount(static_cast<uint64_t>(std::llround(std::fabs(ms)))) + " ms";
  }
  if (std::fabs(ms) >= 10) return FormatFixed(ms, 0) + " ms";
  return FormatFixed(ms, 1) + " ms";
}

std::string FormatBytes(int64_t bytes) {
  double b = static_cast<double>(bytes);
  if (bytes < 1000 && bytes > -1000) return std::to_string(bytes) + " B";
  if (std::fabs(b) < 1e6) return FormatFixed(b / 1e3, 1) + " KB";
  if (std::fabs(b) < 1e9) return FormatFixed(b / 1e6, 1) + " MB";
  return FormatFixed(b / 1e9, 2) + " GB";
}

}  // namespace netstack
