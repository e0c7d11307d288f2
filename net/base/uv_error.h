// libuv's error codes as net errors: the C boundary of the live transports (libuv reports
// negative UV_E* codes; the stack speaks Chrome's net errors).
#ifndef NET_BASE_UV_ERROR_H_
#define NET_BASE_UV_ERROR_H_

namespace netstack {

// Maps a libuv negative code (UV_ECONNREFUSED...) to a net error; 0 is OK, unknown codes are
// ERR_FAILED.
int MapUvError(int uv_error);

}  // namespace netstack

#endif  // NET_BASE_UV_ERROR_H_
