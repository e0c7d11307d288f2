// A TUN device (IFF_TUN | IFF_NO_PI: one read or write is one IP packet) created inside a network
// namespace. The device lives as long as its descriptor (it is not persistent), so closing the
// descriptor, or the lab dying, removes it.
#ifndef TOOLS_LAB_TUN_DEVICE_H_
#define TOOLS_LAB_TUN_DEVICE_H_

#include <string>

namespace netstack {

// Opens /dev/net/tun and creates the device `name` (at most 15 bytes) in the network namespace
// `netns_fd` (-1: the caller's). Returns its non-blocking, close-on-exec descriptor, or -1 with a
// one-line `error` ("/dev/net/tun is missing: ...", "cannot create TUN device 'x': ...").
int OpenTunDevice(int netns_fd, const std::string& name, std::string* error);

// True if /dev/net/tun can be opened for reading and writing; otherwise false with the reason.
bool TunAvailable(std::string* error);

}  // namespace netstack

#endif  // TOOLS_LAB_TUN_DEVICE_H_
