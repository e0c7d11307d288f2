// `netstack fetch` options: parsed and validated here, used by FetchCommand. Kept apart from
// the running code so parsing is unit-tested without a network.
#ifndef TOOLS_NETSTACK_FETCH_OPTIONS_H_
#define TOOLS_NETSTACK_FETCH_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cache/backend.h"
#include "net/base/ip_address.h"
#include "net/base/url.h"
#include "net/http/http_transaction.h"
#include "net/http/url_request_context_builder.h"
#include "predictor/predictor_config.h"

namespace netstack {

struct FetchOptions {
  std::vector<std::string> url_texts;
  std::vector<Url> urls;  // parsed from url_texts by Validate
  std::vector<std::string> outputs;
  std::vector<std::string> header_lines;
  // Parsed from header_lines, -A, -e, -u and -d's Content-Type: one entry per name (a name
  // given again has its values joined, RFC 9110 section 5.3), in the order first given.
  std::vector<std::pair<std::string, std::string>> headers;
  // curl's -H 'Name:' (nothing after the colon): names netstack must not send of its own (its
  // default Accept, Accept-Encoding and User-Agent, and what -A, -e, -u or -d would add). A
  // value -H gives the same name is still sent. Never Host or Content-Length.
  std::vector<std::string> omitted_headers;
  // Any RFC 9110 token; empty: GET, or POST with -d, or HEAD with -I. Validate normalizes
  // the Fetch standard's six (DELETE, GET, HEAD, OPTIONS, POST, PUT) to upper case.
  std::string method;
  std::string data;
  bool head = false;
  int max_redirects = 20;
  bool no_follow = false;
  // curl's everyday flags (docs/fetch.md "curl's flags").
  std::string user_agent;   // -A: User-Agent, unless -H gave one
  std::string referer;      // -e: Referer, unless -H gave one
  std::string user;         // -u user:password: Basic Authorization, unless -H gave one
  std::string range;        // -r A-B | A- | -N: "Range: bytes=...", unless -H gave one
  bool location = false;    // -L: follow redirects (the default; conflicts with --no-follow)
  bool compressed = false;  // --compressed: accepted; gzip, deflate and br are always offered
  bool silent = false;      // -s: no record lines, no error lines (unless -S)
  bool show_error = false;  // -S: with -s, still the error lines
  bool include = false;     // -i: the response head before the body, where the body goes
  bool verbose = false;     // -v: connection, TLS, request and response lines on stderr
  // -w FORMAT or -w @FILE as given, and the format itself (FILE's text for @FILE) after
  // Validate; printed on stdout after each URL in place of the record line.
  std::string write_out_text;
  std::string write_out;
  bool insecure = false;
  // curl's HTTP version flags: at most one. Default (and --http2): h2 offered in ALPN on https,
  // HTTP/1.1 on http. --http1.1: HTTP/1.1 only. --http2-prior-knowledge: h2 on http too (h2c).
  bool http1_1 = false;
  bool http2 = false;
  bool http2_prior_knowledge = false;
  std::string cacert;
  std::vector<std::string> resolve_texts;
  std::vector<ResolveOverride> resolves;
  std::vector<std::string> dns_server_texts;
  std::vector<IPEndPoint> dns_servers;
  int dns_timeout_ms = 2000;
  int dns_tries = 2;
  int parallel = 1;
  int max_sockets_per_group = 6;
  int max_sockets = 256;
  double connect_timeout_s = 30;
  double timeout_s = 30;
  // curl's limits (docs/fetch.md "Time limits"): -m total seconds per URL (0: none); -Y bytes a
  // second (0: off; with -y alone, 1) sustained over -y seconds (default 30 with -Y alone); and
  // the deadline on a response's headers once the request is sent.
  double max_time_s = 0;
  std::string speed_limit_text;  // -Y as given; parsed into speed_limit by Validate
  int64_t speed_limit = 0;
  int speed_time_s = 0;  // 0: not given
  double headers_timeout_s = 300;
  uint64_t max_body = uint64_t{1} << 30;
  bool stale_dns = false;
  std::string netlog_path;
  bool json = false;
  // The cache (docs/fetch.md). profile_dir "" means the default (DefaultProfileDir()).
  std::string profile_dir;
  bool no_cache = false;      // no HTTP cache at all: every record says "bypass"
  bool private_mode = false;  // a MemoryBackend: nothing is read from or written to the profile
  std::string cache_size_text;
  int64_t cache_size = 0;           // parsed from cache_size_text; 0: the backend's default
  std::string cache_eviction_text;  // "" (not given) means lru
  EvictionPolicy cache_eviction = EvictionPolicy::kSizeWeightedLru;
  std::string cache_mode_text;  // --cache-mode as given; "" means default
  RequestCacheMode cache_mode = RequestCacheMode::kDefault;  // parsed by Validate
  // --page (docs/fetch.md "Page loads"): load one URL as a page, its subresources included.
  bool page = false;
  // --har FILE (docs/fetch.md "--har"): the fetches, or the --page load, as HAR 1.2 (a file, not
  // "-": stdout carries the records or the waterfall).
  std::string har_path;
  // --predictor off|chrome|loading|learned and --set-predictor KEY=VALUE, applied by Validate into
  // `predictor` (only with --page).
  std::string predictor_text;  // "" (not given) means learned
  std::vector<std::string> predictor_sets;
  PredictorConfig predictor;
  // --internals PORT (docs/internals.md): -1 without; 0 any free port. `netstack internals`
  // sets internals_command instead (it has no URLs).
  int internals_port = -1;
  bool internals_command = false;
  bool with_internals() const { return internals_port >= 0 || internals_command; }
};

// Cache size bounds for --cache-size (and `netstack cache`'s).
constexpr int64_t kMinCacheSize = 64 * 1024;
constexpr int64_t kMaxCacheSize = int64_t{1} << 40;
// DESIGN.md's defaults: 80 MiB on disk, 10 MiB in memory (--private).
constexpr int64_t kDefaultDiskCacheSize = 80 * 1024 * 1024;
constexpr int64_t kDefaultMemoryCacheSize = 10 * 1024 * 1024;

// The largest request body -d @FILE reads (ERR past it, exit 2).
constexpr int64_t kMaxRequestBodyBytes = 64 * 1024 * 1024;
// The longest method -X takes, and the largest -w format (@FILE included).
constexpr size_t kMaxMethodLength = 64;
constexpr int64_t kMaxWriteOutBytes = 64 * 1024;

// A CLI11 check for a number of seconds: a finite decimal number within [min, max] (no nan,
// inf, or overflow), else a one-line message naming the value and the range.
CLI::Validator FiniteSeconds(double min, double max);

// Reads -d @FILE's body: a readable file (not a directory) of at most max_bytes. False with a
// one-line message naming the path and the reason ("Is a directory", "over 64 MiB").
bool ReadRequestBodyFile(const std::string& path, int64_t max_bytes, std::string* body,
                         std::string* message);

// Parses --dns-server's IP[:PORT] ([IPv6]:PORT) strictly: a port, when given, is 1 to 65535
// ("IP:" and port 0 are errors, not port 53). False with a one-line message naming `text`.
bool ParseDnsServer(const std::string& text, IPEndPoint* out, std::string* message);

// Parses a size: decimal bytes with an optional suffix K, M, G (or KiB, MiB, GiB; any case;
// powers of 1024). False if `text` is malformed or above `max`; 0 is accepted.
bool ParseByteSize(const std::string& text, int64_t max, int64_t* bytes);

// Parses a size (ParseByteSize's syntax): decimal bytes with an optional suffix K, M, G (or KiB,
// MiB, GiB; any case; powers of 1024). Returns false with a one-line message naming `text` if it is
// malformed or outside [kMinCacheSize, kMaxCacheSize].
bool ParseCacheSize(const std::string& text, int64_t* bytes, std::string* message);

// Adds the fetch subcommand's flags to `cmd`, bound to `options` (AddStackOptions's included).
void AddFetchOptions(CLI::App* cmd, FetchOptions* options);
// The flags that shape the stack (TLS, DNS, pool limits, timeouts, NetLog, profile and cache,
// predictor), shared by `fetch` and `internals`.
void AddStackOptions(CLI::App* cmd, FetchOptions* options);

// Checks and converts what CLI11 cannot (URLs, headers, --resolve, --dns-server, -d @FILE,
// method). Returns false with a one-line message naming the bad value.
bool ValidateFetchOptions(FetchOptions* options, std::string* message);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_FETCH_OPTIONS_H_
