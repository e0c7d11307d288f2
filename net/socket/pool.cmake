# The client socket pool and connect jobs (see README.md, "Socket pool").
list(APPEND NET_SOCKET_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/client_socket_handle.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/client_socket_pool.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/client_socket_pool_group.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/client_socket_pool_idle.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/client_socket_pool_info.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/connect_job.cc
)
