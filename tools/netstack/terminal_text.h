// Text from stored data or the network, made safe to print to a terminal. A cached response's
// status line, headers and body, a URL or a reason phrase come from whoever served them; printed
// raw, an ESC (0x1b) or a C1 control (U+009B is CSI) lets a server drive the user's terminal:
// rewrite earlier output, set the window title, or worse. Every human-readable output of the
// `netstack` tool passes such strings through here (JSON outputs are escaped by the JSON writer).
#ifndef TOOLS_NETSTACK_TERMINAL_TEXT_H_
#define TOOLS_NETSTACK_TERMINAL_TEXT_H_

#include <string>
#include <string_view>

namespace netstack {

enum class TerminalTextMode {
  // One line: every C0 control but tab is escaped, CR and LF included.
  kOneLine,
  // Text with lines (a body): tab, LF and CR immediately followed by LF pass through.
  kLines,
};

// Appends `text` to *out with everything a terminal could interpret escaped: C0 controls (but
// those `mode` allows) and DEL as \xNN; UTF-8-encoded C1 controls (U+0080..U+009F) as \u00NN;
// and each byte not part of valid UTF-8 (raw 0x80..0xff, overlongs, surrogates, cut sequences)
// as \xNN. Backslashes are not escaped: the output is for eyes, not for parsing. With
// `at_end` false, an incomplete UTF-8 sequence or a CR at the end of `text` may be the start of
// something the next piece completes: it is left unconsumed. Returns the bytes consumed.
size_t AppendTerminalText(std::string_view text, TerminalTextMode mode, bool at_end,
                          std::string* out);

// `text` escaped as one line (kOneLine, the whole text).
std::string TerminalSafe(std::string_view text);

// Input as an error message echoes it: at most `max_bytes` of `text` (cut before a UTF-8
// sequence the cut would split, then "..."), escaped as one line (TerminalSafe). Bounds what a
// message can repeat of a 200 KB argument or line.
std::string EchoInput(std::string_view text, size_t max_bytes = 64);

// True if `text` would print unchanged in kLines mode: valid UTF-8 without controls other than
// tab, LF and CRLF. With `complete` false (`text` is a prefix of something longer), a cut UTF-8
// sequence or CR at its end does not count against it.
bool IsPrintableText(std::string_view text, bool complete = true);

// Escapes a body that arrives in pieces, kLines mode: a UTF-8 sequence or CRLF split between
// two pieces is judged whole. Holds at most 3 bytes between calls.
class TerminalTextStream {
 public:
  // The escaped form of what can be judged so far of `piece` (after what earlier calls held).
  std::string Write(std::string_view piece);
  // The escaped form of whatever is still held (the text ended).
  std::string Finish();

 private:
  std::string held_;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_TERMINAL_TEXT_H_
