#include "tools/netstack/fetch_options.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "net/base/net_error.h"
#include "net/base/string_util.h"
#include "tools/netstack/fetch_curl_flags.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {
namespace {

// curl's -H 'Name:' with nothing (or only blanks) after the colon: "do not send Name", where
// 'Name;' is Name with an empty value. The line already parsed (ParseHeaderLine).
bool IsOmission(const std::string& line) {
  const size_t colon = line.find(':');
  return colon != std::string::npos &&
         line.find_first_not_of(" \t", colon + 1) == std::string::npos;
}

// Host and Content-Length frame the request: without them HTTP/1.1 has no target host or no
// body boundary (curl would send the broken request; netstack refuses it).
bool CheckOmission(const std::string& name, std::string* message) {
  for (const char* framing : {"Host", "Content-Length"}) {
    if (!EqualsCaseInsensitiveAscii(name, framing)) continue;
    *message = "bad header \"" + name + ":\": netstack always sends " + framing +
               " (the request is framed by it); give it a value instead";
    return false;
  }
  return true;
}

bool HasName(const std::vector<std::string>& names, const std::string& name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return EqualsCaseInsensitiveAscii(n, name); });
}

bool ParseResolve(const std::string& text, ResolveOverride* out, std::string* message) {
  // HOST:PORT:ADDR, where ADDR may be an IPv6 literal with or without brackets.
  size_t first = text.find(':');
  size_t second = first == std::string::npos ? first : text.find(':', first + 1);
  if (second == std::string::npos) {
    *message = "bad --resolve \"" + text + "\": expected HOST:PORT:ADDR";
    return false;
  }
  std::string host = text.substr(0, first);
  std::string port_text = text.substr(first + 1, second - first - 1);
  std::string addr = text.substr(second + 1);
  if (addr.size() > 2 && addr.front() == '[' && addr.back() == ']')
    addr = addr.substr(1, addr.size() - 2);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  auto ip = IPAddress::Parse(addr);
  if (host.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port == 0 || port > 65535 || !ip) {
    *message = "bad --resolve \"" + text +
               "\": expected HOST:PORT:ADDR with a numeric port "
               "and an IP address";
    return false;
  }
  host = ToLowerAscii(host);
  *out = {host, static_cast<uint16_t>(port), *ip};
  return true;
}

// "0.001", "86400": a bound as the messages print it.
std::string FormatBound(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

}  // namespace

CLI::Validator FiniteSeconds(double min, double max) {
  const std::string range = "from " + FormatBound(min) + " to " + FormatBound(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(begin, &end);
        // The whole text, no leading space, no overflow or underflow, no nan or inf.
        const bool number = !text.empty() && !std::isspace(static_cast<unsigned char>(text[0])) &&
                            end == begin + text.size() && errno != ERANGE && std::isfinite(value);
        if (number && value >= min && value <= max) return std::string();
        return "\"" + TerminalSafe(text) + "\" is not a number of seconds " + range;
      },
      "SECONDS " + range);
}

bool ReadRequestBodyFile(const std::string& path, int64_t max_bytes, std::string* body,
                         std::string* message) {
  const std::string named = "cannot read -d file \"" + TerminalSafe(path) + "\": ";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *message = named + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    *message = named + (S_ISDIR(st.st_mode) ? std::strerror(EISDIR) : std::strerror(errno));
    close(fd);
    return false;
  }
  // Read to the end (a pipe or device has no size to trust), never past the bound.
  std::string data;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *message = named + std::strerror(errno);
      close(fd);
      return false;
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (static_cast<int64_t>(data.size()) > max_bytes) {
      *message = named + "over " + std::to_string(max_bytes / (1024 * 1024)) +
                 " MiB (the bound on a request body)";
      close(fd);
      return false;
    }
  }
  close(fd);
  *body = std::move(data);
  return true;
}

bool ParseDnsServer(const std::string& text, IPEndPoint* out, std::string* message) {
  const std::string named = "bad --dns-server \"" + TerminalSafe(text) + "\": ";
  std::optional<IPEndPoint> endpoint = IPEndPoint::Parse(text, 53);
  if (!endpoint) {
    *message = named + "expected IP or IP:PORT ([IPv6]:PORT) with a port from 1 to 65535";
    return false;
  }
  // IPEndPoint::Parse takes "IP:" as the default port, and port 0 as given: neither is a server.
  if (text.back() == ':' || endpoint->port() == 0) {
    *message = named + "the port must be 1 to 65535";
    return false;
  }
  *out = *endpoint;
  return true;
}

