#include "tools/netstack/replay_sweep_run.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "tools/netstack/output_file.h"
#include "tools/netstack/replay_command.h"
#include "tools/netstack/replay_sweep.h"
#include "tools/netstack/replay_sweep_table.h"
#include "tools/netstack/terminal_text.h"
#include "tools/replay/report/replay_summary.h"

namespace netstack {
namespace {

// What the SIGINT/SIGTERM handler needs, prepared before each point so the handler only
// calls async-signal-safe functions.
struct StopState {
  char dir[4096];
  char prefix[8];  // "NNN." of the running point
  char message[1024];
  size_t message_length;
  bool remove_dir;  // the sweep made DIR and no point finished
  pid_t pid;        // the sweep's process: a forked worker dies as it would unswept
  volatile sig_atomic_t armed;
};
StopState g_stop;

// Removes DIR's entries named "NNN.*" or ".NNN.*": the point's --json file, its report, its
// HAR and the HAR's temporary (output_file.h). Async-signal-safe (open, getdents64, unlinkat,
// close); the directory is scanned again after a removal, as removing while reading may make
// the kernel skip an entry.
void RemovePointFiles(const char* dir, const char* prefix) {
  int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buf[8192];
  for (int pass = 0; pass < 4; ++pass) {
    bool removed = false;
    ::lseek(fd, 0, SEEK_SET);
    ssize_t n;
    while ((n = ::getdents64(fd, buf, sizeof(buf))) > 0) {
      for (ssize_t at = 0; at < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buf + at);
        at += entry->d_reclen;
        const char* name = entry->d_name;
        const char* p = name[0] == '.' ? name + 1 : name;
        size_t i = 0;
        while (prefix[i] && p[i] == prefix[i]) ++i;
        if (prefix[i] == 0 && ::unlinkat(fd, name, 0) == 0) removed = true;
      }
    }
    if (!removed) break;
  }
  ::close(fd);
}

extern "C" void OnStopSignal(int signal_number) {
  if (g_stop.armed && ::getpid() == g_stop.pid) {
    g_stop.armed = 0;
    RemovePointFiles(g_stop.dir, g_stop.prefix);
    if (g_stop.remove_dir) ::rmdir(g_stop.dir);
    ssize_t ignored = ::write(STDERR_FILENO, g_stop.message, g_stop.message_length);
    (void)ignored;
  }
  // Die of the signal, as a replay without --sweep does (the shell sees the interruption).
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

// Installs the handler for SIGINT and SIGTERM for the sweep's life, then puts back what was
// there.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action {};
    action.sa_handler = OnStopSignal;
    sigfillset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    Disarm();
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // From now until Disarm, a signal removes the point `name`'s files in `dir` (and `dir`
  // itself when `remove_dir`) and prints `message`.
  void Arm(const std::string& dir, const std::string& name, const std::string& message,
           bool remove_dir) {
    g_stop.armed = 0;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    std::snprintf(g_stop.dir, sizeof(g_stop.dir), "%s", dir.c_str());
    std::snprintf(g_stop.prefix, sizeof(g_stop.prefix), "%s.", name.c_str());
    int n = std::snprintf(g_stop.message, sizeof(g_stop.message), "%s", message.c_str());
    g_stop.message_length = std::min(static_cast<size_t>(n), sizeof(g_stop.message) - 1);
    g_stop.remove_dir = remove_dir;
    g_stop.pid = ::getpid();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    g_stop.armed = 1;
  }
  void Disarm() {
    g_stop.armed = 0;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// Makes `dir` the sweep's folder: created when missing (*created), else it must be an empty
// folder, so no point's file is ever mixed with an older sweep's.
bool PrepareSweepDir(const std::string& dir, bool* created, std::string* error) {
  *created = false;
  const std::string where = "--sweep-dir " + dir + ": ";
  if (dir.size() + 32 > sizeof(g_stop.dir)) {
    *error = where + "the path is too long";
    return false;
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      *error = where + std::strerror(errno);
      return false;
    }
    if (::mkdir(dir.c_str(), 0777) != 0) {
      *error = where + "cannot create: " + std::strerror(errno);
      return false;
    }
    *created = true;
    return true;
  }
  if (!S_ISDIR(st.st_mode)) {
    *error = where + "not a folder";
    return false;
  }
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    *error = where + "cannot open: " + std::strerror(errno);
    return false;
  }
  bool empty = true;
  while (const struct dirent* entry = ::readdir(d)) {
    if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) {
      empty = false;
      break;
    }
  }
  ::closedir(d);
  if (!empty) {
    *error = where + "not empty (a sweep writes into a new or empty folder)";
    return false;
  }
  return true;
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  return !dir.empty() && dir.back() == '/' ? dir + name : dir + "/" + name;
}

