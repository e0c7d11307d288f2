// What the lab needs from the host and leaves on it: the privilege check, the lab's work folder
// (named after the lab's pid, so a later lab can tell a dead lab's folder from a live one's), and
// the sweep of what a lab killed with SIGKILL could not remove (its work folder; for `netstack
// shell` its nft table and the ip_forward setting it changed, recorded in that folder).
#ifndef TOOLS_LAB_LAB_HOST_H_
#define TOOLS_LAB_LAB_HOST_H_

#include <string>

namespace netstack {

// True if the process has CAP_NET_ADMIN and CAP_SYS_ADMIN in its effective set (root has both).
// Otherwise false with the one line to print after "netstack <command>: ".
bool HasLabPrivileges(std::string* error);

// Creates <TMPDIR or /tmp>/netstack-lab-<pid>-XXXXXX, readable by all (nginx's workers read the
// plan's files there). Returns its path, or "" with a one-line `error`.
std::string MakeLabWorkDir(std::string* error);

// Removes a work folder and everything in it (never follows symlinks out of it).
void RemoveLabWorkDir(const std::string& path);

// The file in a work folder that records what `netstack shell` changed on the host.
inline constexpr char kShellStateFile[] = "shell-state";

// Removes the work folders of labs whose process is gone and undoes what their shell-state
// records (deletes the nft table, restores net.ipv4.ip_forward when no live shell remains).
// Returns how many folders it swept.
int SweepDeadLabs();

// True if a live lab other than this process has a shell-state file (a `netstack shell` that
// still needs ip_forward).
bool OtherLiveShell();

// While the lab is being built or taken down (outside the session's libuv loop, which handles
// them itself), SIGINT, SIGTERM and SIGHUP only record that they came: the lab stops building and
// cleans up instead of dying half-built. Call again after the loop (libuv restores the default).
void CatchLabSignals();
// The first such signal caught since the last ClearLabSignal, or 0.
int LabSignalCaught();
void ClearLabSignal();

// Reads /proc/sys/net/ipv4/ip_forward ("0" or "1"), "" if unreadable; writes it back.
std::string ReadIpForward();
bool WriteIpForward(const std::string& value);

}  // namespace netstack

#endif  // TOOLS_LAB_LAB_HOST_H_