bool ParseByteSize(const std::string& text, int64_t max, int64_t* bytes) {
  uint64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data()) return false;
  const std::string suffix = ToLowerAscii(std::string_view(end, text.data() + text.size() - end));
  int shift = 0;
  if (suffix.empty() || suffix == "b") {
    shift = 0;
  } else if (suffix == "k" || suffix == "kib") {
    shift = 10;
  } else if (suffix == "m" || suffix == "mib") {
    shift = 20;
  } else if (suffix == "g" || suffix == "gib") {
    shift = 30;
  } else {
    return false;
  }
  // Checked before shifting so a huge number cannot wrap into the valid range.
  if (number > (static_cast<uint64_t>(max) >> shift)) return false;
  *bytes = static_cast<int64_t>(number << shift);
  return true;
}

bool ParseCacheSize(const std::string& text, int64_t* bytes, std::string* message) {
  int64_t value = 0;
  if (!ParseByteSize(text, kMaxCacheSize, &value) || value < kMinCacheSize) {
    *message = "bad --cache-size \"" + text + "\": expected bytes with an optional K, M or G " +
               "suffix (KiB, MiB, GiB), from 64K to 1024G";
    return false;
  }
  *bytes = value;
  return true;
}

void AddFetchOptions(CLI::App* cmd, FetchOptions* o) {
  // Repeatable options take one value per use (curl's way); without allow_extra_args(false)
  // CLI11 would let them swallow the URLs that follow.
  cmd->add_option("url", o->url_texts, "URLs to fetch, in order")->required();
  cmd->add_option("-o,--output", o->outputs, "write the n-th URL's body to FILE (- = stdout)")
      ->allow_extra_args(false);
  cmd->add_option("-H,--header", o->header_lines,
                  "extra request header 'Name: value' ('Name;': empty value; 'Name:': do not send "
                  "netstack's own Name, e.g. Accept; a name given again is joined with commas)")
      ->allow_extra_args(false);
  cmd->add_option("-X,--request", o->method,
                  "request method: any token (GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, ...)");
  cmd->add_option("-d,--data", o->data,
                  "request body (POST unless -X; form Content-Type unless -H); @FILE reads FILE");
  cmd->add_flag("-I,--head", o->head, "HEAD request");
  cmd->add_option("-A,--user-agent", o->user_agent, "User-Agent to send");
  cmd->add_option("-e,--referer", o->referer, "Referer to send");
  cmd->add_option("-u,--user", o->user, "user:password for Basic authentication");
  cmd->add_option("-r,--range", o->range, kRangeFlagHelp);
  cmd->add_option("--max-redirs", o->max_redirects, "follow at most N redirects")
      ->check(CLI::Range(0, 20));
  CLI::Option* no_follow = cmd->add_flag("--no-follow", o->no_follow, "do not follow redirects");
  cmd->add_flag("-L,--location", o->location,
                "follow redirects (the default, accepted for curl's sake)")
      ->excludes(no_follow);
  cmd->add_flag("--compressed", o->compressed,
                "accepted for curl's sake: gzip, deflate and br are always offered and decoded");
  cmd->add_flag("-s,--silent", o->silent, "no record lines and no error lines (see -S)");
  cmd->add_flag("-S,--show-error", o->show_error, "with -s, still print the error lines");
  cmd->add_flag("-i,--include", o->include,
                "write the response's status line and headers before its body");
  cmd->add_flag("-v,--verbose", o->verbose,
                "print connection and TLS (*), request (>) and response (<) lines on stderr");
  cmd->add_option("-w,--write-out", o->write_out_text,
                  "after each URL print FORMAT (curl's %{variables}; @FILE reads it) instead of "
                  "the record line");
  cmd->add_option("--parallel", o->parallel, "fetches in flight at once")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--json", o->json, "one JSON object per line per URL");
  cmd->add_flag("--page", o->page,
                "load the URL as a page: the document, then its subresources; print a waterfall");
  cmd->add_option("--cache-mode", o->cache_mode_text,
                  "how the cache may answer (Fetch's modes): default, no-store, reload, no-cache, "
                  "force-cache or only-if-cached (with --page: every request of the page; not "
                  "only-if-cached)");
  cmd->add_option("--har", o->har_path,
                  "write the fetches (or the --page load) as HAR 1.2 to FILE");
  cmd->add_option("--internals", o->internals_port,
                  "serve the internals page for this stack on 127.0.0.1:PORT (0: any free "
                  "port) while fetching, and after until Quit or Ctrl-C")
      ->check(CLI::Range(0, 65535));
  AddStackOptions(cmd, o);
}

