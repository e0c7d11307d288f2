#include "tests/integration/cache_test_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>

#include "tests/support/temp_dir.h"

namespace netstack::test {

CacheOrigin::CacheOrigin() {
  server_.set_handler([this](const FaultHttpServer::Request& r) { return Answer(r); });
}

void CacheOrigin::Set(const std::string& path, Resource resource) {
  std::lock_guard<std::mutex> lock(mutex_);
  resources_[path] = std::move(resource);
}

std::vector<FaultHttpServer::Request> CacheOrigin::Requests(const std::string& path) const {
  std::vector<FaultHttpServer::Request> out;
  for (const FaultHttpServer::Request& r : server_.requests()) {
    if (r.path == path) out.push_back(r);
  }
  return out;
}

std::optional<std::string> CacheOrigin::Answer(const FaultHttpServer::Request& request) {
  Resource r;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = resources_.find(request.path);
    if (it == resources_.end()) return std::nullopt;
    r = it->second;
  }
  if (request.method == "POST") {
    return FaultHttpServer::Response("200 OK", {"Content-Type: text/plain"}, "posted\n");
  }
  std::vector<std::string> headers = r.headers;
  headers.push_back("Date: " + HttpDate());
  if (!r.etag.empty()) headers.push_back("ETag: " + r.etag);
  if (!r.last_modified.empty()) headers.push_back("Last-Modified: " + r.last_modified);
  if (r.vary_language) headers.push_back("Vary: Accept-Language");
  std::string inm = request.Header("if-none-match");
  std::string ims = request.Header("if-modified-since");
  bool not_modified = (!r.etag.empty() && inm.find(r.etag) != std::string::npos) ||
                      (inm.empty() && !r.last_modified.empty() && ims == r.last_modified);
  if (not_modified) {
    // No Content-Length: a 304 has no body, and its framing headers are not the stored one's.
    std::string head = "HTTP/1.1 304 Not Modified\r\nServer: netstack-cache-origin\r\n";
    for (const std::string& h : headers) head += h + "\r\n";
    return head + "\r\n";
  }
  std::string body = r.body;
  if (r.vary_language) body += "\nlang=" + request.Header("accept-language");
  return FaultHttpServer::Response(r.status, headers, body);
}

std::string HttpDate(long long unix_seconds) {
  time_t t = unix_seconds < 0 ? std::time(nullptr) : static_cast<time_t>(unix_seconds);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

NetstackRun RunCache(const std::vector<std::string>& args, const std::string& profile) {
  std::vector<std::string> full = {"cache"};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--profile");
  full.push_back(profile);
  return RunNetstack(full);
}

NetstackRun FetchWithProfile(const std::string& profile, const std::vector<std::string>& args) {
  return RunFetchJson(Concat({"--profile", profile}, args));
}

ProfileLockHolder::ProfileLockHolder(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  fd_ = ::open((dir + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  locked_ = fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
}

ProfileLockHolder::~ProfileLockHolder() {
  if (fd_ >= 0) ::close(fd_);
}

std::string ReadFile(const std::string& path) {
  std::string data;
  ReadFileToString(path, &data);
  return data;
}

std::vector<std::string> ListFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) {
      out.push_back(std::filesystem::relative(it->path(), dir, ec).string());
    }
  }
  return out;
}

}  // namespace netstack::test
