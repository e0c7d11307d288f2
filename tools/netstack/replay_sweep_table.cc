#include "tools/netstack/replay_sweep_table.h"

#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "net/base/time.h"
#include "tools/netstack/terminal_text.h"
#include "tools/replay/report/replay_summary.h"

namespace netstack {
namespace {

using Json = nlohmann::json;

// The member at `path` under `j`, or null when a step is missing or not an object.
const Json* Find(const Json& j, std::initializer_list<const char*> path) {
  const Json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

std::string PathText(std::initializer_list<const char*> path) {
  std::string text;
  for (const char* key : path) text += (text.empty() ? "" : ".") + std::string(key);
  return text;
}

bool GetCount(const Json& j, std::initializer_list<const char*> path, uint64_t* out,
              std::string* error) {
  const Json* v = Find(j, path);
  if (!v || !v->is_number_integer() || (!v->is_number_unsigned() && v->get<int64_t>() < 0)) {
    *error = "no count " + PathText(path);
    return false;
  }
  *out = v->get<uint64_t>();
  return true;
}

bool GetNumber(const Json& j, std::initializer_list<const char*> path, double* out,
               std::string* error) {
  const Json* v = Find(j, path);
  if (!v || !v->is_number()) {
    *error = "no number " + PathText(path);
    return false;
  }
  *out = v->get<double>();
  return true;
}

bool GetString(const Json& j, std::initializer_list<const char*> path, std::string* out,
               std::string* error) {
  const Json* v = Find(j, path);
  if (!v || !v->is_string()) {
    *error = "no string " + PathText(path);
    return false;
  }
  *out = v->get<std::string>();
  return true;
}

// Where the last line of the open file `f` of `size` bytes starts, and its length without
// the final newline. False when the file is empty or the line is longer than the bound.
bool FindLastLine(std::FILE* f, off_t size, off_t* start, size_t* length, std::string* error) {
  off_t end = size;
  char last = 0;
  if (end > 0 && fseeko(f, end - 1, SEEK_SET) == 0 && std::fread(&last, 1, 1, f) == 1 &&
      last == '\n')
    --end;
  off_t pos = end;
  char buf[65536];
  while (pos > 0) {
    if (static_cast<size_t>(end - pos) > kMaxSweepSummaryBytes) {
      *error =
          "its last line is longer than " + FormatThousands(kMaxSweepSummaryBytes >> 20) + " MiB";
      return false;
    }
    size_t n = static_cast<size_t>(std::min<off_t>(pos, sizeof(buf)));
    pos -= static_cast<off_t>(n);
    if (fseeko(f, pos, SEEK_SET) != 0 || std::fread(buf, 1, n, f) != n) {
      *error = std::string("cannot read: ") + std::strerror(errno);
      return false;
    }
    for (size_t i = n; i-- > 0;) {
      if (buf[i] == '\n') {
        *start = pos + static_cast<off_t>(i) + 1;
        *length = static_cast<size_t>(end - *start);
        return true;
      }
    }
  }
  *start = 0;
  *length = static_cast<size_t>(end);
  if (*length > kMaxSweepSummaryBytes) {
    *error =
        "its last line is longer than " + FormatThousands(kMaxSweepSummaryBytes >> 20) + " MiB";
    return false;
  }
  return true;
}

std::string Ms(double ms) { return FormatDuration(ms); }

// A number as sweep.tsv writes it: JSON's shortest text for it.
std::string TsvNumber(double v) { return Json(v).dump(); }

double RoundRatio(double v) { return std::round(v * 1e6) / 1e6; }

}  // namespace

std::optional<double> SweepRow::ConnectWaitPerPage() const {
  if (pages == 0) return std::nullopt;
  return RoundMsForJson(connect_wait_ms / static_cast<double>(pages));
}

bool SweepRowFromSummary(const Json& s, SweepRow* row, std::string* error) {
  const Json* kind = Find(s, {"kind"});
  if (!kind || *kind != "summary") {
    *error = "not a replay summary line";
    return false;
  }
  if (!GetCount(s, {"totals", "pages"}, &row->pages, error) ||
      !GetCount(s, {"totals", "requests"}, &row->requests, error) ||
      !GetNumber(s, {"totals", "connect_wait_ms"}, &row->connect_wait_ms, error) ||
      !GetCount(s, {"totals", "cache", "hits"}, &row->cache_hits, error) ||
      !GetString(s, {"totals", "predictor", "policy"}, &row->predictor, error) ||
      !GetNumber(s, {"page_load", "median_ms"}, &row->median_ms, error) ||
      !GetNumber(s, {"page_load", "p90_ms"}, &row->p90_ms, error) ||
      !GetNumber(s, {"page_load", "mean_ms"}, &row->mean_ms, error) ||
      !GetString(s, {"page_load", "metric"}, &row->metric, error))
    return false;
  row->predictor_used = 0;
  row->predictor_wasted = 0;
  for (const char* action : {"preresolve", "preconnect", "fetch_ahead"}) {
    uint64_t used = 0, wasted = 0;
    if (!GetCount(s, {"totals", "predictor", "stats", action, "used"}, &used, error) ||
        !GetCount(s, {"totals", "predictor", "stats", action, "wasted"}, &wasted, error))
      return false;
    row->predictor_used += used;
    row->predictor_wasted += wasted;
  }
  return true;
}

bool ReadSweepRow(const std::string& path, SweepRow* row, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::string line;
  off_t start = 0;
  size_t length = 0;
  bool ok = fseeko(f, 0, SEEK_END) == 0;
  off_t size = ok ? ftello(f) : -1;
  std::string why;
  if (size < 0) {
    why = std::string("cannot read: ") + std::strerror(errno);
    ok = false;
  } else {
    ok = FindLastLine(f, size, &start, &length, &why);
  }
  if (ok) {
    line.resize(length);
    ok = fseeko(f, start, SEEK_SET) == 0 && std::fread(line.data(), 1, length, f) == length;
    if (!ok) why = std::string("cannot read: ") + std::strerror(errno);
  }
  std::fclose(f);
  if (!ok) {
    *error = path + ": " + why;
    return false;
  }
  // The configurations (each trace's, the options') and the predictor's tables are the long
  // part of a summary line and the table needs none of them: skipped, not built.
  Json::parser_callback_t skip = [](int depth, Json::parse_event_t event, Json& parsed) {
    if (event != Json::parse_event_t::key) return true;
    if (depth == 1) return parsed != "traces" && parsed != "config";
    return depth != 3 || parsed != "tables";
  };
  Json summary = Json::parse(line, skip, /*allow_exceptions=*/false);
  if (summary.is_discarded()) {
    *error = path + ": its last line is not JSON (the replay did not finish)";
    return false;
  }
  if (!SweepRowFromSummary(summary, row, &why)) {
    *error = path + ": its last line: " + why;
    return false;
  }
  return true;
}

std::optional<double> SweepTable::MedianRatio(size_t i) const {
  if (rows_.empty() || rows_[0].median_ms <= 0) return std::nullopt;
  return rows_[i].median_ms / rows_[0].median_ms;
}

std::string SweepTable::FormatText() const {
  struct Column {
    std::string header;
    bool left;
  };
  std::vector<Column> columns{{"point", false}};
  for (const std::string& key : keys_) columns.push_back({TerminalSafe(key), true});
  for (const char* h : {"pages", "requests", "load median", "p90", "mean", "conn. wait/page",
                        "cache hits", "pred. used", "wasted", "median vs 0"})
    columns.push_back({h, false});
  std::vector<std::vector<std::string>> cells;
  bool onload = false;
  for (size_t i = 0; i < rows_.size(); ++i) {
    const SweepRow& r = rows_[i];
    std::vector<std::string> line{std::to_string(r.point)};
    for (const std::string& v : r.values) line.push_back(TerminalSafe(v));
    std::optional<double> wait = r.ConnectWaitPerPage();
    std::optional<double> ratio = MedianRatio(i);
    char ratio_text[32] = "-";
    if (ratio) std::snprintf(ratio_text, sizeof(ratio_text), "%.2fx", *ratio);
    bool predictor = r.predictor != "off";
    for (std::string cell :
         {FormatThousands(r.pages), FormatThousands(r.requests), Ms(r.median_ms), Ms(r.p90_ms),
          Ms(r.mean_ms), wait ? Ms(*wait) : "-", FormatThousands(r.cache_hits),
          predictor ? FormatThousands(r.predictor_used) : "-",
          predictor ? FormatThousands(r.predictor_wasted) : "-", std::string(ratio_text)})
      line.push_back(std::move(cell));
    cells.push_back(std::move(line));
    onload = onload || r.metric != "last_end";
  }
  std::vector<size_t> widths;
  for (const Column& c : columns) widths.push_back(c.header.size());
  for (const auto& line : cells)
    for (size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  auto format_line = [&](const std::vector<std::string>& line) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c) {
      std::string pad(widths[c] - line[c].size(), ' ');
      if (c) text += "  ";
      text += columns[c].left ? line[c] + (c + 1 < line.size() ? pad : "") : pad + line[c];
    }
    return text + "\n";
  };
  std::vector<std::string> header;
  for (const Column& c : columns) header.push_back(c.header);
  std::string text = format_line(header);
  for (const auto& line : cells) text += format_line(line);
  if (onload)
    text +=
        "(page load: a page's onLoad where its trace records one, else its last request's "
        "end)\n";
  return text;
}

std::string SweepTable::FormatTsv() const {
  std::string text = "point";
  for (const std::string& key : keys_) text += "\t" + key;
  text +=
      "\tpages\trequests\tpage_load_median_ms\tpage_load_p90_ms\tpage_load_mean_ms\t"
      "page_load_metric\tconnect_wait_ms_per_page\tcache_hits\tpredictor\tpredictor_used\t"
      "predictor_wasted\tmedian_ratio\tfile\n";
  for (size_t i = 0; i < rows_.size(); ++i) {
    const SweepRow& r = rows_[i];
    text += std::to_string(r.point);
    for (const std::string& v : r.values) text += "\t" + v;
    std::optional<double> wait = r.ConnectWaitPerPage();
    std::optional<double> ratio = MedianRatio(i);
    bool predictor = r.predictor != "off";
    for (const std::string& cell :
         {std::to_string(r.pages), std::to_string(r.requests), TsvNumber(r.median_ms),
          TsvNumber(r.p90_ms), TsvNumber(r.mean_ms), r.metric, wait ? TsvNumber(*wait) : "",
          std::to_string(r.cache_hits), r.predictor,
          predictor ? std::to_string(r.predictor_used) : "",
          predictor ? std::to_string(r.predictor_wasted) : "",
          ratio ? TsvNumber(RoundRatio(*ratio)) : "", r.files.empty() ? "" : r.files[0]})
      text += "\t" + cell;
    text += "\n";
  }
  return text;
}

Json SweepTable::ToJson() const {
  Json points = Json::array();
  for (size_t i = 0; i < rows_.size(); ++i) {
    const SweepRow& r = rows_[i];
    Json set = Json::array();
    for (size_t k = 0; k < keys_.size() && k < r.values.size(); ++k)
      set.push_back(keys_[k] + "=" + r.values[k]);
    std::optional<double> wait = r.ConnectWaitPerPage();
    std::optional<double> ratio = MedianRatio(i);
    Json predictor = nullptr;
    if (r.predictor != "off")
      predictor = {
          {"policy", r.predictor}, {"used", r.predictor_used}, {"wasted", r.predictor_wasted}};
    points.push_back({{"point", r.point},
                      {"values", r.values},
                      {"set", set},
                      {"files", r.files},
                      {"pages", r.pages},
                      {"requests", r.requests},
                      {"page_load",
                       {{"median_ms", r.median_ms},
                        {"p90_ms", r.p90_ms},
                        {"mean_ms", r.mean_ms},
                        {"metric", r.metric}}},
                      {"connect_wait_ms", r.connect_wait_ms},
                      {"connect_wait_ms_per_page", wait ? Json(*wait) : Json(nullptr)},
                      {"cache_hits", r.cache_hits},
                      {"predictor", predictor},
                      {"median_ratio", ratio ? Json(RoundRatio(*ratio)) : Json(nullptr)}});
  }
  return {{"kind", "sweep"}, {"keys", keys_}, {"points", points}};
}

}  // namespace netstack