void AddStackOptions(CLI::App* cmd, FetchOptions* o) {
  cmd->add_flag("-k,--insecure", o->insecure, "do not verify the server's certificate");
  CLI::Option* h11 = cmd->add_flag("--http1.1", o->http1_1, "speak HTTP/1.1 only (no h2 in ALPN)");
  CLI::Option* h2 =
      cmd->add_flag("--http2", o->http2, "offer h2 over TLS, HTTP/1.1 on http:// (the default)");
  CLI::Option* h2pk = cmd->add_flag("--http2-prior-knowledge", o->http2_prior_knowledge,
                                    "speak h2 from the first byte on http:// URLs too (h2c)");
  h11->excludes(h2)->excludes(h2pk);
  h2->excludes(h2pk);
  cmd->add_option("--cacert", o->cacert, "trust the CAs in this PEM file")
      ->check(CLI::ExistingFile);
  cmd->add_option("--resolve", o->resolve_texts, "HOST:PORT:ADDR, skip DNS for HOST:PORT")
      ->allow_extra_args(false);
  cmd->add_option("--dns-server", o->dns_server_texts, "DNS server IP[:PORT]")
      ->allow_extra_args(false);
  cmd->add_option("--dns-timeout", o->dns_timeout_ms, "first DNS timeout in ms")
      ->check(CLI::Range(10, 60000));
  cmd->add_option("--dns-tries", o->dns_tries, "DNS attempts per server")->check(CLI::Range(1, 10));
  cmd->add_option("--max-sockets-per-group", o->max_sockets_per_group,
                  "socket pool limit per {scheme, host, port}")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--max-sockets", o->max_sockets, "socket pool limit in all")
      ->check(CLI::Range(1, 65536));
  cmd->add_option("--connect-timeout", o->connect_timeout_s, "connect timeout in seconds")
      ->check(FiniteSeconds(0.001, 3600));
  cmd->add_option("--timeout", o->timeout_s, "fail a fetch idle for this many seconds")
      ->check(FiniteSeconds(0.001, 86400));
  cmd->add_option("-m,--max-time", o->max_time_s,
                  "fail a fetch not done in this many seconds, redirects included (0: no limit)")
      ->check(FiniteSeconds(0, 86400));
  cmd->add_option("-Y,--speed-limit", o->speed_limit_text,
                  "fail a fetch slower than BYTES a second (K, M, G suffixes) for --speed-time");
  cmd->add_option("-y,--speed-time", o->speed_time_s,
                  "seconds a fetch may stay under --speed-limit (default 30; limit 1 if not given)")
      ->check(CLI::Range(1, 86400));
  cmd->add_option("--headers-timeout", o->headers_timeout_s,
                  "fail a response whose headers are not complete this many seconds after the "
                  "request was sent (default 300)")
      ->check(FiniteSeconds(0.001, 86400));
  cmd->add_option("--max-body", o->max_body, "largest decoded body in bytes")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 40));
  cmd->add_flag("--stale-dns", o->stale_dns, "serve expired DNS entries while refreshing");
  cmd->add_option("--netlog", o->netlog_path, "write Chrome's NetLog JSON to FILE");
  cmd->add_option("--profile", o->profile_dir,
                  "profile directory (disk cache); default $XDG_CACHE_HOME/netstack");
  cmd->add_flag("--no-cache", o->no_cache, "no HTTP cache: every fetch goes to the network");
  cmd->add_flag("--private", o->private_mode, "an in-memory cache; nothing written to the profile");
  cmd->add_option("--cache-size", o->cache_size_text,
                  "cache size limit: bytes, or with a K/M/G suffix (default: from the free disk "
                  "space, at most 320M; 10M --private)")
      ->check([](const std::string& s) { return s.empty() ? std::string("empty size") : ""; });
  cmd->add_option("--cache-eviction", o->cache_eviction_text, "eviction ranking: lru or frequency");
  cmd->add_option(
      "--predictor", o->predictor_text,
      "with --page or --internals: the predictor's policy, off, chrome, loading or learned "
      "(default learned)");
  cmd->add_option("--set-predictor", o->predictor_sets,
                  "with --page or --internals: a predictor setting KEY=VALUE (repeatable; "
                  "docs/fetch.md)")
      ->allow_extra_args(false);
}

