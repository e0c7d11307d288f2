// `replay --har FILE`: the simulated page loads as an HTTP Archive (HAR 1.2,
// net/http/har_writer.h), so a HAR viewer shows them beside the recording, and the file replays
// through netstack again (docs/replay.md, "HAR out").
//
// Each replayed page is one HAR page ("page_N", N its 1-based index in the replay; "page_N-a" and
// "page_N-b" under --compare's run labels) titled with its URL and dated on the replay's wall
// clock (PageResult::started_epoch_ms: it starts at the recording's start, so the bytes depend
// only on trace, configuration and seed). Its pageTimings.onLoad is PageResult::onload_ms (-1
// when the trace has no onLoad), onContentLoad -1 (not modelled). Each request is one entry with
// the model's timings; its _initiator is the entry that revealed it in the replay
// (ReplayEntryRef::parent: "script" for a script, "parser" for the page's document (its first
// entry) or a stylesheet, "other" otherwise). A replay's records carry no headers, so entries have
// none.
//
// Memory: a page's records are kept until the page completes (pages in flight, not the replay),
// then written; the pages' list is kept (at most HarWriter::kMaxPages).
#ifndef TOOLS_REPLAY_REPORT_REPLAY_HAR_WRITER_H_
#define TOOLS_REPLAY_REPORT_REPLAY_HAR_WRITER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "net/http/har_writer.h"
#include "tools/replay/replay_result.h"

namespace netstack {

class ReplayHarWriter : public ReplayObserver {
 public:
  // Starts the archive on `sink` (HarWriter's), its creator version `creator_version`, holding at
  // most `max_pages` pages (HarWriter's bound).
  ReplayHarWriter(std::string creator_version, HarWriter::Sink sink,
                  size_t max_pages = HarWriter::kMaxPages);
  ReplayHarWriter(const ReplayHarWriter&) = delete;
  ReplayHarWriter& operator=(const ReplayHarWriter&) = delete;

  // Pages completed from now on get ids suffixed "-`label`" (compare's "a" and "b"); empty:
  // none.
  void SetRunLabel(const std::string& label) { label_ = label; }

  // Kept with its page's records until the page completes.
  void OnRequest(const RequestRecord& request) override;
  // Writes the page's entries and keeps the page for the pages' list (past
  // HarWriter::kMaxPages pages, the page's entries are not written and overflowed() is true).
  void OnPage(const PageResult& page) override;

  // Writes the pages and closes the archive. Call once, after the replay.
  void Finish();

  // More pages were replayed than one archive holds (max_pages()).
  bool overflowed() const { return overflowed_; }
  size_t max_pages() const { return writer_.max_pages(); }

 private:
  HarWriter writer_;
  std::string label_;
  // Records of pages in flight, by page index (the engine numbers pages in one output uniquely).
  std::map<uint64_t, std::vector<RequestRecord>> pending_;
  bool overflowed_ = false;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPORT_REPLAY_HAR_WRITER_H_