// "points 0 to 2 are in DIR" after `finished` points.
std::string Finished(size_t finished, const std::string& path, bool removed_dir) {
  const std::string dir = TerminalSafe(path);
  if (finished == 0)
    return removed_dir ? "no point finished (" + dir + " removed)" : "no point finished";
  if (finished == 1) return "point 0 is in " + dir;
  return "points 0 to " + std::to_string(finished - 1) + " are in " + dir;
}

// Runs one point's replay. Its terminal summary is not shown (the table is); its error lines
// go to `err` when `pass_err` (with the progress line), else into *captured.
int RunPoint(const ReplayOptions& p, const std::string& command_line, bool pass_err, FILE* err,
             std::string* captured) {
  char *sink_buf = nullptr, *err_buf = nullptr;
  size_t sink_size = 0, err_size = 0;
  FILE* sink = open_memstream(&sink_buf, &sink_size);
  FILE* point_err = pass_err ? err : open_memstream(&err_buf, &err_size);
  int code = 1;
  if (!sink || !point_err) {
    *captured = std::string("netstack: ") + std::strerror(errno) + "\n";
  } else {
    code = RunReplayCommand(p, command_line, sink, point_err);
  }
  if (sink) std::fclose(sink);
  std::free(sink_buf);
  if (!pass_err && point_err) {
    std::fclose(point_err);
    captured->assign(err_buf, err_size);
  }
  std::free(err_buf);
  return code;
}

// Point `i`'s replay options: `o` with the point's assignments appended to --set, its files in
// the sweep's folder, and no terminal summary; `row` gets its point, values and file names.
ReplayOptions PointOptions(const ReplayOptions& o, const SweepGrid& grid, size_t i,
                           const std::string& name, bool show_progress, SweepRow* row) {
  ReplayOptions p = o;
  p.sweeps.clear();
  p.sweep_dir.clear();
  for (std::string& a : grid.Assignments(i)) p.sets.push_back(std::move(a));
  p.summary_pages = 0;
  if (!show_progress) p.quiet = true;
  row->point = i;
  row->values = grid.Values(i);
  row->files.push_back(name + ".jsonl");
  p.json_path = JoinPath(o.sweep_dir, row->files.back());
  if (!o.report_path.empty()) {
    row->files.push_back(name + "." + o.report_path);
    p.report_path = JoinPath(o.sweep_dir, row->files.back());
  }
  if (!o.har_path.empty()) {
    row->files.push_back(name + "." + o.har_path);
    p.har_path = JoinPath(o.sweep_dir, row->files.back());
  }
  return p;
}

// Prints a failed point's error lines (`captured`, each "netstack: ..."), each naming the
// point (`where`); the last also says which points' files are kept (`finished`, after point 0).
void ReportFailedPoint(const std::string& captured, const std::string& where,
                       const std::string& finished, size_t point, FILE* err) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < captured.size();) {
    size_t end = std::min(captured.find('\n', at), captured.size());
    lines.push_back(captured.substr(at, end - at));
    if (lines.back().rfind("netstack: ", 0) == 0) lines.back().erase(0, 10);
    at = end + 1;
  }
  if (lines.empty()) lines.push_back("failed");
  if (point > 0) lines.back() += " (" + finished + ")";
  for (const std::string& line : lines)
    std::fprintf(err, "netstack: %s: %s\n", where.c_str(), line.c_str());
}