namespace {

bool ValidateLimitOptions(FetchOptions* o, std::string* message) {
  o->speed_limit = 0;
  if (!o->speed_limit_text.empty() &&
      !ParseByteSize(o->speed_limit_text, int64_t{1} << 40, &o->speed_limit)) {
    *message = "bad --speed-limit \"" + TerminalSafe(o->speed_limit_text) +
               "\": expected bytes a second with an optional K, M or G suffix, at most 1024G";
    return false;
  }
  // curl: -y alone means a limit of 1 byte a second; -Y alone a time of 30 s.
  if (o->speed_limit_text.empty() && o->speed_time_s > 0) o->speed_limit = 1;
  return true;
}

// --page's own rules, and the predictor's settings.
bool ValidatePageOptions(FetchOptions* o, std::string* message) {
  if (o->har_path == "-") {
    *message = "--har needs a file name, not - (stdout carries the fetches' lines)";
    return false;
  }
  // The predictor acts on page loads: those of --page, and those of the internals page's fetch
  // box (--internals, and `netstack internals`).
  if (!o->page && !o->with_internals()) {
    if (!o->predictor_text.empty() || !o->predictor_sets.empty()) {
      *message = std::string(o->predictor_text.empty() ? "--set-predictor" : "--predictor") +
                 " needs --page (the predictor acts on page loads) or --internals";
      return false;
    }
    // -e: the referring page "loaded" the URL, and the learned predictor learns it (fetch_command).
    o->predictor = PredictorConfig();
    if (!o->referer.empty()) o->predictor.policy = "learned";
    return true;
  }
  if (o->page && o->urls.size() != 1) {
    *message = "--page loads one URL (" + std::to_string(o->urls.size()) + " given)";
    return false;
  }
  if (o->page && (!o->outputs.empty() || o->method != "GET")) {
    *message = std::string("--page conflicts with ") +
               (!o->outputs.empty() ? "-o"
                : o->head           ? "-I"
                : !o->data.empty()  ? "-d"
                                    : "-X") +
               " (a page load GETs the document and its subresources)";
    return false;
  }
  o->predictor = PredictorConfig();
  const std::string policy = o->predictor_text.empty() ? "learned" : o->predictor_text;
  if (policy != "off" && policy != "chrome" && policy != "loading" && policy != "learned") {
    *message = "bad --predictor \"" + policy + "\": expected off, chrome, loading or learned";
    return false;
  }
  o->predictor.policy = policy;
  for (const std::string& set : o->predictor_sets) {
    size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      *message = "bad --set-predictor \"" + set + "\": expected KEY=VALUE";
      return false;
    }
    std::string key = set.substr(0, eq);
    // replay's spelling (predictor_KEY) is accepted too.
    if (key.rfind("predictor_", 0) == 0) key = key.substr(10);
    std::string error;
    if (key == "policy" || key == "predictor") {
      *message = "bad --set-predictor \"" + set + "\": choose the policy with --predictor";
      return false;
    }
    if (!o->predictor.Set(key, set.substr(eq + 1), &error)) {
      *message = "bad --set-predictor \"" + set + "\": " + error;
      return false;
    }
  }
  return true;
}

}  // namespace

