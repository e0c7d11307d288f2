#include "tools/netstack/page_har.h"

#include <string>
#include <string_view>

#include "net/http/har_writer.h"

namespace netstack {

#ifndef NETSTACK_VERSION
#error "NETSTACK_VERSION is set by tools/netstack/CMakeLists.txt (the project's version)"
#endif
const char kNetstackHarVersion[] = NETSTACK_VERSION;

void WritePageHar(const PageLoadResult& page, const std::vector<RequestRecord>& requests,
                  double start_epoch_ms, bool finished, std::FILE* out) {
  HarWriter writer(kNetstackHarVersion,
                   [out](std::string_view text) { std::fwrite(text.data(), 1, text.size(), out); });
  const std::string page_id = "page_1";
  std::string document_url = page.page.spec();
  if (!requests.empty() && !requests[0].final_url.empty()) document_url = requests[0].final_url;
  for (size_t i = 0; i < requests.size(); ++i) {
    const RequestRecord& r = requests[i];
    HarEntryContext context;
    context.pageref = page_id;
    context.started_epoch_ms = start_epoch_ms + r.start_ms();
    bool is_document = i == 0 || (r.placement && r.placement->type == "document");
    if (!is_document) {
      context.initiator_type = "parser";
      context.initiator_url = document_url;
    }
    writer.AddEntry(r, context);
  }
  HarPage har_page;
  har_page.id = page_id;
  har_page.title = page.page.spec();
  har_page.started_epoch_ms = start_epoch_ms;
  if (finished) {
    har_page.on_content_load_ms = page.document_ms();
    har_page.on_load_ms = page.load_ms();
  }
  writer.AddPage(std::move(har_page));
  writer.Finish();
}

}  // namespace netstack
