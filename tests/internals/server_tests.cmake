# The internals page's HTTP server: the request reader (scripted bytes) and the libuv server
# (real loopback). The server's own .cc files are compiled in directly so these tests do not
# depend on the rest of netstack_internals.
netstack_test(internals_server_tests
  http_request_reader_test.cc
  uv_http_server_test.cc
  uv_http_server_limits_test.cc
  ${PROJECT_SOURCE_DIR}/tools/internals/http_server_message.cc
  ${PROJECT_SOURCE_DIR}/tools/internals/http_request_reader.cc
  ${PROJECT_SOURCE_DIR}/tools/internals/uv_http_server.cc
  ${PROJECT_SOURCE_DIR}/tools/internals/uv_http_connection.cc
  LIBS PkgConfig::LIBUV ${HTTP_PARSER_LIB} nlohmann_json::nlohmann_json)
target_include_directories(internals_server_tests PRIVATE ${HTTP_PARSER_INCLUDE})
