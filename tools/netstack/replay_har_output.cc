#include "tools/netstack/replay_har_output.h"

#include <cstdio>
#include <string_view>

#include "net/http/har_writer.h"
#include "tools/netstack/page_har.h"

namespace netstack {

bool ReplayHarOutput::Open(const std::string& path, size_t max_pages, std::string* error) {
  if (!file_.Open(path, error)) return false;
  path_ = path;
  std::FILE* f = file_.file();
  writer_ = std::make_unique<ReplayHarWriter>(
      kNetstackHarVersion,
      [f](std::string_view text) { std::fwrite(text.data(), 1, text.size(), f); }, max_pages);
  return true;
}

bool ReplayHarOutput::Commit(std::string* error) {
  if (!writer_) return true;
  writer_->Finish();
  if (writer_->overflowed()) {
    file_.Abandon();
    *error = "--har " + path_ + ": the replay has more than " +
             std::to_string(writer_->max_pages()) +
             " pages, more than one HAR holds: replay fewer pages";
    return false;
  }
  if (!file_.Commit(error)) {
    *error = "--har " + path_ + ": " + *error;
    return false;
  }
  return true;
}

}  // namespace netstack
