#include "tools/replay/report/shard_set.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "net/http/request_record_json.h"
#include "tools/replay/report/replay_json_writer.h"

namespace netstack {
namespace {

// Reads a file's lines in bounded memory, with each line's byte offset (for seeking back).
class LineFile {
 public:
  enum class Result { kLine, kEnd, kTooLong, kError };

  explicit LineFile(const std::string& path) : file_(std::fopen(path.c_str(), "rb")) {}
  ~LineFile() {
    if (file_) std::fclose(file_);
  }
  LineFile(const LineFile&) = delete;
  LineFile& operator=(const LineFile&) = delete;

  bool is_open() const { return file_ != nullptr; }
  // Continues at byte `offset`, whose line is number `line_number`.
  bool Seek(int64_t offset, int64_t line_number) {
    buffer_.clear();
    pos_ = 0;
    eof_ = false;
    base_ = offset;
    line_number_ = line_number - 1;
    return std::fseek(file_, offset, SEEK_SET) == 0;
  }
  // The next line without its "\n"; `offset` its first byte's. The view lives until the next
  // call.
  Result Next(std::string_view* line, int64_t* offset) {
    size_t scan = pos_;
    while (true) {
      size_t newline = buffer_.find('\n', scan);
      if (newline != std::string::npos || (eof_ && pos_ < buffer_.size())) {
        size_t end = newline != std::string::npos ? newline : buffer_.size();
        *line = std::string_view(buffer_).substr(pos_, end - pos_);
        *offset = base_ + static_cast<int64_t>(pos_);
        pos_ = newline != std::string::npos ? end + 1 : end;
        ++line_number_;
        return Result::kLine;
      }
      if (eof_) return Result::kEnd;
      if (buffer_.size() - pos_ > ShardSet::kMaxLineBytes) {
        ++line_number_;
        return Result::kTooLong;
      }
      if (pos_ > 0) {
        buffer_.erase(0, pos_);
        base_ += static_cast<int64_t>(pos_);
        pos_ = 0;
      }
      scan = buffer_.size();
      char chunk[1 << 16];
      size_t n = std::fread(chunk, 1, sizeof(chunk), file_);
      if (n == 0) {
        if (std::ferror(file_)) return Result::kError;
        eof_ = true;
      }
      buffer_.append(chunk, n);
    }
  }
  int64_t line_number() const { return line_number_; }

 private:
  FILE* file_;
  std::string buffer_;
  size_t pos_ = 0;
  int64_t base_ = 0;  // the file offset of buffer_[0]
  bool eof_ = false;
  int64_t line_number_ = 0;
};

// 0 (no "run"), 1 ("a") or 2 ("b"); -1 for anything else.
int RunOf(const nlohmann::json& line) {
  auto it = line.find("run");
  if (it == line.end()) return 0;
  if (*it == "a") return 1;
  if (*it == "b") return 2;
  return -1;
}

std::string KindOf(const nlohmann::json& line) {
  auto it = line.find("kind");
  return it != line.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool WholeNumber(const nlohmann::json& object, const char* key, uint64_t* out) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_unsigned()) return false;
  *out = it->get<uint64_t>();
  return true;
}

std::string ShardName(uint64_t index, uint64_t count) {
  return std::to_string(index) + "/" + std::to_string(count);
}

}  // namespace

bool ShardSet::Open(const std::vector<std::string>& paths, std::string* error) {
  if (paths.empty()) {
    *error = "no shard files given";
    return false;
  }
  if (paths.size() > kMaxFiles) {
    *error = "more than " + std::to_string(kMaxFiles) + " shard files";
    return false;
  }
  paths_ = paths;
  for (uint32_t i = 0; i < paths_.size(); ++i) {
    if (!IndexFile(i, error)) return false;
  }
  std::string missing;
  size_t missing_count = 0;
  for (uint64_t i = 0; i < shard_count_; ++i) {
    if (index_file_[i] >= 0) continue;
    if (++missing_count <= 5) missing += (missing.empty() ? "" : ", ") + ShardName(i, shard_count_);
  }
  if (missing_count > 0) {
    *error = (missing_count == 1 ? "shard " : "shards ") + missing +
             (missing_count > 5 ? " and " + std::to_string(missing_count - 5) + " more" : "") +
             " missing";
    return false;
  }
  return true;
}

