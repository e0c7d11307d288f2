// Error codes: 0 is OK, positive values are byte counts where an API says so, negatives are
// errors. The names and values follow Chrome's (ERR_NAME_NOT_RESOLVED is -105).
#ifndef NET_BASE_NET_ERROR_H_
#define NET_BASE_NET_ERROR_H_

#include <functional>
#include <string>

namespace netstack {

enum Error : int {
  OK = 0,
#define NET_ERROR(name, value, message) ERR_##name = value,
#include "net/base/net_error_list.h"
#undef NET_ERROR
};

// "ERR_NAME_NOT_RESOLVED" for -105; "OK" for 0; "ERR_<n>" for an unknown code.
std::string ErrorToString(int error);
// A human sentence fragment: "host name not found (NXDOMAIN)".
std::string ErrorToMessage(int error);

// The completion callback of every asynchronous operation: the result (OK, bytes or an error).
using CompletionCallback = std::function<void(int)>;

}  // namespace netstack

#endif  // NET_BASE_NET_ERROR_H_
