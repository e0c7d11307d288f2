#include "tools/replay/report/replay_json_writer.h"

#include <cerrno>
#include <cstring>

#include "net/http/request_record_json.h"

namespace netstack {

ReplayJsonWriter::~ReplayJsonWriter() {
  if (file_ && !is_stdout_) std::fclose(file_);
}

bool ReplayJsonWriter::Open(const std::string& path, std::string* error) {
  path_ = path;
  if (path == "-") {
    file_ = stdout;
    is_stdout_ = true;
    return true;
  }
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

void ReplayJsonWriter::WriteLine(const nlohmann::json& object) {
  if (!file_) return;
  if (label_.empty()) {
    line_ = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    nlohmann::json copy = object;
    copy["run"] = label_;
    line_ = copy.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  line_ += '\n';
  std::fwrite(line_.data(), 1, line_.size(), file_);
}

void ReplayJsonWriter::OnRequest(const RequestRecord& request) {
  if (!file_ || !request_lines_) return;
  line_.clear();
  AppendRequestRecordJson(request, &line_, numbers_);
  if (!label_.empty()) {
    // A --compare run's label goes into the object: through the tree (not the hot path).
    WriteLine(nlohmann::json::parse(line_));
    return;
  }
  line_ += '\n';
  std::fwrite(line_.data(), 1, line_.size(), file_);
}

void ReplayJsonWriter::OnPage(const PageResult& page) { WriteLine(page.ToJson(numbers_)); }

bool ReplayJsonWriter::Close(std::string* error) {
  if (!file_) return true;
  bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
  int saved = errno;
  if (!is_stdout_ && std::fclose(file_) != 0) {
    ok = false;
    saved = errno;
  }
  file_ = nullptr;
  if (!ok) *error = "cannot write " + path_ + ": " + std::strerror(saved);
  return ok;
}

}  // namespace netstack
