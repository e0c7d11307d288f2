#include "net/base/uv_error.h"

#include <uv.h>

#include "net/base/net_error.h"

namespace netstack {

int MapUvError(int uv_error) {
  switch (uv_error) {
    case 0:
      return OK;
    case UV_ECONNREFUSED:
      return ERR_CONNECTION_REFUSED;
    case UV_ECONNRESET:
    case UV_EPIPE:
      return ERR_CONNECTION_RESET;
    case UV_ECONNABORTED:
      return ERR_CONNECTION_ABORTED;
    case UV_ETIMEDOUT:
      return ERR_CONNECTION_TIMED_OUT;
    case UV_ENETUNREACH:
      return ERR_INTERNET_DISCONNECTED;
    case UV_EHOSTUNREACH:
    case UV_EADDRNOTAVAIL:
    case UV_EAFNOSUPPORT:
      return ERR_ADDRESS_UNREACHABLE;
    case UV_EINVAL:
      return ERR_INVALID_ARGUMENT;
    case UV_ENOMEM:
      return ERR_OUT_OF_MEMORY;
    case UV_EMFILE:
    case UV_ENFILE:
    case UV_ENOBUFS:
      return ERR_INSUFFICIENT_RESOURCES;
    case UV_EOF:
      return ERR_CONNECTION_CLOSED;
    case UV_ECANCELED:
      return ERR_ABORTED;
    default:
      return ERR_FAILED;
  }
}

}  // namespace netstack
