// MakeHarSource (session_reader.h): a HAR file's pages as a session of navigate and wait events.
#include <memory>
#include <string>
#include <utility>

#include "tools/replay/trace/session_reader.h"

namespace netstack {
namespace {

class HarSource : public TraceSource {
 public:
  HarSource(HarFile har, std::string name)
      : har_(std::move(har)), name_(std::move(name)), hosts_(RecordedHostProtocols(har_.pages)) {}

  bool ReadHostProtocols(HostProtocols* out, std::string*) override {
    *out = hosts_;
    return true;
  }

  bool Next(SessionEvent* event, std::string* error) override {
    if (next_ >= 2 * har_.pages.size()) return false;
    size_t page_index = next_ / 2;
    TracePage& page = har_.pages[page_index];
    SessionEvent out;
    out.t_ms = 0;
    out.where = page.source;
    if (next_ % 2 == 0) {
      out.type = SessionEvent::Type::kNavigate;
      out.url = page.entries.empty() ? std::string() : page.entries[0].url;
      // The page moves out: the engine's reference is the only one, so it is freed after use.
      out.page = std::make_shared<const TracePage>(std::move(page));
      out.as_recorded = true;  // the recording's browser state applies (trace.h)
    } else {
      out.type = SessionEvent::Type::kWait;
    }
    ++next_;
    *event = std::move(out);
    return true;
  }

  const std::string& name() const override { return name_; }

 private:
  HarFile har_;
  std::string name_;
  HostProtocols hosts_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<TraceSource> MakeHarSource(HarFile har, const std::string& name) {
  return std::make_unique<HarSource>(std::move(har), name);
}

}  // namespace netstack