bool ValidateFetchOptions(FetchOptions* o, std::string* message) {
  o->urls.clear();
  for (const std::string& text : o->url_texts) {
    Url url;
    if (Url::Parse(text, &url, message) != OK) return false;
    o->urls.push_back(std::move(url));
  }
  if (o->outputs.size() > o->urls.size()) {
    *message = "more -o outputs (" + std::to_string(o->outputs.size()) + ") than URLs (" +
               std::to_string(o->urls.size()) + ")";
    return false;
  }
  o->headers.clear();
  o->omitted_headers.clear();
  for (const std::string& line : o->header_lines) {
    std::pair<std::string, std::string> header;
    if (!ParseHeaderLine(line, &header, message)) return false;
    if (IsOmission(line)) {
      if (!CheckOmission(header.first, message)) return false;
      if (!HasName(o->omitted_headers, header.first)) o->omitted_headers.push_back(header.first);
      continue;
    }
    AddOrJoinHeader(&o->headers, header.first, header.second);
  }
  // Names -H gave a value: an omission does not take them back (curl sends them too).
  std::vector<std::string> given;
  for (const auto& header : o->headers) given.push_back(header.first);
  if (!ValidateCurlOptions(o, message)) return false;
  o->resolves.clear();
  for (const std::string& text : o->resolve_texts) {
    ResolveOverride r;
    if (!ParseResolve(text, &r, message)) return false;
    o->resolves.push_back(r);
  }
  o->dns_servers.clear();
  for (const std::string& text : o->dns_server_texts) {
    IPEndPoint endpoint;
    if (!ParseDnsServer(text, &endpoint, message)) return false;
    o->dns_servers.push_back(endpoint);
  }
  if (!o->data.empty() && o->data.front() == '@') {
    std::string body;
    if (!ReadRequestBodyFile(o->data.substr(1), kMaxRequestBodyBytes, &body, message)) {
      return false;
    }
    o->data = std::move(body);
  }
  if (!ValidateLimitOptions(o, message)) return false;
  if (o->method.empty()) {
    o->method = o->head ? "HEAD" : !o->data.empty() ? "POST" : "GET";
  } else if (!NormalizeMethod(o->method, &o->method, message)) {
    return false;
  }
  // curl's -d: a form body unless the user said what it is.
  if (!o->data.empty() && !HasRequestHeader(o->headers, "Content-Type"))
    o->headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  // -H 'Name:' wins over what netstack would add itself (-A, -e, -u, -d's Content-Type).
  o->headers.erase(std::remove_if(o->headers.begin(), o->headers.end(),
                                  [&](const auto& h) {
                                    return HasName(o->omitted_headers, h.first) &&
                                           !HasName(given, h.first);
                                  }),
                   o->headers.end());
  if (o->json && std::find(o->outputs.begin(), o->outputs.end(), "-") != o->outputs.end()) {
    *message = "--json and -o - both want stdout: write the body to a file";
    return false;
  }
  if (o->head && o->method != "HEAD") {
    *message = "-I conflicts with -X " + o->method;
    return false;
  }
  if (o->no_cache && o->private_mode) {
    *message = "--no-cache conflicts with --private (an in-memory cache)";
    return false;
  }
  if (o->no_cache && (!o->cache_size_text.empty() || !o->cache_eviction_text.empty())) {
    *message = std::string(o->cache_size_text.empty() ? "--cache-eviction" : "--cache-size") +
               " conflicts with --no-cache (there is no cache to size or evict)";
    return false;
  }
  o->cache_size = 0;
  if (!o->cache_size_text.empty() && !ParseCacheSize(o->cache_size_text, &o->cache_size, message))
    return false;
  if (!ParseEvictionPolicy(o->cache_eviction_text.empty() ? "lru" : o->cache_eviction_text,
                           &o->cache_eviction)) {
    *message = "bad --cache-eviction \"" + o->cache_eviction_text + "\": expected lru or frequency";
    return false;
  }
  o->cache_mode = RequestCacheMode::kDefault;
  if (!o->cache_mode_text.empty() && !ParseRequestCacheMode(o->cache_mode_text, &o->cache_mode)) {
    *message = "bad --cache-mode \"" + TerminalSafe(o->cache_mode_text) +
               "\": expected default, no-store, reload, no-cache, force-cache or only-if-cached";
    return false;
  }
  if (o->no_cache && o->cache_mode != RequestCacheMode::kDefault) {
    *message =
        "--cache-mode " + o->cache_mode_text + " conflicts with --no-cache (there is no cache)";
    return false;
  }
  // --page gives its mode to the document and every subresource (a browser's reload does).
  // only-if-cached is not a page load: the Fetch standard allows it only for same-origin
  // requests (a page's cross-origin subresources would all fail), and the predictor's
  // preconnects would reach the network anyway.
  if (o->page && o->cache_mode == RequestCacheMode::kOnlyIfCached) {
    *message =
        "--cache-mode only-if-cached conflicts with --page (the Fetch standard allows it for "
        "same-origin requests only; fetch the URLs without --page)";
    return false;
  }
  return ValidatePageOptions(o, message);
}

}  // namespace netstack
