// NginxConfig: the text of the lab's nginx.conf. One server block per host, listening on the
// host's own address on ports 80 and 443 (TLS with the host's lab certificate, HTTP/2 offered by
// ALPN when asked), serving SITE/<host> as static files, byte for byte (gzip off), with
// keep-alive as nginx's defaults (a real site's), and an access log of every request's timing
// and connection. Think time: a host whose think time is above zero waits that long before each
// answer (the echo module's echo_sleep, then the static file from an internal named location:
// the headers and body are those of the plain static file). No think time anywhere: the echo
// module is not loaded at all.
#ifndef TOOLS_LAB_NGINX_CONFIG_H_
#define TOOLS_LAB_NGINX_CONFIG_H_

#include <string>
#include <vector>

#include "net/base/time.h"

namespace netstack {

// Where Debian's libnginx-mod-http-echo installs the module.
inline constexpr char kNginxEchoModulePath[] = "/usr/lib/nginx/modules/ngx_http_echo_module.so";
// Debian's nginx-common: the Content-Type of each file extension.
inline constexpr char kNginxMimeTypesPath[] = "/etc/nginx/mime.types";

struct NginxHost {
  std::string name;     // the host name (server_name, and the certificate's subjectAltName)
  std::string address;  // the IPv4 address it listens on
  std::string root;     // the folder served
  std::string cert;     // its certificate (PEM)
  TimeDelta think_time{0};
};

struct NginxConfigParams {
  std::string work_dir;  // pid file, logs/, tmp/ go here (made by the caller)
  std::string server_key;
  std::string echo_module = kNginxEchoModulePath;  // loaded only if a host has think time
  std::string mime_types = kNginxMimeTypesPath;
  std::vector<NginxHost> hosts;
  bool http2 = true;
  int http_port = 80;
  int https_port = 443;
  // Running as root, nginx's worker would switch to "nobody", who may not read the site: the
  // worker stays root instead (the lab's server side is its own namespace).
  bool run_as_root = false;
};

// The open files nginx needs for a site of `hosts` hosts. The master opens two listening
// sockets per host before its worker starts, and some files for logs and certificates; the
// worker also holds its clients' connections and raises its own limit to this
// (worker_rlimit_nofile), which it can do up to the hard limit. Above the caller's soft limit the
// lab starts nginx through prlimit.
long long NginxMasterFileLimit(size_t hosts);
long long NginxWorkerFileLimit(size_t hosts);

// Think time as echo_sleep takes it: seconds with millisecond precision ("0.050"), rounded to
// the nearest millisecond (echo_sleep's own resolution).
std::string NginxSleepSeconds(TimeDelta think_time);

// The nginx.conf text for `params`. Run it with
//   nginx -p WORK/ -c WORK/nginx.conf -e WORK/logs/nginx-error.log
// (the configuration says `daemon off`). The access log WORK/logs/access.log has one
// tab-separated line per request: $msec $connection $connection_requests $request_time $status
// $host $server_addr $server_port $server_protocol $request_method $request_uri
// $body_bytes_sent $bytes_sent $ssl_protocol $ssl_session_reused.
std::string NginxConfigText(const NginxConfigParams& params);

}  // namespace netstack

#endif  // TOOLS_LAB_NGINX_CONFIG_H_