bool ShardSet::IndexFile(uint32_t file, std::string* error) {
  const std::string& path = paths_[file];
  LineFile in(path);
  if (!in.is_open()) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  struct Found {
    int run;
    uint64_t trace;
    Section section;
    std::string path;
  };
  std::vector<Found> found;
  uint64_t pages_so_far[3] = {0, 0, 0};
  bool open_section = false;
  int open_run = 0;
  Section section;
  nlohmann::json summary;
  std::string_view text;
  int64_t offset = 0;
  auto at = [&] { return path + ":" + std::to_string(in.line_number()) + ": "; };
  while (true) {
    LineFile::Result r = in.Next(&text, &offset);
    if (r == LineFile::Result::kEnd) break;
    if (r == LineFile::Result::kError) {
      *error = path + ": cannot read: " + std::strerror(errno);
      return false;
    }
    if (r == LineFile::Result::kTooLong) {
      *error = at() + "a line longer than " + std::to_string(kMaxLineBytes >> 20) + " MiB";
      return false;
    }
    if (!summary.is_null()) {
      *error = at() + "a line after the summary line";
      return false;
    }
    nlohmann::json line = nlohmann::json::parse(text, nullptr, false);
    const std::string kind = line.is_object() ? KindOf(line) : std::string();
    const int run = line.is_object() ? RunOf(line) : -1;
    if (run < 0 || (kind != "request" && kind != "page" && kind != "trace" && kind != "summary")) {
      *error = at() + "not a replay line";
      return false;
    }
    if (kind == "summary") {
      if (open_section) {
        *error = at() + "the summary follows lines that no trace line ends";
        return false;
      }
      summary = std::move(line);
      continue;
    }
    if (open_section && run != open_run) {
      *error = at() + "a line of another --compare run inside a trace's lines";
      return false;
    }
    if (!open_section) {
      section = Section();
      section.file = file;
      section.begin = offset;
      section.first_line = in.line_number();
      open_section = true;
      open_run = run;
    }
    if (kind != "trace") continue;
    Found f;
    f.run = run;
    std::string trace_path;
    auto path_it = line.find("path");
    if (!WholeNumber(line, "trace", &f.trace) || !WholeNumber(line, "pages", &section.pages) ||
        path_it == line.end() || !path_it->is_string()) {
      *error = at() + "a trace line without its trace, pages and path";
      return false;
    }
    f.path = path_it->get<std::string>();
    section.end = offset;
    section.shard_first_page = pages_so_far[run];
    section.present = true;
    pages_so_far[run] += section.pages;
    f.section = section;
    found.push_back(std::move(f));
    open_section = false;
  }
  if (summary.is_null()) {
    *error = path + ": no summary line (the run did not finish)";
    return false;
  }
  if (open_section) {
    *error = path + ": lines after the last trace line";
    return false;
  }
  auto shard = summary.find("shard");
  uint64_t index = 0, count = 0, traces = 0;
  if (shard == summary.end() || !shard->is_object() || !WholeNumber(*shard, "index", &index) ||
      !WholeNumber(*shard, "count", &count) || !WholeNumber(*shard, "traces", &traces) ||
      index >= count || count > kMaxFiles) {
    *error = path + ": not a shard file (its summary has no \"shard\": replay with --shard I/N)";
    return false;
  }
  std::vector<std::string> compare;
  if (summary.contains("a")) {
    for (const char* side : {"a", "b"}) {
      const nlohmann::json& run = summary[side];
      if (!run.is_object() || !run.contains("spec") || !run["spec"].is_string()) {
        *error = path + ": its summary's \"" + side + "\" has no spec";
        return false;
      }
      compare.push_back(run["spec"].get<std::string>());
    }
  }
  const nlohmann::json config = summary.value("config", nlohmann::json());
  const std::string network = shard->value("network", "");
  if (file == 0) {
    config_ = config;
    network_ = network;
    compare_ = compare;
    shard_count_ = count;
    trace_count_ = traces;
    index_file_.assign(count, -1);
    for (int run = 0; run < 3; ++run) sections_[run].assign(traces, Section());
  } else if (config != config_ || network != network_ || compare != compare_) {
    *error = path + ": its configuration differs from " + paths_[0] + "'s";
    return false;
  } else if (count != shard_count_ || traces != trace_count_) {
    *error = path + ": a shard of " + std::to_string(count) + " over " + std::to_string(traces) +
             " traces; " + paths_[0] + " is one of " + std::to_string(shard_count_) + " over " +
             std::to_string(trace_count_);
    return false;
  }
  if (index_file_[index] >= 0) {
    *error = path + ": shard " + ShardName(index, count) + " given twice";
    return false;
  }
  index_file_[index] = static_cast<int>(file);
  if (without_requests_.empty() && !shard->value("request_lines", false)) without_requests_ = path;
  // Its traces: exactly the positions p < T with p % N == I, for each run it has.
  const uint64_t expected = traces / count + (index < traces % count ? 1 : 0);
  const std::vector<int> runs = compare.empty() ? std::vector<int>{0} : std::vector<int>{1, 2};
  for (int run : runs) {
    uint64_t seen = 0;
    for (const Found& f : found) seen += f.run == run;
    if (seen != expected) {
      *error = path + ": " + std::to_string(seen) + " trace lines where shard " +
               ShardName(index, count) + " of " + std::to_string(traces) + " traces has " +
               std::to_string(expected);
      return false;
    }
  }
  for (const Found& f : found) {
    if (f.run != runs.front() && f.run != runs.back()) {
      *error = path + ": trace " + std::to_string(f.trace) + "'s lines are of another run";
      return false;
    }
    if (f.trace >= traces || f.trace % count != index || sections_[f.run][f.trace].present) {
      *error = path + ": trace " + std::to_string(f.trace) + " is not one of shard " +
               ShardName(index, count) + "'s or given twice";
      return false;
    }
    sections_[f.run][f.trace] = f.section;
  }
  // The report's title: every trace's path, in order.
  for (const Found& f : found) {
    if (f.run != runs.front()) continue;
    if (trace_paths_.size() < traces) trace_paths_.resize(traces);
    trace_paths_[f.trace] = f.path;
  }
  return true;
}