bool WriteTableFile(const std::string& path, const std::string& text, std::string* error) {
  OutputFile file;
  if (!file.Open(path, error)) return false;
  std::fwrite(text.data(), 1, text.size(), file.file());
  if (!file.Commit(error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

}  // namespace

int RunReplaySweep(const ReplayOptions& o, const std::string& command_line, FILE* out, FILE* err) {
  auto fail = [err](const std::string& message, int code) {
    std::fprintf(err, "netstack: %s\n", TerminalSafe(message).c_str());
    return code;
  };
  SweepGrid grid;
  std::string error;
  if (!grid.Parse(o.sweeps, &error)) return fail(error, 2);
  bool created = false;
  if (!PrepareSweepDir(o.sweep_dir, &created, &error)) return fail(error, 2);
  const bool show_progress = !o.quiet && (o.progress || ::isatty(::fileno(err)));
  std::vector<std::string> keys;
  for (const SweepAxis& axis : grid.axes()) keys.push_back(axis.key);
  SweepTable table(keys);
  StopSignals stop;
  const size_t n = grid.size();
  for (size_t i = 0; i < n; ++i) {
    char name[24];
    std::snprintf(name, sizeof(name), "%03zu", i);
    const bool remove_dir = created && i == 0;
    const std::string where = "sweep point " + std::to_string(i) + " of " + std::to_string(n) +
                              " (" + EchoInput(grid.Describe(i), 200) + ")";
    stop.Arm(o.sweep_dir, name,
             std::string(show_progress ? "\n" : "") + "netstack: interrupted at " + where + "; " +
                 Finished(i, o.sweep_dir, remove_dir) + "\n",
             remove_dir);
    if (show_progress)
      std::fprintf(err, "sweep point %zu of %zu: %s\n", i, n, grid.Describe(i).c_str());

    SweepRow row;
    ReplayOptions p = PointOptions(o, grid, i, name, show_progress, &row);
    std::string captured, point_error;
    int code;
    if (!ValidateReplayOptions(&p, &point_error)) {
      code = 2;
      captured = "netstack: " + point_error + "\n";
    } else {
      code = RunPoint(p, command_line, show_progress, err, &captured);
      if (code == 0 && !ReadSweepRow(p.json_path, &row, &point_error)) {
        code = 1;
        captured = "netstack: " + point_error + "\n";
      }
    }
    stop.Disarm();
    if (code != 0) {
      RemovePointFiles(o.sweep_dir.c_str(), (std::string(name) + ".").c_str());
      if (remove_dir) ::rmdir(o.sweep_dir.c_str());
      const std::string finished = Finished(i, o.sweep_dir, remove_dir);
      if (show_progress) {
        std::fputs(captured.c_str(), err);
        return fail("the sweep stopped at " + where + "; " + finished, code);
      }
      ReportFailedPoint(captured, where, finished, i, err);
      return code;
    }
    std::fputs(captured.c_str(), err);
    table.Add(std::move(row));
  }

  if (!WriteTableFile(JoinPath(o.sweep_dir, "sweep.tsv"), table.FormatTsv(), &error) ||
      !WriteTableFile(JoinPath(o.sweep_dir, "sweep.json"), table.ToJson().dump(2) + "\n", &error))
    return fail(error, 1);
  if (!o.quiet) {
    std::string text = FormatThousands(n) + (n == 1 ? " point" : " points") + " in " +
                       TerminalSafe(o.sweep_dir) +
                       ": NNN.jsonl per point, sweep.tsv, sweep.json\n\n";
    text += table.FormatText();
    std::fputs(text.c_str(), out);
  }
  return 0;
}

}  // namespace netstack
