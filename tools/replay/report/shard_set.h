// A complete set of shard files (`netstack replay --shard I/N --json FILE`), checked and read
// back as a ReplayPassSource: `netstack merge` and `replay --jobs` feed it to the same outputs a
// replay feeds, so they write one replay's bytes (docs/replay.md, "Shards and merge").
//
// Open reads every file once, streaming, to check the set and to index where each trace's lines
// are; RunPass then reads each trace's lines again in trace order, renumbering its pages as one
// replay numbers them. Memory: one line at a time (at most kMaxLineBytes) and the index (three
// numbers per trace), whatever the shards hold.
#ifndef TOOLS_REPLAY_REPORT_SHARD_SET_H_
#define TOOLS_REPLAY_REPORT_SHARD_SET_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/replay/report/replay_pass_source.h"

namespace netstack {

class ShardSet : public ReplayPassSource {
 public:
  // The longest line read (a request line with a long URL, a totals line with the predictor's
  // tables); a longer line is an error.
  static constexpr size_t kMaxLineBytes = 64u << 20;
  // At most this many files (--shard's N is at most 100,000).
  static constexpr size_t kMaxFiles = 100'000;

  // Reads and checks `paths` (in any order): each a shard file that finished, all of one
  // configuration, the same N and trace count, every index 0..N-1 once, every trace once. False
  // with a one-line `error` naming the file and what is wrong ("b.jsonl: shard 1/4 given
  // twice", "shards 2/4 missing", "d.jsonl:17: not a replay line").
  bool Open(const std::vector<std::string>& paths, std::string* error);

  // What the shards' summary lines carry (valid after Open).
  const nlohmann::json& config() const { return config_; }
  const std::string& network() const { return network_; }
  const std::vector<std::string>& compare() const { return compare_; }
  uint64_t trace_count() const { return trace_count_; }
  // The traces' paths, in order, joined with ", " (the report's title).
  std::string title() const;
  // A shard written with --json-pages (no request lines), or "" when every one has them.
  const std::string& shard_without_requests() const { return without_requests_; }

  // Feeds the pass's run (0, or compare's 1 and 2) trace by trace. False with a one-line error
  // naming the file and line (exit code 2) when a file changed or reads back wrong.
  bool RunPass(ReplayPass* pass) override;

 private:
  // Where one trace's lines are in its file, for one run.
  struct Section {
    uint32_t file = 0;
    int64_t begin = 0, end = 0;  // byte offsets: its first line, its trace line
    int64_t first_line = 0;      // the line number at `begin`
    uint64_t shard_first_page = 0, pages = 0;
    bool present = false;
  };
  bool IndexFile(uint32_t file, std::string* error);
  bool ReadSection(const Section& section, uint64_t merged_first_page, ReplayPass* pass);

  std::vector<std::string> paths_;
  nlohmann::json config_;
  std::string network_, without_requests_;
  std::vector<std::string> trace_paths_;  // by position
  std::vector<std::string> compare_;
  uint64_t shard_count_ = 0, trace_count_ = 0;
  std::vector<int> index_file_;       // shard index -> file, -1 before it is seen
  std::vector<Section> sections_[3];  // by run, by trace position
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_SHARD_SET_H_
