#include "tools/replay/gen/synthetic_random.h"

#include <algorithm>

namespace netstack {

uint64_t SyntheticRandom::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double SyntheticRandom::Uniform() {
  return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

int64_t SyntheticRandom::Between(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
  // (32 random bits × range) >> 32 for small ranges; a plain modulo for huge ones.
  if (range <= (1ull << 32)) {
    return lo + static_cast<int64_t>(((Next() >> 32) * range) >> 32);
  }
  return lo + static_cast<int64_t>(Next() % range);
}

double SyntheticRandom::Normal() {
  double sum = 0;
  for (int i = 0; i < 12; ++i) sum += Uniform();
  return sum - 6.0;
}

double SyntheticRandom::LogNormal(double median, double sigma, double lo, double hi) {
  // ln(median) is not needed: median · exp(sigma · z).
  double value = median * DeterministicExp(sigma * Normal());
  return std::clamp(value, lo, hi);
}

size_t SyntheticRandom::Pick(const std::vector<double>& cumulative) {
  if (cumulative.empty()) return 0;
  double target = Uniform() * cumulative.back();
  auto it = std::upper_bound(cumulative.begin(), cumulative.end(), target);
  size_t index = static_cast<size_t>(it - cumulative.begin());
  return std::min(index, cumulative.size() - 1);
}

uint64_t SyntheticHash(uint64_t seed, std::string_view text) {
  uint64_t h = 0xCBF29CE484222325ull ^ seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  SyntheticRandom mix(h);
  return mix.Next();
}

double DeterministicExp(double x) {
  x = std::clamp(x, -700.0, 700.0);
  // x = k·ln2 + r with |r| <= ln2/2; ln2 split in two so k·ln2 is exact enough.
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00;
  double kd = x * kInvLn2;
  int k = static_cast<int>(kd < 0 ? kd - 0.5 : kd + 0.5);
  double r = (x - k * kLn2Hi) - k * kLn2Lo;
  // Taylor series of e^r to r^14/14!: |r| <= 0.347 makes the rest below 1e-17.
  double term = 1, sum = 1;
  for (int n = 1; n <= 14; ++n) {
    term = term * r / n;
    sum += term;
  }
  // Scale by 2^k with exact multiplications by powers of two.
  double scale = k >= 0 ? 2.0 : 0.5;
  for (int i = 0, n = k >= 0 ? k : -k; i < n; ++i) sum *= scale;
  return sum;
}

std::vector<double> ZipfCumulative(int n) {
  std::vector<double> cumulative;
  cumulative.reserve(static_cast<size_t>(std::max(n, 0)));
  double total = 0;
  for (int k = 0; k < n; ++k) {
    total += 1.0 / (k + 1);
    cumulative.push_back(total);
  }
  return cumulative;
}

}  // namespace netstack
