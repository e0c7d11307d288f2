#include "tools/internals/internals_host.h"

namespace netstack {
namespace {

InternalsResult NotHere() { return InternalsResult::Fail(404, "not available in this mode"); }

}  // namespace

InternalsResult InternalsHost::Fetch(const std::string&) { return NotHere(); }
InternalsResult InternalsHost::Omnibox(const std::string&) { return NotHere(); }
InternalsResult InternalsHost::Hover(const std::string&) { return NotHere(); }
InternalsResult InternalsHost::FetchHistory() { return NotHere(); }
void InternalsHost::Resolve(const std::string&, std::function<void(InternalsResult)> done) {
  done(NotHere());
}
InternalsResult InternalsHost::ReplayControl(const std::string&) { return NotHere(); }

}  // namespace netstack
