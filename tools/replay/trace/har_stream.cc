#include "tools/replay/trace/har_stream.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <utility>

#include "tools/replay/trace/trace_file.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

namespace {

using Json = nlohmann::json;
using Event = Json::parse_event_t;

// Thrown by the parser callback to stop at nesting deeper than kMaxJsonDepth.
struct TooDeep {};

// The parser callback: follows where the parser is (which member of which container), reads
// each element of log.entries as soon as it is complete and drops it, and drops members no
// reader uses. nlohmann's callback gives each event's depth; containers whose end is not
// reported (those being dropped) are popped by the next event's depth.
class EntryReader {
 public:
  EntryReader(size_t max_entries, HarStream* out) : max_entries_(max_entries), out_(out) {}

  bool operator()(int depth, Event event, Json& parsed) {
    size_t d = static_cast<size_t>(depth);
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (d + 1 > static_cast<size_t>(kMaxJsonDepth)) throw TooDeep();
        frames_.resize(d);
        frames_.push_back({event == Event::object_start, {}});
        if (event == Event::array_start && d == 2 && IsEntriesMember()) StartEntries();
        return true;
      case Event::key:
        frames_.resize(d);
        if (d == 0 || !frames_.back().object) return true;
        frames_.back().key = parsed.get_ref<const std::string&>();
        if (d == 1 && frames_.back().key == "log") StartEntries();  // the last "log" wins
        return Keep(d);
      case Event::object_end:
      case Event::array_end:
        frames_.resize(d);
        return !IsEntry(d) || TakeEntry(parsed);
      case Event::value:
        frames_.resize(d);
        return !IsEntry(d) || TakeEntry(parsed);
      default:
        return true;
    }
  }

 private:
  struct Frame {
    bool object = false;
    std::string key;  // an object's member being parsed
  };

  // frames_[0..1] are the root and log objects, at the member "entries".
  bool IsEntriesMember() const {
    return frames_.size() >= 2 && frames_[0].object && frames_[0].key == "log" &&
           frames_[1].object && frames_[1].key == "entries";
  }
  // A value at `depth` is an element of log.entries.
  bool IsEntry(size_t depth) const {
    return depth == 3 && frames_.size() == 3 && !frames_[2].object && IsEntriesMember();
  }

  // Whether to keep the member frames_.back().key of the object at `depth` - 1. Inside an
  // entry (depth 4 is the entry's own members): bodies, cookies and query strings are never
  // read (request.postData.text is: its length is the body size when bodySize is absent).
  bool Keep(size_t depth) const {
    if (depth < 5 || frames_.size() < 4 || !IsEntriesMember() || frames_[2].object) return true;
    const std::string& key = frames_.back().key;
    const std::string& parent = frames_[depth - 2].key;
    if (depth == 5) return !(key == "cookies" || key == "queryString");
    if (depth == 6 && frames_[3].key == "response" && parent == "content") return key != "text";
    return true;
  }

  void StartEntries() {
    out_->entry_count = 0;
    out_->entries.clear();
    out_->skipped.clear();
    out_->entry_error.clear();
  }

  // Reads one element of log.entries; returns false so the parser drops it.
  bool TakeEntry(const Json& value) {
    size_t index = out_->entry_count++;
    if (!out_->entry_error.empty() || index >= max_entries_) return false;
    HarReadEntry read;
    read.file_index = index;
    std::string path = "log.entries[" + std::to_string(index) + "]";
    std::string problem;
    HarEntryStatus status = ReadHarEntry(value, path, &read.entry, &read.extras, &problem);
    if (status == HarEntryStatus::kError) {
      out_->entry_error = std::move(problem);
    } else if (status == HarEntryStatus::kSkipped) {
      HarSkippedEntry skipped;
      skipped.file_index = index;
      skipped.pageref = std::move(read.extras.pageref);
      skipped.start_epoch_ms = read.extras.start_epoch_ms;
      skipped.reason = read.extras.skip_reason;
      skipped.detail = std::move(read.extras.skip_detail);
      out_->skipped.push_back(std::move(skipped));
    } else {
      out_->entries.push_back(std::move(read));
    }
    return false;
  }

  size_t max_entries_;
  HarStream* out_;
  std::vector<Frame> frames_;
};

