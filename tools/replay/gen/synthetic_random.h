// Deterministic randomness for the synthetic session generator (synthetic_session.h): the same
// seed gives the same numbers on every platform and compiler. That rules out the standard
// distributions (std::uniform_real_distribution, std::lognormal_distribution: their algorithms
// are implementation-defined) and libm's exp/log (not required to be correctly rounded), so
// everything here uses integer operations and IEEE +, -, *, / only.
//
// Generator: SplitMix64 (Steele, Lea, Flood 2014; the seeding generator of xoshiro): a 64-bit
// counter advanced by the golden-ratio constant and mixed by two multiply-xorshift rounds.
#ifndef TOOLS_REPLAY_GEN_SYNTHETIC_RANDOM_H_
#define TOOLS_REPLAY_GEN_SYNTHETIC_RANDOM_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace netstack {

class SyntheticRandom {
 public:
  explicit SyntheticRandom(uint64_t seed) : state_(seed) {}

  // The next 64 random bits.
  uint64_t Next();
  // Uniform in [0, 1), 53 bits.
  double Uniform();
  // Uniform integer in [lo, hi] (inclusive; lo <= hi). Multiply-shift: bias below 2^-32 for
  // the small ranges used here.
  int64_t Between(int64_t lo, int64_t hi);
  // True with probability p.
  bool Chance(double p) { return Uniform() < p; }
  // Approximately standard normal: the sum of 12 uniforms minus 6 (Irwin–Hall), so within
  // [-6, 6]. Additions only; the tails are lighter than a true normal's, which suits sizes
  // that must stay plausible.
  double Normal();
  // exp(ln(median) + sigma · Normal()), clamped to [lo, hi]: a log-normal-ish draw.
  double LogNormal(double median, double sigma, double lo, double hi);
  // Index in [0, weights.size()) drawn in proportion to the cumulative weights `cumulative`
  // (ascending, last = total).
  size_t Pick(const std::vector<double>& cumulative);

 private:
  uint64_t state_;
};

// A 64-bit hash of `text` mixed with `seed` (FNV-1a, then a SplitMix64 finalizer), for seeding
// per-resource generators so a URL gets the same size wherever it appears.
uint64_t SyntheticHash(uint64_t seed, std::string_view text);

// exp(x) for |x| <= 700 from +, -, *, / only (range reduction by ln 2, then a Taylor series):
// the same bits everywhere, within a few ulp of the true value.
double DeterministicExp(double x);

// Cumulative Zipf weights 1/(k+1)^1 for k in [0, n): rank 0 most popular.
std::vector<double> ZipfCumulative(int n);

}  // namespace netstack

#endif  // TOOLS_REPLAY_GEN_SYNTHETIC_RANDOM_H_
