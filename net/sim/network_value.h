// The values of network keys as `--set` gives them (net/sim/network_params.h): plain decimals
// checked against a key's bounds, TLS versions, host names, and how much of a value a message
// echoes. Shared by NetworkParams::Set and whatever else reads network keys.
#ifndef NET_SIM_NETWORK_VALUE_H_
#define NET_SIM_NETWORK_VALUE_H_

#include <cstdint>
#include <string>

#include "net/sim/network_params.h"

namespace netstack {

// A decimal value as the model stores it: `units` per unit of the key ("rtt_ms": 1000 µs per
// ms). `min`/`max` are in the key's units, inclusive.
struct NetworkNumberKey {
  const char* name;
  int64_t units;
  int64_t min, max;
  bool integer;  // no fraction allowed (segments, bytes)
  // When set, the lower bound in model units (a bound below one key unit: a scale's 0.01) and
  // the range as messages show it.
  int64_t min_units = -1;
  const char* range = nullptr;
};

// What a message echoes of a value: at most 64 bytes of it ("..." after a cut, never inside a
// UTF-8 sequence).
std::string ShownValue(const std::string& text);

// Parses "123" or "123.456" (no exponent) into value * key.units, rounded half up to the unit.
// False with a one-line `error` starting with `label` (the key as given, host prefix included):
// "'abc' is not a number", "-1 is out of range (0..60000)", "'1.5' is not a whole number".
bool ParseNetworkNumber(const NetworkNumberKey& key, const std::string& label,
                        const std::string& text, int64_t* out, std::string* error);

// "1.2" or "1.3"; else false with "LABEL: 'x' is not 1.2 or 1.3".
bool ParseTlsVersion(const std::string& label, const std::string& text, TlsVersion* out,
                     std::string* error);

// A host name as URLs carry it (at most 255 bytes): letters, digits, '-', '.', '_', or an IPv6
// literal, in brackets or not.
bool IsValidHostName(const std::string& host);

// The key a valid host name is kept under: the URL's host as Url::host() gives it (an IPv6
// literal without its brackets), so `[::1]:rtt_ms` and a trace's `::1` name one host.
std::string HostKey(const std::string& host);

}  // namespace netstack

#endif  // NET_SIM_NETWORK_VALUE_H_
