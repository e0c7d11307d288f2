#include "net/base/request_priority.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace netstack {

std::optional<RequestPriority> RequestPriorityFromString(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (int p = MINIMUM_PRIORITY; p <= MAXIMUM_PRIORITY; ++p) {
    if (upper == RequestPriorityToString(static_cast<RequestPriority>(p)))
      return static_cast<RequestPriority>(p);
  }
  return std::nullopt;
}

}  // namespace netstack
