// Reads a session file line by line in bounded memory: chunks of 64 KiB, lines of at most a
// given length (a longer line is an error, found before it is buffered whole).
#ifndef TOOLS_REPLAY_TRACE_SESSION_LINE_READER_H_
#define TOOLS_REPLAY_TRACE_SESSION_LINE_READER_H_

#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

namespace netstack {

class SessionLineReader {
 public:
  // Reads `prefix` first (bytes already taken from `in` to sniff the format), then `in`.
  SessionLineReader(std::unique_ptr<std::istream> in, std::string prefix, size_t max_line);

  enum class Result {
    kLine,     // *line is the next line, without its "\n" or "\r\n"
    kEnd,      // no more lines
    kTooLong,  // the next line is longer than max_line
    kError,    // the stream failed
  };
  // The view stays valid until the next call.
  Result Next(std::string_view* line);

  // The number of the line last returned (1-based; the too-long line's number after kTooLong).
  int64_t line_number() const { return line_number_; }

 private:
  std::unique_ptr<std::istream> in_;
  std::string buffer_;
  size_t pos_ = 0;      // start of the unread part of buffer_
  size_t scanned_ = 0;  // buffer_[pos_, scanned_) has no newline
  bool eof_ = false;
  size_t max_line_;
  int64_t line_number_ = 0;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_SESSION_LINE_READER_H_
