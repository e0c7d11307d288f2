// Encoders for tests: the bodies decoders are checked against are made here with zlib and
// libbrotlienc, never stored.
#ifndef TESTS_HTTP_COMPRESSION_TEST_UTIL_H_
#define TESTS_HTTP_COMPRESSION_TEST_UTIL_H_

#include <brotli/encode.h>
#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace netstack::test {

// window_bits: 15 + 16 gzip, 15 zlib, -15 raw deflate.
inline std::string ZlibCompress(const std::string& in, int window_bits) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2");
  }
  std::string out(deflateBound(&z, in.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rv = deflate(&z, Z_FINISH);
  // erase, not resize: GCC 12 cannot tell resize(size() - avail_out) never grows the string
  // and warns (-Wstringop-overflow) wherever this is inlined.
  out.erase(out.size() - z.avail_out);
  deflateEnd(&z);
  if (rv != Z_STREAM_END) throw std::runtime_error("deflate");
  return out;
}

inline std::string Gzip(const std::string& in) { return ZlibCompress(in, 15 + 16); }
inline std::string ZlibDeflate(const std::string& in) { return ZlibCompress(in, 15); }
inline std::string RawDeflate(const std::string& in) { return ZlibCompress(in, -15); }

inline std::string Brotli(const std::string& in) {
  size_t size = BrotliEncoderMaxCompressedSize(in.size());
  std::string out(size ? size : 64, '\0');
  size = out.size();
  if (!BrotliEncoderCompress(5, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, in.size(),
                             reinterpret_cast<const uint8_t*>(in.data()), &size,
                             reinterpret_cast<uint8_t*>(out.data()))) {
    throw std::runtime_error("BrotliEncoderCompress");
  }
  out.resize(size);
  return out;
}

// Deterministic sample text: compressible runs mixed with pseudo-random bytes.
inline std::string SampleBody(size_t size, uint32_t seed = 1) {
  std::string out;
  out.reserve(size);
  uint32_t x = seed;
  while (out.size() < size) {
    x = x * 1103515245u + 12345u;
    if ((x >> 16) % 3 == 0) {
      out.append("the quick brown fox jumps over the lazy dog ");
    } else {
      out.push_back(static_cast<char>(x >> 24));
    }
  }
  out.resize(size);
  return out;
}

}  // namespace netstack::test

#endif  // TESTS_HTTP_COMPRESSION_TEST_UTIL_H_