std::string ShardSet::title() const {
  std::string title;
  for (const std::string& t : trace_paths_) title += (title.empty() ? "" : ", ") + t;
  return title;
}

bool ShardSet::RunPass(ReplayPass* pass) {
  for (uint64_t p = 0; p < trace_count_; ++p) {
    const Section& section = sections_[pass->run][p];
    if (!section.present) {
      pass->error = "trace " + std::to_string(p) + " of the " +
                    (pass->run == 0   ? std::string("run")
                     : pass->run == 1 ? "run a"
                                      : "run b") +
                    " is in no shard";
      pass->exit_code = 2;
      return false;
    }
    if (!ReadSection(section, pass->totals.pages, pass)) {
      pass->exit_code = 2;
      return false;
    }
  }
  return true;
}

bool ShardSet::ReadSection(const Section& section, uint64_t merged_first_page, ReplayPass* pass) {
  const std::string& path = paths_[section.file];
  LineFile in(path);
  if (!in.is_open() || !in.Seek(section.begin, section.first_line)) {
    pass->error = path + ": cannot read it again: " + std::strerror(errno);
    return false;
  }
  auto fail = [&](const std::string& what) {
    pass->error = path + ":" + std::to_string(in.line_number()) + ": " + what;
    return false;
  };
  // A page index of the shard's numbering, as one replay numbers it.
  auto renumber = [&](uint64_t* page) {
    if (*page < section.shard_first_page || *page - section.shard_first_page >= section.pages)
      return false;
    *page = *page - section.shard_first_page + merged_first_page;
    return true;
  };
  RequestRecord record;
  PageResult page;
  std::string error;
  std::string_view text;
  int64_t offset = 0;
  while (true) {
    LineFile::Result r = in.Next(&text, &offset);
    if (r != LineFile::Result::kLine) return fail("the file changed since it was checked");
    nlohmann::json line = nlohmann::json::parse(text, nullptr, false);
    const std::string kind = line.is_object() ? KindOf(line) : std::string();
    if (offset == section.end) {
      ReplayTotals totals;
      if (kind != "trace" || !line.contains("totals"))
        return fail("the file changed since it was checked");
      if (!ReplayTotalsFromJson(line["totals"], &totals, &error)) return fail("totals." + error);
      pass->totals.Add(totals);
      pass->traces.push_back({{"path", line.value("path", "")}, {"config", line["config"]}});
      return true;
    }
    if (offset > section.end) return fail("the file changed since it was checked");
    if (kind == "request") {
      if (!RequestRecordFromJson(line, &record, &error)) return fail(error);
      if (!record.entry || !renumber(&record.entry->page))
        return fail("a request of a page that is not its trace's");
      for (ReplayObserver* observer : pass->observers) observer->OnRequest(record);
    } else if (kind == "page") {
      if (!PageResultFromJson(line, &page, &error)) return fail(error);
      if (!renumber(&page.page_index)) return fail("a page that is not its trace's");
      for (ReplayObserver* observer : pass->observers) observer->OnPage(page);
    } else {
      return fail("not a request or page line");
    }
  }
}

}  // namespace netstack
