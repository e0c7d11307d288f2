#include "tools/netstack/terminal_text.h"

#include <cstdint>
#include <cstdio>

namespace netstack {
namespace {

// What the unit starting at text[i] is.
enum class Unit { kPrintable, kNeedMore, kBadByte, kC1 };

// Classifies text[i..]; *len is the unit's length (1 for kBadByte and kNeedMore).
Unit Classify(std::string_view text, size_t i, TerminalTextMode mode, bool at_end, size_t* len) {
  *len = 1;
  unsigned char c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) {
    if (c == '\t') return Unit::kPrintable;
    if (mode == TerminalTextMode::kLines) {
      if (c == '\n') return Unit::kPrintable;
      if (c == '\r') {
        if (i + 1 < text.size()) {
          if (text[i + 1] != '\n') return Unit::kBadByte;
          *len = 2;
          return Unit::kPrintable;
        }
        return at_end ? Unit::kBadByte : Unit::kNeedMore;
      }
    }
    return c < 0x20 || c == 0x7f ? Unit::kBadByte : Unit::kPrintable;
  }
  // UTF-8: the lead byte gives the length; overlongs, surrogates and > U+10FFFF are invalid.
  size_t n;
  uint32_t cp;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return Unit::kBadByte;
  }
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= text.size()) return at_end ? Unit::kBadByte : Unit::kNeedMore;
    unsigned char cc = static_cast<unsigned char>(text[i + k]);
    if ((cc & 0xc0) != 0x80) return Unit::kBadByte;
    cp = (cp << 6) | (cc & 0x3f);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
      (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
    return Unit::kBadByte;
  }
  *len = n;
  return cp < 0xa0 ? Unit::kC1 : Unit::kPrintable;
}

}  // namespace

size_t AppendTerminalText(std::string_view text, TerminalTextMode mode, bool at_end,
                          std::string* out) {
  size_t i = 0;
  size_t clean_start = 0;  // printable bytes are appended in runs, not one by one
  char buf[8];
  while (i < text.size()) {
    size_t len;
    Unit unit = Classify(text, i, mode, at_end, &len);
    if (unit == Unit::kPrintable) {
      i += len;
      continue;
    }
    out->append(text.data() + clean_start, i - clean_start);
    if (unit == Unit::kNeedMore) return i;
    if (unit == Unit::kBadByte) {
      std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(text[i]));
    } else {  // U+0080..U+009F, encoded as C2 80..C2 9F
      std::snprintf(buf, sizeof(buf), "\\u00%02x", static_cast<unsigned char>(text[i + 1]));
    }
    out->append(buf);
    i += len;
    clean_start = i;
  }
  out->append(text.data() + clean_start, i - clean_start);
  return i;
}

std::string TerminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendTerminalText(text, TerminalTextMode::kOneLine, /*at_end=*/true, &out);
  return out;
}

std::string EchoInput(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return TerminalSafe(text);
  size_t cut = max_bytes;
  // Back off continuation bytes (at most 3) so a character is not split.
  for (int k = 0; k < 3 && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80; ++k)
    --cut;
  return TerminalSafe(text.substr(0, cut)) + "...";
}

bool IsPrintableText(std::string_view text, bool complete) {
  size_t i = 0;
  while (i < text.size()) {
    size_t len;
    Unit unit = Classify(text, i, TerminalTextMode::kLines, complete, &len);
    if (unit == Unit::kNeedMore) return true;  // only at the end, and only when !complete
    if (unit != Unit::kPrintable) return false;
    i += len;
  }
  return true;
}

std::string TerminalTextStream::Write(std::string_view piece) {
  std::string out;
  if (!held_.empty()) {
    // The held bytes (at most 3) with enough of `piece` to finish the unit they start.
    std::string joined = held_;
    size_t taken = std::min<size_t>(piece.size(), 4);
    joined.append(piece.data(), taken);
    size_t consumed = AppendTerminalText(joined, TerminalTextMode::kLines, /*at_end=*/false, &out);
    if (consumed < held_.size()) {  // `piece` was too short to decide: all of it is held
      held_ = joined.substr(consumed);
      return out;
    }
    piece.remove_prefix(consumed - held_.size());
    held_.clear();
  }
  size_t consumed = AppendTerminalText(piece, TerminalTextMode::kLines, /*at_end=*/false, &out);
  held_.assign(piece.substr(consumed));
  return out;
}

std::string TerminalTextStream::Finish() {
  std::string out;
  AppendTerminalText(held_, TerminalTextMode::kLines, /*at_end=*/true, &out);
  held_.clear();
  return out;
}

}  // namespace netstack
