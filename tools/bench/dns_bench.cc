// dns_bench: resolves N distinct names through the live HostResolverManager (c-ares on a libuv
// loop, assembled as net/http/live_stack.cc assembles it for `netstack fetch`) against one
// DNS server, keeping a fixed number of requests in flight, and checks every answer.
// tools/bench/dns-bench runs it beside dnsperf against a local nsd. A measurement program, not a
// test: it never fails on a timing, only on wrong answers or bad input.
//
// The names file has one "NAME ADDRESS" pair per line (the address the server must answer for
// NAME's A record). Output: a one-line summary, or with --json one JSON object:
//   {"queries", "jobs", "ok", "wrong", "errors", "seconds", "cpu_us_per_query", "qps",
//    "latency_us": {"p50", "p99", "max"}, "concurrency", "family", "first_error"}
// cpu_us_per_query: this process's user + system CPU while resolving, per query.
// "queries" counts DNS questions (one per name with --family v4, two with --family both).
#include <sys/resource.h>
#include <uv.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/uv_scheduler.h"
#include "net/dns/ares_dns_transport.h"
#include "net/dns/host_resolver_manager.h"

namespace netstack {
namespace {

using Clock = std::chrono::steady_clock;

struct Name {
  std::string host;
  IPAddress expected;
};

// Reads "NAME ADDRESS" lines. Returns false with a one-line message naming the file and line.
bool ReadNames(const std::string& path, std::vector<Name>* names, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read names file " + path;
    return false;
  }
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    std::istringstream fields(line);
    std::string host, address;
    if (!(fields >> host)) continue;  // Blank line.
    std::optional<IPAddress> parsed;
    if (fields >> address) parsed = IPAddress::Parse(address);
    if (!parsed) {
      *error = path + ":" + std::to_string(line_no) + ": expected \"NAME ADDRESS\"";
      return false;
    }
    names->push_back({host, *parsed});
  }
  if (names->empty()) {
    *error = "names file " + path + " has no names";
    return false;
  }
  return true;
}

// User + system CPU time of this process so far. On a shared machine this, not wall time, says
// what a query costs the client.
double CpuSeconds() {
  rusage usage = {};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct Result {
  size_t ok = 0;
  size_t wrong = 0;
  size_t errors = 0;
  std::string first_error;
  double seconds = 0;
  double cpu_seconds = 0;  // User + system CPU of this process while the names were resolved.
  std::vector<double> latencies_us;
};

// Keeps `concurrency` requests in flight until every name has been asked once.
class Driver {
 public:
  Driver(HostResolverManager* resolver, NetLog* net_log, const std::vector<Name>& names,
         size_t concurrency, uv_loop_t* loop)
      : resolver_(resolver),
        net_log_(net_log),
        names_(names),
        concurrency_(concurrency),
        loop_(loop),
        requests_(names.size()),
        started_at_(names.size()) {
    result_.latencies_us.reserve(names.size());
  }

  void Run() {
    const double cpu_before = CpuSeconds();
    begin_ = Clock::now();
    for (size_t i = 0; i < concurrency_ && next_ < names_.size(); ++i) StartNext();
    if (done_ < names_.size()) uv_run(loop_, UV_RUN_DEFAULT);
    result_.seconds = std::chrono::duration<double>(end_ - begin_).count();
    result_.cpu_seconds = CpuSeconds() - cpu_before;
  }

  const Result& result() const { return result_; }

 private:
  void StartNext() {
    const size_t index = next_++;
    started_at_[index] = Clock::now();
    requests_[index] =
        resolver_->CreateRequest(names_[index].host, 80, MEDIUM,
                                 NetLogWithSource::Make(net_log_, NetLogSourceType::CONNECT_JOB));
    int rv = requests_[index]->Start([this, index](int error) { OnDone(index, error); });
    if (rv != ERR_IO_PENDING) OnDone(index, rv);
  }

  void OnDone(size_t index, int error) {
    const Clock::time_point now = Clock::now();
    result_.latencies_us.push_back(
        std::chrono::duration<double, std::micro>(now - started_at_[index]).count());
    const Name& name = names_[index];
    if (error != OK) {
      ++result_.errors;
      if (result_.first_error.empty()) {
        std::string detail = requests_[index]->error_detail();
        result_.first_error =
            name.host + ": " + ErrorToString(error) + (detail.empty() ? "" : " (" + detail + ")");
      }
    } else {
      bool found = false;
      for (const IPEndPoint& endpoint : requests_[index]->addresses())
        found = found || endpoint.address() == name.expected;
      if (found) {
        ++result_.ok;
      } else {
        ++result_.wrong;
        if (result_.first_error.empty())
          result_.first_error = name.host + ": answer lacks " + name.expected.ToString();
      }
    }
    // Allowed from the request's own callback (RequestImpl::OnJobComplete); frees it as a
    // caller that is done with its answer would.
    requests_[index].reset();
    ++done_;
    if (next_ < names_.size()) {
      StartNext();
    } else if (done_ == names_.size()) {
      end_ = now;
      uv_stop(loop_);
    }
  }

  HostResolverManager* resolver_;
  NetLog* net_log_;
  const std::vector<Name>& names_;
  const size_t concurrency_;
  uv_loop_t* loop_;
  std::vector<std::unique_ptr<HostResolver::Request>> requests_;
  std::vector<Clock::time_point> started_at_;
  size_t next_ = 0;
  size_t done_ = 0;
  Clock::time_point begin_;
  Clock::time_point end_;
  Result result_;
};

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(rank, values.size() - 1)];
}

