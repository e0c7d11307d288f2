# netstack_lab_servers: the lab's server side as a plan (lab_servers.h): the site, the lab CA,
# nginx's and dnsmasq's configurations. Included by tools/lab/CMakeLists.txt.
find_package(OpenSSL REQUIRED)
add_library(netstack_lab_servers STATIC
  ${CMAKE_CURRENT_LIST_DIR}/default_site.cc
  ${CMAKE_CURRENT_LIST_DIR}/dnsmasq_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/lab_ca.cc
  ${CMAKE_CURRENT_LIST_DIR}/lab_servers.cc
  ${CMAKE_CURRENT_LIST_DIR}/lab_site.cc
  ${CMAKE_CURRENT_LIST_DIR}/nginx_config.cc
)
target_include_directories(netstack_lab_servers PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(netstack_lab_servers PUBLIC net_base PRIVATE OpenSSL::Crypto)
