// RunLabSession: the part `netstack lab` and `netstack shell` share once their namespaces and
// devices exist. On one libuv loop it runs the emulated link (LinkRelay) between the client's TUN
// device and the other side's, starts the user's command in the client namespace, watches the
// server processes, and on SIGINT, SIGTERM or SIGHUP forwards the signal to the command and gives
// it a bounded time to end before killing it. It returns when the command has ended and the link
// is closed; the caller then tears down what it built.
#ifndef TOOLS_LAB_LAB_SESSION_H_
#define TOOLS_LAB_LAB_SESSION_H_

#include <cstdio>
#include <string>
#include <vector>

#include "net/link/link_params.h"
#include "tools/lab/lab_processes.h"

namespace netstack {

struct LabSessionOptions {
  int client_tun = -1;  // the client namespace's TUN device (not owned)
  int server_tun = -1;  // the other side's: the server namespace's, or the root namespace's
  LinkParams link;
  LabProcessSpec command;  // one program: the user's command, with its namespace and resolv.conf
  // The servers already running (may be null): an exit while the command runs is reported.
  LabProcesses* servers = nullptr;
  std::vector<std::string> server_names;  // for that report, by program index
  // How long the command has to end after a forwarded signal before it is killed.
  int signal_grace_ms = 5000;
  std::string prefix = "netstack lab";  // starts every line written to `err`
};

struct LabSessionResult {
  // The command's exit status: its code, or 128 + the signal that killed it (for a command
  // killed after a forwarded signal, 128 + that signal); 1 when the lab itself failed.
  int exit_code = 1;
  LinkDirectionStats up, down;  // the link's counters at the end
};

// Runs the session. Errors (the link or the command could not start) are one line on `err`.
LabSessionResult RunLabSession(const LabSessionOptions& options, FILE* err);

// The exit status of a finished session: `result.exit_code`, after writing the link's counters to
// `stats_json` when it is not empty (--stats-json); a failure to write them is one line on `err`
// (starting with `prefix`) and makes a successful command's status 1.
int ReportLabSession(const LabSessionResult& result, const std::string& stats_json,
                     const std::string& prefix, FILE* err);

// The link's counters as JSON ({"up": {...}, "down": {...}}, LinkDirectionStats' field names),
// written to `path`. False with a one-line `error` if it cannot be written.
bool WriteLinkStatsJson(const std::string& path, const LinkDirectionStats& up,
                        const LinkDirectionStats& down, std::string* error);

}  // namespace netstack

#endif  // TOOLS_LAB_LAB_SESSION_H_
