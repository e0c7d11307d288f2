#include "tools/netstack/show_body.h"

#include <algorithm>

#include "tools/netstack/cache_display.h"

namespace netstack {

ShowBodyPrinter::ShowBodyPrinter(bool force_hex, int64_t max_bytes, std::string size_label,
                                 std::string note, Sink sink)
    : force_hex_(force_hex),
      max_bytes_(max_bytes),
      size_label_(std::move(size_label)),
      note_(std::move(note)),
      sink_(std::move(sink)) {}

void ShowBodyPrinter::Write(std::string_view data) {
  seen_ += static_cast<int64_t>(data.size());
  if (max_bytes_ > 0) {
    int64_t room = std::max<int64_t>(max_bytes_ - shown_, 0);
    if (static_cast<int64_t>(data.size()) > room) data = data.substr(0, static_cast<size_t>(room));
  }
  shown_ += static_cast<int64_t>(data.size());
  if (!decided_) {
    size_t take = std::min(data.size(), kSniffBytes - pending_.size());
    pending_.append(data.data(), take);
    data.remove_prefix(take);
    if (pending_.size() < kSniffBytes) return;
    Decide(/*complete=*/false);
  }
  Emit(data);
}

void ShowBodyPrinter::Decide(bool complete) {
  decided_ = true;
  text_ = !force_hex_ && IsPrintableText(pending_, complete);
  std::string line = "body:           ";
  if (!size_label_.empty()) line += size_label_ + " ";
  line += text_ ? "text" : "hex";
  if (!note_.empty()) line += " (" + TerminalSafe(note_) + ")";
  line += "\n\n";
  sink_(line);
  std::string sniffed;
  sniffed.swap(pending_);
  Emit(sniffed);
}

void ShowBodyPrinter::Emit(std::string_view data) {
  if (data.empty()) return;
  if (text_) {
    // Text was decided from the start of the body; what follows is escaped all the same, so a
    // control sequence further on cannot reach the terminal.
    sink_(text_stream_.Write(data));
    last_ = data.back();
    return;
  }
  pending_.append(data.data(), data.size());
  size_t whole = pending_.size() / 16 * 16;
  if (whole == 0) return;
  sink_(HexDump(std::string_view(pending_).substr(0, whole), hex_offset_));
  hex_offset_ += static_cast<int64_t>(whole);
  pending_.erase(0, whole);
}

void ShowBodyPrinter::Finish(int64_t total, bool total_at_least) {
  total = std::max(total, seen_);
  bool truncated = total_at_least || total > shown_;
  if (!decided_) Decide(/*complete=*/!truncated);
  if (text_) {
    std::string rest = text_stream_.Finish();
    sink_(rest);
    if (shown_ > 0 && last_ != '\n') sink_("\n");
  } else if (!pending_.empty()) {
    sink_(HexDump(pending_, hex_offset_));
    pending_.clear();
  }
  if (truncated) {
    sink_("(truncated: " + std::to_string(shown_) + " of " + (total_at_least ? "over " : "") +
          std::to_string(total) + " bytes shown)\n");
  }
}

}  // namespace netstack