// Parses the bytes [begin, end) with an EntryReader; `locate` turns a byte offset into the
// syntax error's line and column.
template <typename Iterator, typename Locate>
bool Parse(Iterator begin, Iterator end, size_t max_entries, HarStream* out,
           JsonSyntaxError* syntax, Locate locate) {
  *out = HarStream();
  EntryReader reader(max_entries, out);
  try {
    out->doc = Json::parse(std::move(begin), std::move(end), std::ref(reader));
    return true;
  } catch (const TooDeep&) {
    syntax->line = 1;
    syntax->column = 1;
    syntax->message = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
  } catch (const Json::parse_error& e) {
    // e.byte counts the bytes read, the offending one included.
    locate(e.byte > 0 ? e.byte - 1 : 0, &syntax->line, &syntax->column);
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 5: <message>".
    std::string what = e.what();
    size_t at = what.find("column ");
    size_t colon = what.find(": ", at == std::string::npos ? 0 : at);
    syntax->message = colon == std::string::npos ? what : what.substr(colon + 2);
  } catch (const std::exception& e) {
    // Another of nlohmann's errors (out_of_range.406: "number overflow parsing '1e400'"): it
    // does not say where, so no line and column are given.
    syntax->line = 0;
    syntax->column = 0;
    std::string what = e.what();
    size_t bracket = what.find("] ");
    syntax->message =
        what[0] == '[' && bracket != std::string::npos ? what.substr(bracket + 2) : what;
  }
  out->doc = Json();
  out->entries.clear();
  out->skipped.clear();
  return false;
}

// A file's bytes in blocks, as an input iterator for nlohmann's parser. Stops (as at the end
// of the file) on a read error or past `max_bytes`, recording the problem, and skips a leading
// byte order mark.
class FileBytes {
 public:
  FileBytes(int fd, uint64_t max_bytes) : fd_(fd), max_bytes_(max_bytes) {
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (Fill() && std::string_view(buffer_, 3) == kBom.substr(0, end_)) at_ = 3;
  }

  // True at the end of the bytes (reading more if the block is used up).
  bool AtEnd() { return at_ >= end_ && !Fill(); }
  char Current() const { return buffer_[at_]; }
  void Advance() { ++at_; }
  const std::string& problem() const { return problem_; }

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = char;

    explicit Iterator(FileBytes* bytes = nullptr) : bytes_(bytes) {}
    char operator*() const { return bytes_->Current(); }
    Iterator& operator++() {
      bytes_->Advance();
      return *this;
    }
    // Only comparison with the end iterator is meaningful (a single-pass input iterator).
    bool operator==(const Iterator& other) const { return Done() == other.Done(); }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    bool Done() const { return !bytes_ || bytes_->AtEnd(); }
    FileBytes* bytes_;
  };

 private:
  // Reads the next block; false at the end, on an error, or past the limit.
  bool Fill() {
    if (!problem_.empty()) return false;
    while (true) {
      ssize_t n = ::read(fd_, buffer_, sizeof(buffer_));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        problem_ = std::string("cannot read: ") + std::strerror(errno);
        return false;
      }
      at_ = 0;
      end_ = static_cast<size_t>(n);
      total_ += static_cast<uint64_t>(n);
      if (total_ > max_bytes_) {  // the file grew while being read
        problem_ = "larger than the limit of " + FormatByteLimit(max_bytes_);
        end_ = 0;
        return false;
      }
      return n > 0;
    }
  }

  int fd_;
  uint64_t max_bytes_;
  uint64_t total_ = 0;
  char buffer_[1 << 16];
  size_t at_ = 0, end_ = 0;
  std::string problem_;
};

// Line and column of byte `offset` of the file (the byte order mark not counted), read again.
void FileLineAndColumn(const std::string& path, size_t offset, int* line, int* column) {
  *line = 1;
  *column = 1;
  uint64_t size = 0;
  std::string ignored;
  int fd = OpenTraceFile(path, UINT64_MAX, &size, &ignored);
  if (fd < 0) return;
  FileBytes bytes(fd, UINT64_MAX);
  size_t column0 = 0;
  for (size_t i = 0; i < offset && !bytes.AtEnd(); ++i, bytes.Advance()) {
    if (bytes.Current() == '\n') {
      ++*line;
      column0 = 0;
    } else {
      ++column0;
    }
  }
  *column = static_cast<int>(column0) + 1;
  ::close(fd);
}

}  // namespace

bool StreamHarText(std::string_view text, size_t max_entries, HarStream* out,
                   JsonSyntaxError* syntax) {
  return Parse(
      text.begin(), text.end(), max_entries, out, syntax,
      [text](size_t offset, int* line, int* column) { LineAndColumn(text, offset, line, column); });
}

bool StreamHarFile(const std::string& path, uint64_t max_bytes, size_t max_entries, HarStream* out,
                   JsonSyntaxError* syntax, std::string* file_problem) {
  file_problem->clear();
  uint64_t size = 0;
  int fd = OpenTraceFile(path, max_bytes, &size, file_problem);
  if (fd < 0) return false;
  auto bytes = std::make_unique<FileBytes>(fd, max_bytes);
  bool ok = Parse(FileBytes::Iterator(bytes.get()), FileBytes::Iterator(), max_entries, out, syntax,
                  [&path](size_t offset, int* line, int* column) {
                    FileLineAndColumn(path, offset, line, column);
                  });
  ::close(fd);
  if (!bytes->problem().empty()) {
    *file_problem = bytes->problem();
    return false;
  }
  return ok;
}

}  // namespace netstack
