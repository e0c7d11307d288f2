// Range checks for the numeric flags of `netstack` subcommands, as CLI11 validators run on the
// flag's text before CLI11 converts it. CLI11's own conversion takes "-5" for an unsigned count
// (strtoull wraps it to 18446744073709551611), "010" as octal, "0x10" as hex, and "nan" or
// "inf" for a double; these validators accept only plain decimal text in a documented range, so
// a careless flag is a one-line error (exit 2) rather than a huge count or a NaN.
#ifndef TOOLS_NETSTACK_NUMBER_FLAGS_H_
#define TOOLS_NETSTACK_NUMBER_FLAGS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace netstack {

// Checks `text` is a whole number in decimal digits (no sign, no exponent) from `min` to `max`.
// Returns the empty string when it is, with *normalized set to the digits without leading
// zeros (so CLI11 cannot read "010" as octal); otherwise the one-line problem, the text echoed
// bounded and escaped: "'-5' is out of range (1 to 1,000,000)", "'abc' is not a whole number
// (1 to 1,000,000)".
std::string CheckCountText(const std::string& text, uint64_t min, uint64_t max,
                           std::string* normalized);

// Checks `text` is a finite decimal number ("2", "0.25", "1e-3"; no "nan", "inf" or hex) from
// `min` to `max` (above `min` when `min_exclusive`). Returns the empty string when it is,
// otherwise the one-line problem: "'nan' is not a finite number", "'-1' is out of range (0 to
// 1)", "'0' is out of range (above 0, at most 3600)".
std::string CheckNumberText(const std::string& text, double min, double max, bool min_exclusive);

// The validators for CLI::Option::transform: CLI11 reports a failure as "--FLAG: <problem>".
CLI::Validator CountFlag(uint64_t min, uint64_t max);
CLI::Validator NumberFlag(double min, double max, bool min_exclusive = false);

// A count with thousands separators for messages and help ("1,000,000").
std::string FormatFlagCount(uint64_t value);

}  // namespace netstack

#endif  // TOOLS_NETSTACK_NUMBER_FLAGS_H_
