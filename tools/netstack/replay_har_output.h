// `replay --har FILE`'s output: the ReplayHarWriter (tools/replay/report/replay_har_writer.h)
// over an OutputFile (written to a temporary renamed into place on success, so a failed replay
// leaves what was at FILE as it was). Kept apart so replay_command only opens, observes and
// commits.
#ifndef TOOLS_NETSTACK_REPLAY_HAR_OUTPUT_H_
#define TOOLS_NETSTACK_REPLAY_HAR_OUTPUT_H_

#include <memory>
#include <string>

#include "tools/netstack/output_file.h"
#include "tools/replay/report/replay_har_writer.h"

namespace netstack {

class ReplayHarOutput {
 public:
  ReplayHarOutput() = default;
  ReplayHarOutput(const ReplayHarOutput&) = delete;
  ReplayHarOutput& operator=(const ReplayHarOutput&) = delete;

  // Opens `path` and starts the archive, which holds at most `max_pages` pages
  // (HarWriter::kMaxPages unless a test lowers it). False with a one-line `error` ("cannot write
  // /nonexistent/r.har: No such file or directory").
  bool Open(const std::string& path, size_t max_pages, std::string* error);

  // The observer to add to every pass; null before Open.
  ReplayHarWriter* observer() { return writer_.get(); }

  // Closes the archive and renames it into place. False with a one-line `error` (a write error,
  // or more pages than one archive holds: the file is then not written).
  bool Commit(std::string* error);

 private:
  std::string path_;
  OutputFile file_;
  std::unique_ptr<ReplayHarWriter> writer_;
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_REPLAY_HAR_OUTPUT_H_
