# Tests of the live transports (net/socket/transport.cmake): TCP and TLS on a real libuv loop
# over loopback, and the TLS engine against an in-memory server. Certificates are made at test
# time.
find_package(Threads REQUIRED)
netstack_test(transport_tests
  ${CMAKE_CURRENT_SOURCE_DIR}/tls_client_engine_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/tls_memory_server.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/tls_scripted_transport_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/tls_socket_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/tls_test_certs.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/tls_test_server.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/tls_test_util.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/tls_trust_store_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/transport_tcp_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/transport_test_util.cc
  LIBS net_socket_live test_support_live test_temp_dir OpenSSL::SSL OpenSSL::Crypto Threads::Threads)
