# The live transports: libuv TCP and OpenSSL TLS (see README.md, "Transports").
list(APPEND NET_SOCKET_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/ssl_client_context.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/ssl_client_socket.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/tls_client_engine.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/uv_client_socket_factory.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/uv_tcp_client_socket.cc
)
