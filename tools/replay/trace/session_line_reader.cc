#include "tools/replay/trace/session_line_reader.h"

#include <algorithm>

namespace netstack {

namespace {
constexpr size_t kChunk = 64 * 1024;
}  // namespace

SessionLineReader::SessionLineReader(std::unique_ptr<std::istream> in, std::string prefix,
                                     size_t max_line)
    : in_(std::move(in)), buffer_(std::move(prefix)), max_line_(max_line) {}

SessionLineReader::Result SessionLineReader::Next(std::string_view* line) {
  scanned_ = std::max(scanned_, pos_);
  while (true) {
    size_t newline = buffer_.find('\n', scanned_);
    if (newline != std::string::npos) {
      size_t length = newline - pos_;
      ++line_number_;
      if (length > max_line_ + 1) return Result::kTooLong;
      std::string_view found(buffer_.data() + pos_, length);
      if (!found.empty() && found.back() == '\r') found.remove_suffix(1);
      if (found.size() > max_line_) return Result::kTooLong;
      pos_ = newline + 1;
      scanned_ = pos_;
      *line = found;
      return Result::kLine;
    }
    scanned_ = buffer_.size();
    if (buffer_.size() - pos_ > max_line_ + 1) {
      ++line_number_;
      return Result::kTooLong;
    }
    if (eof_) {
      if (pos_ == buffer_.size()) return Result::kEnd;
      // The last line has no newline.
      ++line_number_;
      std::string_view found(buffer_.data() + pos_, buffer_.size() - pos_);
      if (!found.empty() && found.back() == '\r') found.remove_suffix(1);
      if (found.size() > max_line_) return Result::kTooLong;
      pos_ = buffer_.size();
      scanned_ = pos_;
      *line = found;
      return Result::kLine;
    }
    // Drop what was consumed before reading more, so the buffer stays near one line.
    if (pos_ > 0) {
      buffer_.erase(0, pos_);
      scanned_ -= pos_;
      pos_ = 0;
    }
    if (!in_) {
      eof_ = true;
      continue;
    }
    size_t old_size = buffer_.size();
    buffer_.resize(old_size + kChunk);
    in_->read(buffer_.data() + old_size, kChunk);
    std::streamsize got = in_->gcount();
    buffer_.resize(old_size + static_cast<size_t>(std::max<std::streamsize>(got, 0)));
    if (in_->bad()) return Result::kError;
    if (in_->eof() || got == 0) eof_ = true;
  }
}

}  // namespace netstack
