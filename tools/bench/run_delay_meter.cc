#include "tools/bench/run_delay_meter.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace netstack {

RunDelayMeter::RunDelayMeter(Threads threads) {
  if (threads == Threads::kThisThread) {
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) fds_.push_back(fd);
    return;
  }
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return;
  while (dirent* d = readdir(dir)) {
    if (d->d_name[0] == '.') continue;
    std::string path = std::string("/proc/self/task/") + d->d_name + "/schedstat";
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) fds_.push_back(fd);
  }
  closedir(dir);
}

RunDelayMeter::~RunDelayMeter() {
  for (int fd : fds_) close(fd);
}

uint64_t RunDelayMeter::WaitNs() const {
  uint64_t total = 0;
  for (int fd : fds_) {
    char buf[128];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    if (n <= 0) continue;  // the thread has exited
    buf[n] = '\0';
    // "<on-cpu ns> <run_delay ns> <timeslices>"
    char* end = nullptr;
    strtoull(buf, &end, 10);
    total += strtoull(end, nullptr, 10);
  }
  return total;
}

}  // namespace netstack
