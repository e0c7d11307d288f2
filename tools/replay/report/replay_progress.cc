#include "tools/replay/report/replay_progress.h"

#include "tools/replay/report/replay_summary.h"

namespace netstack {
namespace {

constexpr std::chrono::milliseconds kInterval(250);

}  // namespace

ReplayProgress::ReplayProgress(FILE* out, bool enabled)
    : out_(out), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

std::string ReplayProgress::Line(const std::string& label, uint64_t requests, uint64_t pages,
                                 double virtual_ms, double wall_s) {
  std::string line = label.empty() ? "" : label + ": ";
  line += FormatThousands(requests) + " requests, " + FormatThousands(pages) + " pages, " +
          FormatDuration(virtual_ms) + " virtual";
  if (wall_s > 0) {
    line += ", " + FormatThousands(static_cast<uint64_t>(static_cast<double>(requests) / wall_s)) +
            " requests/s";
  }
  return line;
}

void ReplayProgress::Update(const ReplayTotals& totals, const ReplayTotals& done,
                            const std::string& label) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (printed_ && now - last_ < kInterval) return;
  last_ = now;
  double wall_s = std::chrono::duration<double>(now - start_).count();
  std::string line = Line(label, totals.requests + done.requests, totals.pages + done.pages,
                          totals.virtual_ms + done.virtual_ms, wall_s);
  size_t width = line.size();
  // Blank what a longer previous line left.
  if (width < last_width_) line.append(last_width_ - width, ' ');
  last_width_ = width;
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
  printed_ = true;
}

void ReplayProgress::Finish() {
  if (!enabled_ || !printed_) return;
  std::fputc('\n', out_);
  std::fflush(out_);
  printed_ = false;
}

}  // namespace netstack
