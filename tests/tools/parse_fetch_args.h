// Parses arguments as `netstack fetch ARGS` would (CLI11, then ValidateFetchOptions), for the
// option tests of this folder.
#ifndef TESTS_TOOLS_PARSE_FETCH_ARGS_H_
#define TESTS_TOOLS_PARSE_FETCH_ARGS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "tools/netstack/fetch_options.h"

namespace netstack::test {

// Returns false with the message of the first error (CLI11's or validation's).
inline bool ParseFetchArgs(const std::vector<std::string>& args, FetchOptions* options,
                           std::string* message) {
  CLI::App app;
  AddFetchOptions(&app, options);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them reversed
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    *message = e.what();
    return false;
  }
  return ValidateFetchOptions(options, message);
}

}  // namespace netstack::test

#endif  // TESTS_TOOLS_PARSE_FETCH_ARGS_H_
