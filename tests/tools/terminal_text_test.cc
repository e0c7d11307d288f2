// The escaper every human output of `netstack` prints server-supplied text through, and the
// streaming body printer of `cache show`.
#include "tools/netstack/terminal_text.h"

#include <catch2/catch.hpp>
#include <string>

#include "tools/netstack/show_body.h"

using namespace netstack;

TEST_CASE("terminal text: C0, DEL and C1 controls are escaped, UTF-8 text is not") {
  CHECK(TerminalSafe("plain text\twith tab") == "plain text\twith tab");
  CHECK(TerminalSafe("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") ==
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  CHECK(TerminalSafe("a\x1b[31mb") == "a\\x1b[31mb");
  CHECK(TerminalSafe(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(TerminalSafe("a\r\nb") == "a\\x0d\\x0ab");
  CHECK(TerminalSafe("\x7f") == "\\x7f");
  CHECK(TerminalSafe("x\xc2\x9b"
                     "2J") == "x\\u009b2J");                                    // UTF-8 CSI
  CHECK(TerminalSafe("\xc2\x80\xc2\x9f\xc2\xa0") == "\\u0080\\u009f\xc2\xa0");  // NBSP is text
  CHECK(TerminalSafe("\x9b"
                     "2J") == "\\x9b2J");  // a raw C1 byte
  CHECK(TerminalSafe("\xff\xfe") == "\\xff\\xfe");
  CHECK(TerminalSafe("\xc0\xaf") == "\\xc0\\xaf");           // overlong
  CHECK(TerminalSafe("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // surrogate
  CHECK(TerminalSafe("ab\xe2\x82") == "ab\\xe2\\x82");       // cut at the end
  CHECK(TerminalSafe("") == "");
}

TEST_CASE("terminal text: lines mode keeps LF and CRLF, escapes a bare CR") {
  std::string out;
  CHECK(AppendTerminalText("a\nb\r\nc\rd\x1b", TerminalTextMode::kLines, true, &out) == 9);
  CHECK(out == "a\nb\r\nc\\x0dd\\x1b");
  // Not at the end: a CR or a cut sequence waits for the next piece.
  out.clear();
  CHECK(AppendTerminalText("ab\r", TerminalTextMode::kLines, false, &out) == 2);
  CHECK(out == "ab");
  out.clear();
  CHECK(AppendTerminalText("ab\xe2\x82", TerminalTextMode::kLines, false, &out) == 2);
  CHECK(out == "ab");
}

TEST_CASE("terminal text: IsPrintableText") {
  CHECK(IsPrintableText(""));
  CHECK(IsPrintableText("hello\r\n\tworld\n"));
  CHECK_FALSE(IsPrintableText("progress\rbar"));  // a bare CR rewrites the line
  CHECK_FALSE(IsPrintableText("end\r"));
  CHECK(IsPrintableText("end\r", /*complete=*/false));  // the LF may follow
  CHECK_FALSE(IsPrintableText("\xc3"));
  CHECK(IsPrintableText("\xc3", /*complete=*/false));
  CHECK_FALSE(IsPrintableText("\x1b[31m"));
  CHECK_FALSE(IsPrintableText("\xc2\x85"));
  CHECK_FALSE(IsPrintableText("\x89PNG\r\n"));
}

TEST_CASE("terminal text: a stream judges units split between pieces whole") {
  const std::string text = "a\r\nb\xe2\x82\xac c\x1b d\xc2\x9b e\rf\xf0\x9f\x98\x80";
  std::string whole;
  AppendTerminalText(text, TerminalTextMode::kLines, true, &whole);
  CHECK(whole == "a\r\nb\xe2\x82\xac c\\x1b d\\u009b e\\x0df\xf0\x9f\x98\x80");
  // Every split into pieces of 1, 2 and 3 bytes gives the same output.
  for (size_t step = 1; step <= 3; ++step) {
    TerminalTextStream stream;
    std::string out;
    for (size_t i = 0; i < text.size(); i += step) out += stream.Write(text.substr(i, step));
    out += stream.Finish();
    INFO("step " << step);
    CHECK(out == whole);
  }
}

namespace {

std::string Print(bool hex, int64_t max, const std::string& body, size_t piece) {
  std::string out;
  ShowBodyPrinter p(hex, max, std::to_string(body.size()) + " B", "",
                    [&out](std::string_view s) { out.append(s); });
  for (size_t i = 0; i < body.size(); i += piece) p.Write(std::string_view(body).substr(i, piece));
  p.Finish(static_cast<int64_t>(body.size()));
  return out;
}

}  // namespace

TEST_CASE("show body: text, hex, truncation, and escapes past the sniffed start") {
  CHECK(Print(false, 0, "hi\n", 1) == "body:           3 B text\n\nhi\n");
  CHECK(Print(false, 0, "hi", 1) == "body:           2 B text\n\nhi\n");
  CHECK(Print(false, 0, "\x01\x02", 1) ==
        "body:           2 B hex\n\n00000000: 01 02" + std::string(45, ' ') + "..\n");
  // Truncated.
  CHECK(Print(false, 4, "abcdefgh", 3) ==
        "body:           8 B text\n\nabcd\n(truncated: 4 of 8 bytes shown)\n");
  // Hex offsets continue across pieces.
  std::string bin(40, '\x01');
  std::string dump = Print(true, 0, bin, 7);
  CHECK(dump.find("00000010: ") != std::string::npos);
  CHECK(dump.find("00000020: ") != std::string::npos);
  // Text decided from the first 64 KiB: an ESC later on is still escaped.
  std::string body(ShowBodyPrinter::kSniffBytes, 'a');
  body += "\x1b[2J\xc2\x9b";
  std::string out = Print(false, 0, body, 1000);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find("\xc2\x9b") == std::string::npos);
  CHECK(out.find("\\x1b[2J\\u009b\n") != std::string::npos);
}

TEST_CASE("terminal text: EchoInput bounds what a message repeats of its input") {
  CHECK(EchoInput("short") == "short");
  CHECK(EchoInput(std::string(200'000, 'a')) == std::string(64, 'a') + "...");
  CHECK(EchoInput("abcdef", 3) == "abc...");
  // The cut does not split a character: "é" is two bytes, the cut at 2 falls inside it.
  CHECK(EchoInput("a\xc3\xa9z", 2) == "a...");
  // Escaped after the cut, so the bound is on input bytes.
  CHECK(EchoInput("\x9b\x1b[2J", 64) == "\\x9b\\x1b[2J");
}
