#include "net/base/net_error.h"

namespace netstack {

std::string ErrorToString(int error) {
  switch (error) {
    case OK:
      return "OK";
#define NET_ERROR(name, value, message) \
  case value:                           \
    return "ERR_" #name;
#include "net/base/net_error_list.h"
#undef NET_ERROR
  }
  return "ERR_" + std::to_string(error);
}

std::string ErrorToMessage(int error) {
  switch (error) {
    case OK:
      return "ok";
#define NET_ERROR(name, value, message) \
  case value:                           \
    return message;
#include "net/base/net_error_list.h"
#undef NET_ERROR
  }
  return "error " + std::to_string(error);
}

}  // namespace netstack
