// LabNamespace: an anonymous network namespace, held by a file descriptor of the lab process (no
// name under /var/run/netns), so it vanishes with the lab and whatever runs in it, even when the
// lab is killed with SIGKILL. The lab creates its TUN devices and readiness probes inside it by
// entering it for a moment on the calling thread (NetnsScope), and configures it by running
// iproute2's `ip` inside it (RunIn).
#ifndef TOOLS_LAB_LAB_NAMESPACE_H_
#define TOOLS_LAB_LAB_NAMESPACE_H_

#include <string>
#include <vector>

namespace netstack {

class LabNamespace {
 public:
  LabNamespace() = default;
  ~LabNamespace();  // closes the descriptor: the namespace goes when nothing else holds it
  LabNamespace(const LabNamespace&) = delete;
  LabNamespace& operator=(const LabNamespace&) = delete;

  // Creates a fresh network namespace (unshare on the calling thread, which then returns to
  // its own) with its loopback up. False with a one-line `error` (needs CAP_SYS_ADMIN).
  bool Create(std::string* error);
  // The namespace's descriptor (for setns), -1 before Create.
  int fd() const { return fd_; }

  // Runs `argv` (argv[0] looked up in PATH) inside the namespace (in the caller's own when
  // Create was never called: the shell's root side) and waits for it, at most
  // `timeout_ms`. Returns true when it exited 0; otherwise false with a one-line `error` naming
  // the command and what its stderr said (its last line, bounded).
  bool RunIn(const std::vector<std::string>& argv, std::string* error, int timeout_ms = 10000);

 private:
  int fd_ = -1;
};

// Moves the calling thread into a network namespace until destruction (sockets and TUN devices
// created meanwhile belong to it), then back. ok() is false (with errno in error()) if setns
// failed: nothing changed then.
class NetnsScope {
 public:
  explicit NetnsScope(int netns_fd);
  ~NetnsScope();
  NetnsScope(const NetnsScope&) = delete;
  NetnsScope& operator=(const NetnsScope&) = delete;
  bool ok() const { return ok_; }
  int error() const { return error_; }

 private:
  int original_ = -1;
  bool ok_ = false;
  int error_ = 0;
};

}  // namespace netstack

#endif  // TOOLS_LAB_LAB_NAMESPACE_H_
