// Request priorities, lowest first, as Chrome orders them.
#ifndef NET_BASE_REQUEST_PRIORITY_H_
#define NET_BASE_REQUEST_PRIORITY_H_

#include <optional>
#include <string_view>

namespace netstack {

enum RequestPriority {
  THROTTLED = 0,
  IDLE = 1,
  LOWEST = 2,
  LOW = 3,
  MEDIUM = 4,
  HIGHEST = 5,
  MINIMUM_PRIORITY = THROTTLED,
  MAXIMUM_PRIORITY = HIGHEST,
  DEFAULT_PRIORITY = MEDIUM,
};

inline const char* RequestPriorityToString(RequestPriority p) {
  static const char* kNames[] = {"THROTTLED", "IDLE", "LOWEST", "LOW", "MEDIUM", "HIGHEST"};
  return kNames[p];
}

std::optional<RequestPriority> RequestPriorityFromString(std::string_view name);

}  // namespace netstack

#endif  // NET_BASE_REQUEST_PRIORITY_H_
