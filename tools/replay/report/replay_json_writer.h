// `replay --json FILE`: JSON Lines, one {"kind": "request"} per request and {"kind": "page"} per
// page as they complete, then one {"kind": "summary"}. The bytes depend only on the trace, the
// configuration and the seed (no wall-clock figure), so two runs can be compared with cmp.
#ifndef TOOLS_REPLAY_REPORT_REPLAY_JSON_WRITER_H_
#define TOOLS_REPLAY_REPORT_REPLAY_JSON_WRITER_H_

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "net/http/request_record_json.h"
#include "tools/replay/replay_result.h"

namespace netstack {

class ReplayJsonWriter : public ReplayObserver {
 public:
  ReplayJsonWriter() = default;
  // Closes the file if Close was not called (errors then go unreported).
  ~ReplayJsonWriter() override;
  ReplayJsonWriter(const ReplayJsonWriter&) = delete;
  ReplayJsonWriter& operator=(const ReplayJsonWriter&) = delete;

  // Creates `path` ("-" is stdout). False with `error` ("cannot write FILE: why").
  bool Open(const std::string& path, std::string* error);
  // Lines written from now on carry "run": `label` (compare's "a" and "b"); empty: none.
  void SetRunLabel(const std::string& label) { label_ = label; }
  // How request and page lines write milliseconds (kExact: shard files; the caller writes the
  // other lines' numbers). Default rounded.
  void SetNumbers(JsonNumbers numbers) { numbers_ = numbers; }
  JsonNumbers numbers() const { return numbers_; }
  // False: request lines are left out (--json-pages). Default true.
  void SetRequestLines(bool on) { request_lines_ = on; }

  // The record's one writer (net/http/request_record_json.h).
  void OnRequest(const RequestRecord& request) override;
  void OnPage(const PageResult& page) override;
  // Writes `object` as one line (with "run" when a label is set).
  void WriteLine(const nlohmann::json& object);

  // Flushes and closes. False with `error` if any write failed (disk full, closed pipe).
  bool Close(std::string* error);

 private:
  FILE* file_ = nullptr;
  bool is_stdout_ = false;
  std::string path_;
  std::string label_;
  JsonNumbers numbers_ = JsonNumbers::kRounded;
  bool request_lines_ = true;
  std::string line_;  // reused for every line
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPLAY_JSON_WRITER_H_
