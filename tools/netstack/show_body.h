// `netstack cache show`'s body output, in bounded memory: the body arrives in pieces (read from
// the cache, possibly decoded), text or hex is decided from its first 64 KiB, and at most
// `max_bytes` are shown, followed by a truncation note (docs/cache.md).
#ifndef TOOLS_NETSTACK_SHOW_BODY_H_
#define TOOLS_NETSTACK_SHOW_BODY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "tools/netstack/terminal_text.h"

namespace netstack {

class ShowBodyPrinter {
 public:
  // How much of the body is looked at to decide between text and hex.
  static constexpr size_t kSniffBytes = 64 * 1024;

  using Sink = std::function<void(std::string_view)>;

  // `force_hex`: --hex. `max_bytes`: show at most this many bytes (0: no limit). `size_label`:
  // the body's size for the "body:" line ("" if unknown until the end). `note`: said in
  // parentheses on that line ("" for none). Output goes to `sink`, in order.
  ShowBodyPrinter(bool force_hex, int64_t max_bytes, std::string size_label, std::string note,
                  Sink sink);

  // The next piece of the body as shown (already decoded). Past max_bytes it is only counted.
  void Write(std::string_view data);
  // True once max_bytes have been shown: further Writes only count.
  bool full() const { return max_bytes_ > 0 && shown_ >= max_bytes_; }
  // Bytes written so far (shown or not).
  int64_t seen() const { return seen_; }

  // The body ended, or the caller stopped reading it. `total` is its full size (at least what
  // was written; `total_at_least` if only a lower bound is known). Prints the "body:" line if
  // not yet printed, what is held, a final newline after text, and "(truncated: N of M bytes
  // shown)" if not all was shown.
  void Finish(int64_t total, bool total_at_least = false);

 private:
  void Decide(bool complete);
  void Emit(std::string_view data);

  const bool force_hex_;
  const int64_t max_bytes_;
  const std::string size_label_;
  const std::string note_;
  const Sink sink_;
  bool decided_ = false;
  bool text_ = false;
  // Before the decision: up to kSniffBytes. After it, in hex mode: less than a 16-byte line
  // plus the last piece.
  std::string pending_;
  TerminalTextStream text_stream_;
  char last_ = '\n';        // the last byte shown as text
  int64_t hex_offset_ = 0;  // of pending_'s first byte
  int64_t shown_ = 0;
  int64_t seen_ = 0;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_SHOW_BODY_H_
