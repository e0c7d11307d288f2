#include "tools/lab/nginx_config.h"

#include <cstdio>
#include <sstream>

namespace netstack {
namespace {

// Connections nginx's worker may hold for clients, beyond its listening sockets (each listening
// socket takes one connection slot too).
constexpr int kClientConnections = 4096;

// A path in double quotes (the caller has refused paths with '"', '\\', '$' or controls).
std::string Q(const std::string& path) { return "\"" + path + "\""; }

}  // namespace

long long NginxMasterFileLimit(size_t hosts) { return 2LL * static_cast<long long>(hosts) + 64; }

long long NginxWorkerFileLimit(size_t hosts) {
  return NginxMasterFileLimit(hosts) + kClientConnections;
}

std::string NginxSleepSeconds(TimeDelta think_time) {
  const long long ms = (think_time.count() + 500) / 1000;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld.%03lld", ms / 1000, ms % 1000);
  return buf;
}

std::string NginxConfigText(const NginxConfigParams& p) {
  const std::string& w = p.work_dir;
  bool think = false;
  for (const NginxHost& h : p.hosts) think = think || NginxSleepSeconds(h.think_time) != "0.000";
  const long long connections = 2LL * static_cast<long long>(p.hosts.size()) + kClientConnections;
  std::ostringstream c;
  c << "# nginx for `netstack lab`: written by tools/lab/nginx_config.cc; remade for every lab.\n";
  if (think) c << "load_module " << Q(p.echo_module) << ";\n";
  if (p.run_as_root) c << "user root;\n";
  // The master stays in the foreground; its one worker serves (the worker, not a lone master,
  // applies worker_rlimit_nofile, which a site of thousands of hosts needs).
  c << "daemon off;\n"
    << "master_process on;\n"
    << "worker_processes 1;\n"
    << "worker_rlimit_nofile " << NginxWorkerFileLimit(p.hosts.size()) << ";\n"
    << "pid " << Q(w + "/nginx.pid") << ";\n"
    << "error_log " << Q(w + "/logs/nginx-error.log") << " notice;\n"
    << "events { worker_connections " << connections << "; }\n"
    << "http {\n"
    << "  include " << Q(p.mime_types) << ";\n"
    << "  default_type application/octet-stream;\n"
    << "  log_format lab '$msec\\t$connection\\t$connection_requests\\t$request_time\\t$status\\t"
       "$host\\t$server_addr\\t$server_port\\t$server_protocol\\t$request_method\\t"
       "$request_uri\\t$body_bytes_sent\\t$bytes_sent\\t$ssl_protocol\\t$ssl_session_reused';\n"
    << "  access_log " << Q(w + "/logs/access.log") << " lab;\n"
    << "  client_body_temp_path " << Q(w + "/tmp/body") << ";\n"
    << "  proxy_temp_path " << Q(w + "/tmp/proxy") << ";\n"
    << "  fastcgi_temp_path " << Q(w + "/tmp/fastcgi") << ";\n"
    << "  uwsgi_temp_path " << Q(w + "/tmp/uwsgi") << ";\n"
    << "  scgi_temp_path " << Q(w + "/tmp/scgi") << ";\n"
    << "  sendfile on;\n"
    << "  tcp_nodelay on;\n"
    << "  server_tokens off;\n"
    << "  gzip off;\n"
    << "  keepalive_timeout 75s;\n"
    << "  keepalive_requests 1000;\n"
    << "  server_names_hash_bucket_size 256;\n"
    << "  ssl_certificate_key " << Q(p.server_key) << ";\n"
    << "  ssl_protocols TLSv1.2 TLSv1.3;\n"
    << "  ssl_session_cache shared:lab:10m;\n"
    << "  ssl_session_timeout 10m;\n";
  // nginx 1.22 (Debian bookworm) turns HTTP/2 on per listen socket.
  const std::string ssl = p.http2 ? " ssl http2;\n" : " ssl;\n";
  for (const NginxHost& h : p.hosts) {
    const std::string sleep = NginxSleepSeconds(h.think_time);
    c << "  server {\n"
      << "    listen " << h.address << ":" << p.http_port << ";\n"
      << "    listen " << h.address << ":" << p.https_port << ssl << "    server_name " << h.name
      << ";\n"
      << "    ssl_certificate " << Q(h.cert) << ";\n"
      << "    root " << Q(h.root) << ";\n";
    if (sleep == "0.000") {
      c << "    location / { }\n";
    } else {
      // The wait, then the file from a named location. try_files serves a folder's index.html
      // in place (the index module would redirect back into `location /` and wait twice); what
      // it does not find, @plain answers as the plain location would (301 for a folder without
      // its slash, 403 for a folder without index.html, 404).
      c << "    location / {\n"
        << "      echo_sleep " << sleep << ";\n"
        << "      echo_exec @file;\n"
        << "    }\n"
        << "    location @file { try_files $uri $uri/index.html @plain; }\n"
        << "    location @plain { }\n";
    }
    c << "  }\n";
  }
  c << "}\n";
  return c.str();
}

}  // namespace netstack
