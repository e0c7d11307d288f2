// UTF-8 validation, one sequence at a time: what every reader that echoes or stores text from
// the network or a file needs to decide what is a character and what is a bad byte.
#ifndef NET_BASE_UTF8_H_
#define NET_BASE_UTF8_H_

#include <cstddef>
#include <string_view>

namespace netstack {

// The length (1 to 4) of the valid UTF-8 sequence starting at s[i] (1 for ASCII), or 0 when
// none starts there: a stray continuation byte, an overlong form, a UTF-16 surrogate, a value
// past U+10FFFF, or a sequence cut by the end of `s`. Requires i < s.size().
size_t Utf8SequenceLength(std::string_view s, size_t i);

}  // namespace netstack

#endif  // NET_BASE_UTF8_H_
