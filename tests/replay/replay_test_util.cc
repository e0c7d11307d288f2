#include "tests/replay/replay_test_util.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>

#include "tools/replay/replay_engine.h"

namespace netstack::test {

std::string Generate(const SyntheticSessionOptions& options, SessionStats* stats) {
  std::FILE* file = std::tmpfile();
  REQUIRE(file);
  std::string error;
  bool ok = WriteSyntheticSession(options, file, stats, &error);
  INFO(error);
  REQUIRE(ok);
  std::string out;
  std::rewind(file);
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) out.append(buffer, n);
  std::fclose(file);
  return out;
}

bool VectorSource::Next(SessionEvent* event, std::string* error) {
  if (next_ < events_.size()) {
    *event = events_[next_++];
    return true;
  }
  *error = error_;
  return false;
}

TraceEntry MakeEntry(const std::string& url, int64_t body_bytes, double start_ms,
                     const std::string& type, HeaderList headers) {
  TraceEntry e;
  e.url = url;
  e.status = 200;
  e.status_text = "OK";
  e.response_body_bytes = body_bytes;
  e.resource_type = type;
  e.start_ms = start_ms;
  e.recorded_total_ms = 100;
  e.response_headers =
      headers.empty() ? HeaderList{{"Content-Type", "text/plain"}, {"Cache-Control", "no-store"}}
                      : std::move(headers);
  return e;
}

std::shared_ptr<const TracePage> MakePage(const std::string& id, std::vector<TraceEntry> entries,
                                          int64_t epoch_ms) {
  auto page = std::make_shared<TracePage>();
  page->id = id;
  page->title = entries.empty() ? id : entries[0].url;
  page->source = "test#" + id;
  page->started_epoch_ms = epoch_ms;
  page->entries = std::move(entries);
  return page;
}

std::vector<std::string> FilesIn(const std::string& dir, const std::string& extension) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec) && e.path().extension() == extension)
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

SessionEvent Navigate(std::shared_ptr<const TracePage> page, double t_ms) {
  SessionEvent e;
  e.type = SessionEvent::Type::kNavigate;
  e.t_ms = t_ms;
  e.url = page->entries.empty() ? "" : page->entries[0].url;
  e.page = std::move(page);
  e.where = "test";
  return e;
}

SessionEvent Wait(double t_ms) { return Other(SessionEvent::Type::kWait, t_ms); }

SessionEvent Other(SessionEvent::Type type, double t_ms) {
  SessionEvent e;
  e.type = type;
  e.t_ms = t_ms;
  e.where = "test";
  return e;
}

ReplayConfig ExampleConfig() {
  ReplayConfig config;
  std::string error;
  for (const char* set :
       {"down_kbps=0", "up_kbps=0", "dns_ms=50", "rtt_ms=80", "tls=1.2", "server_ms=100"}) {
    INFO(set);
    REQUIRE(config.Set(set, &error));
  }
  return config;
}

ReplayConfig FastConfig(const std::string& predictor) {
  ReplayConfig config;
  std::string error;
  for (const std::string& set :
       std::vector<std::string>{"down_kbps=0", "up_kbps=0", "dns_ms=20", "rtt_ms=40", "tls=1.3",
                                "server_ms=100", "predictor=" + predictor}) {
    INFO(set);
    REQUIRE(config.Set(set, &error));
  }
  return config;
}

const RequestRecord& Recorder::Get(uint64_t page, int entry) const {
  for (const RequestRecord& r : requests)
    if (r.entry->page == page && r.entry->entry == entry) return r;
  FAIL("no result for page " << page << " entry " << entry);
  return requests.front();
}

bool Replay(const ReplayConfig& config, std::vector<SessionEvent> events, Recorder* recorder,
            std::string* error, ReplayTotals* totals) {
  ReplayEngine engine(config);
  engine.AddObserver(recorder);
  VectorSource source(std::move(events));
  std::string e;
  bool ok = engine.Run(&source, &e);
  if (error) *error = e;
  if (totals) *totals = engine.totals();
  return ok;
}

}  // namespace netstack::test
