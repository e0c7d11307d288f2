// libFuzzer target for the predictor's stored rows: what PredictorStore::Load hands the policies
// (predictor/predictor_store.h, predictor_policy.h). Input: one row per line,
// "table<TAB>key<TAB>subkey<TAB>data", where data is parsed as the store parses the column
// (JSON, and a row that is not JSON is skipped). Each policy (chrome, loading, learned) loads the
// rows.
// Promises checked: loading never throws or crashes, skips at most the rows given, keeps within
// kMaxRows; what a policy saves loads back with nothing skipped and saves the same rows again
// (save -> load -> save is stable); the tables always serialize.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/time.h"
#include "predictor/predictor_config.h"
#include "predictor/predictor_policy.h"
#include "predictor/predictor_store.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

std::string Dump(const std::vector<netstack::PredictorRow>& rows) {
  std::string out;
  for (const auto& row : rows) {
    out += row.table + '\t' + row.key + '\t' + row.subkey + '\t' +
           row.data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
  }
  return out;
}

void CheckPolicy(const char* name, const std::vector<netstack::PredictorRow>& rows) {
  netstack::PredictorConfig config;
  config.policy = name;
  const netstack::TimeTicks now{std::chrono::hours(1000)};
  std::unique_ptr<netstack::PredictorPolicy> policy = netstack::CreatePredictorPolicy(config);
  FUZZ_CHECK(policy != nullptr);
  size_t skipped = 0;
  policy->LoadRows(rows, now, &skipped);
  FUZZ_CHECK(skipped <= rows.size());
  policy->TablesToJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::vector<netstack::PredictorRow> saved = policy->SaveRows();
  FUZZ_CHECK(saved.size() <= netstack::PredictorStore::kMaxRows);

  std::unique_ptr<netstack::PredictorPolicy> again = netstack::CreatePredictorPolicy(config);
  size_t skipped_again = 0;
  again->LoadRows(saved, now, &skipped_again);
  FUZZ_CHECK(skipped_again == 0);
  FUZZ_CHECK(Dump(again->SaveRows()) == Dump(saved));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<netstack::PredictorRow> rows;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    std::string_view fields[4];
    for (int i = 0; i < 3; ++i) {
      size_t tab = line.find('\t');
      fields[i] = line.substr(0, tab);
      line = tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
    }
    fields[3] = line;
    netstack::PredictorRow row{std::string(fields[0]), std::string(fields[1]),
                               std::string(fields[2]),
                               nlohmann::json::parse(fields[3], nullptr, false)};
    if (row.data.is_discarded()) continue;  // the store skips it and counts it
    rows.push_back(std::move(row));
  }
  CheckPolicy("chrome", rows);
  CheckPolicy("loading", rows);
  CheckPolicy("learned", rows);
  return 0;
}