int Main(int argc, char** argv) {
  CLI::App app{"Resolves names through netstack's live HostResolver at a fixed concurrency."};
  std::string server_text;
  std::string names_path;
  size_t concurrency = 6;
  std::string family_text = "v4";
  int timeout_ms = 2000;
  int tries = 2;
  bool json = false;
  app.add_option("--server", server_text, "DNS server IP:PORT")->required();
  app.add_option("--names", names_path, "file of \"NAME ADDRESS\" lines")->required();
  app.add_option("--concurrency,-c", concurrency,
                 "requests in flight, also the resolver's max_concurrent_jobs (the default 6 "
                 "is HostResolverManager's own limit)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--family", family_text, "v4 (A only, as dnsperf asks) or both (AAAA and A)")
      ->check(CLI::IsMember({"v4", "both"}));
  app.add_option("--dns-timeout", timeout_ms, "c-ares first-try timeout, ms")
      ->check(CLI::Range(1, 3600000));
  app.add_option("--dns-tries", tries, "c-ares tries")->check(CLI::Range(1, 100));
  app.add_flag("--json", json, "print one JSON object");
  CLI11_PARSE(app, argc, argv);

  std::optional<IPEndPoint> server = IPEndPoint::Parse(server_text, 53);
  if (!server) {
    std::fprintf(stderr, "dns_bench: bad --server \"%s\": expected IP:PORT\n", server_text.c_str());
    return 2;
  }
  std::vector<Name> names;
  std::string error;
  if (!ReadNames(names_path, &names, &error)) {
    std::fprintf(stderr, "dns_bench: %s\n", error.c_str());
    return 2;
  }

  uv_loop_t loop;
  uv_loop_init(&loop);
  Result result;
  {
    UvScheduler scheduler(&loop);
    NetLog net_log(scheduler);
    AresDnsTransport::Options dns;
    dns.servers = {*server};
    dns.timeout = Milliseconds(timeout_ms);
    dns.tries = tries;
    dns.use_search_domains = false;  // As `netstack fetch --dns-server`.
    auto transport = AresDnsTransport::Create(&loop, scheduler, dns, &error);
    if (!transport) {
      std::fprintf(stderr, "dns_bench: %s\n", error.c_str());
      return 2;
    }
    HostResolverManager::Config config;
    config.max_concurrent_jobs = concurrency;
    config.max_queued_jobs = std::max(config.max_queued_jobs, concurrency);
    config.family = family_text == "v4" ? AddressFamily::kIPv4 : AddressFamily::kUnspecified;
    HostResolverManager resolver(scheduler, std::move(transport), &net_log, config);
    Driver driver(&resolver, &net_log, names, concurrency, &loop);
    driver.Run();
    result = driver.result();
  }
  // Close callbacks free the handles; then the loop closes.
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);

  const size_t queries_per_name = family_text == "v4" ? 1 : 2;
  const size_t queries = names.size() * queries_per_name;
  const double qps = result.seconds > 0 ? static_cast<double>(queries) / result.seconds : 0;
  const double p50 = Percentile(result.latencies_us, 0.5);
  const double p99 = Percentile(result.latencies_us, 0.99);
  const double max = Percentile(result.latencies_us, 1.0);
  const double cpu_us_per_query = result.cpu_seconds * 1e6 / static_cast<double>(queries);
  if (json) {
    nlohmann::json out = {
        {"queries", queries},
        {"jobs", names.size()},
        {"ok", result.ok},
        {"wrong", result.wrong},
        {"errors", result.errors},
        {"seconds", result.seconds},
        {"cpu_us_per_query", cpu_us_per_query},
        {"qps", qps},
        {"latency_us", {{"p50", p50}, {"p99", p99}, {"max", max}}},
        {"concurrency", concurrency},
        {"family", family_text},
        {"first_error", result.first_error},
    };
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf(
        "%zu names (%zu queries) at concurrency %zu: %.3f s, %.0f queries/s, latency p50 %.0f us "
        "p99 %.0f us, %.1f CPU-us/query; ok %zu wrong %zu errors %zu%s%s\n",
        names.size(), queries, concurrency, result.seconds, qps, p50, p99, cpu_us_per_query,
        result.ok, result.wrong, result.errors,
        result.first_error.empty() ? "" : "; first: ", result.first_error.c_str());
  }
  return result.ok == names.size() ? 0 : 1;
}

}  // namespace
}  // namespace netstack

int main(int argc, char** argv) { return netstack::Main(argc, argv); }
