#include "tools/replay/report/replay_har_writer.h"

#include <utility>

namespace netstack {

ReplayHarWriter::ReplayHarWriter(std::string creator_version, HarWriter::Sink sink,
                                 size_t max_pages)
    : writer_(std::move(creator_version), std::move(sink), max_pages) {}

void ReplayHarWriter::OnRequest(const RequestRecord& request) {
  if (!request.entry) return;
  pending_[request.entry->page].push_back(request);
}

void ReplayHarWriter::OnPage(const PageResult& page) {
  auto it = pending_.find(page.page_index);
  std::vector<RequestRecord> records;
  if (it != pending_.end()) {
    records = std::move(it->second);
    pending_.erase(it);
  }
  HarPage har_page;
  har_page.id = "page_" + std::to_string(page.page_index + 1);
  if (!label_.empty()) har_page.id += "-" + label_;
  har_page.title = page.url;
  har_page.started_epoch_ms = page.started_epoch_ms;
  har_page.on_load_ms = page.onload_ms;
  har_page.on_content_load_ms = page.content_load_ms;
  if (overflowed_ || !writer_.AddPage(har_page)) {
    overflowed_ = true;
    return;
  }
  // The records by entry index, for the initiators.
  std::map<int, const RequestRecord*> by_entry;
  for (const RequestRecord& r : records) by_entry[r.entry->entry] = &r;
  for (const auto& [index, r] : by_entry) {
    HarEntryContext context;
    context.pageref = har_page.id;
    context.started_epoch_ms = page.started_epoch_ms + r->start_ms();
    auto parent = by_entry.find(r->entry->parent);
    if (r->entry->parent >= 0 && parent != by_entry.end()) {
      const RequestRecord& p = *parent->second;
      const std::string type = p.placement ? p.placement->type : std::string();
      // The page's first entry is its document (TracePage::entries).
      const bool parsed = r->entry->parent == 0 || type == "document" || type == "stylesheet";
      context.initiator_type = type == "script" ? "script" : parsed ? "parser" : "other";
      context.initiator_url = p.url;
    }
    writer_.AddEntry(*r, context);
  }
}

void ReplayHarWriter::Finish() { writer_.Finish(); }

}  // namespace netstack
