#include "tools/lab/tun_device.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "tools/lab/lab_namespace.h"

namespace netstack {

bool TunAvailable(std::string* error) {
  int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    *error = std::string("/dev/net/tun: ") + std::strerror(errno) +
             (errno == ENOENT ? " (the kernel's TUN driver is missing: modprobe tun, or in a "
                                "container pass --device /dev/net/tun)"
                              : "");
    return false;
  }
  close(fd);
  return true;
}

int OpenTunDevice(int netns_fd, const std::string& name, std::string* error) {
  if (name.empty() || name.size() >= IFNAMSIZ) {
    *error = "TUN device name '" + name + "' must have 1 to 15 bytes";
    return -1;
  }
  std::unique_ptr<NetnsScope> scope;
  if (netns_fd >= 0) {
    scope = std::make_unique<NetnsScope>(netns_fd);
    if (!scope->ok()) {
      *error =
          std::string("cannot enter the lab's network namespace: ") + std::strerror(scope->error());
      return -1;
    }
  }
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    TunAvailable(error);
    return -1;
  }
  ifreq request{};
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &request) != 0) {
    *error = "cannot create TUN device '" + name + "': " + std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace netstack
