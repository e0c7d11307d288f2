// Reading trace files with bounds: only regular files (never a device or a FIFO that could
// block or never end), never more than a given size.
#ifndef TOOLS_REPLAY_TRACE_TRACE_FILE_H_
#define TOOLS_REPLAY_TRACE_TRACE_FILE_H_

#include <cstdint>
#include <string>

namespace netstack {

// Reads the whole of `path` into `out`. Returns false with a problem that does not repeat the
// path ("cannot open: No such file or directory", "not a regular file", "larger than the limit
// of 512 MiB").
bool ReadTraceFile(const std::string& path, uint64_t max_bytes, std::string* out,
                   std::string* error);

// Reads at most `max_bytes` from the start of `path` (same checks and messages).
bool ReadTraceFilePrefix(const std::string& path, uint64_t max_bytes, std::string* out,
                         std::string* error);

// Opens `path` for reading after the same checks (a regular file of at most `max_bytes`) and
// returns the descriptor (the caller closes it) with the file's size in `size`; -1 with the
// problem in `error`. For readers that stream the file rather than hold it.
int OpenTraceFile(const std::string& path, uint64_t max_bytes, uint64_t* size, std::string* error);

// "a/b/c.jsonl" -> "a/b"; "c.jsonl" -> ".".
std::string TraceDirName(const std::string& path);

// `relative` resolved against `base_dir` (unchanged when absolute).
std::string TraceJoinPath(const std::string& base_dir, const std::string& relative);

// "512 MiB", "16 MiB", "1000 bytes".
std::string FormatByteLimit(uint64_t bytes);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_TRACE_FILE_H_
