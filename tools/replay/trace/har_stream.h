// Parses HAR JSON in one pass without holding the document: each log.entries[i] is read into
// a TraceEntry (har_entry.h) as soon as its closing bracket is parsed and then dropped, and
// what no reader uses (response bodies, cookies, query strings) is never stored. What remains
// in `doc` is the document without its entries: log.creator, log.pages and the empty
// log.entries array. Memory is then the entries replay keeps plus one entry's JSON, not
// several times the file. Part of the HAR reader (har_reader.h); internal.
#ifndef TOOLS_REPLAY_TRACE_HAR_STREAM_H_
#define TOOLS_REPLAY_TRACE_HAR_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tools/replay/trace/har_entry.h"
#include "tools/replay/trace/trace.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

struct HarReadEntry {
  TraceEntry entry;
  HarEntryExtras extras;
  size_t file_index = 0;
};

struct HarSkippedEntry {
  size_t file_index = 0;
  std::string pageref;
  double start_epoch_ms = 0;
  HarSkipReason reason = HarSkipReason::kNoResponse;
  std::string detail;  // HarEntryExtras::skip_detail
};

struct HarStream {
  nlohmann::json doc;  // the document without the elements of log.entries
  // Elements of the (last) log.entries array seen, read or not.
  size_t entry_count = 0;
  // The entries read, in file order; reading stops at the first error and past `max_entries`.
  std::vector<HarReadEntry> entries;
  std::vector<HarSkippedEntry> skipped;
  std::string entry_error;  // the first entry's error ("log.entries[4].request: missing")
};

// Parses `text` (without a byte order mark) into `out`, reading at most `max_entries` entries.
// On a syntax error (or nesting deeper than kMaxJsonDepth) returns false with `syntax` set;
// its line is 0 when the parser did not say where (a number too large for a double).
bool StreamHarText(std::string_view text, size_t max_entries, HarStream* out,
                   JsonSyntaxError* syntax);

// The same for the file at `path`, read in blocks, never more than `max_bytes` (a leading byte
// order mark is skipped). A file that cannot be read returns false with `file_problem` set
// ("cannot open: ...", "not a regular file", "larger than the limit of 512 MiB"); a syntax
// error returns false with `syntax` set and `file_problem` empty.
bool StreamHarFile(const std::string& path, uint64_t max_bytes, size_t max_entries, HarStream* out,
                   JsonSyntaxError* syntax, std::string* file_problem);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_HAR_STREAM_H_
