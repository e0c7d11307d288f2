// ISO 8601 date-times as HAR writers use them ("2017-06-26T21:45:04.598+09:00",
// "2017-02-12T02:24:13.651Z"), written here rather than taken from a library: only this
// profile of the standard is needed.
#ifndef TOOLS_REPLAY_TRACE_HAR_DATE_H_
#define TOOLS_REPLAY_TRACE_HAR_DATE_H_

#include <string_view>

namespace netstack {

// Parses YYYY-MM-DD('T'|' ')hh:mm[:ss[(.|,)fraction]][Z|±hh[:mm]|±hhmm] into milliseconds
// since the Unix epoch (fractions of a millisecond kept). A time without a zone is taken as
// UTC. Years 1970..9999; fields are range-checked (a leap second :60 reads as :59.999).
// Returns false for anything else.
bool ParseIso8601(std::string_view text, double* epoch_ms);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_HAR_DATE_H_
