#include "tests/sim/sim_http2_env.h"

#include <nghttp2/nghttp2.h>

namespace netstack::test {

std::string ReadToEnd(VirtualScheduler& scheduler, StreamSocket* socket, bool* eof) {
  std::string out;
  char buf[4096];
  *eof = false;
  for (;;) {
    int result = ERR_IO_PENDING;
    int rv = socket->Read(buf, sizeof(buf), [&result](int r) { result = r; });
    if (rv == ERR_IO_PENDING) {
      if (!scheduler.RunUntil([&] { return result != ERR_IO_PENDING; })) {
        socket->Disconnect();  // drops the pending read
        return out;
      }
      rv = result;
    }
    if (rv == 0) *eof = true;
    if (rv <= 0) return out;
    out.append(buf, static_cast<size_t>(rv));
  }
}

std::vector<int> FrameTypes(const std::string& bytes) {
  std::vector<int> types;
  for (size_t at = 0; at + 9 <= bytes.size();) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data() + at);
    types.push_back(p[3]);
    at += 9 + ((size_t{p[0]} << 16) | (size_t{p[1]} << 8) | p[2]);
  }
  return types;
}

void Write(StreamSocket* socket, const std::string& bytes) {
  REQUIRE(socket->Write(bytes.data(), static_cast<int>(bytes.size()), [](int) {}) ==
          static_cast<int>(bytes.size()));
}

std::vector<size_t> HeaderBlockSizes(const std::vector<std::pair<std::string, std::string>>& fields,
                                     int count) {
  nghttp2_hd_deflater* deflater = nullptr;
  REQUIRE(nghttp2_hd_deflate_new(&deflater, 4096) == 0);
  REQUIRE(nghttp2_hd_deflate_change_table_size(deflater, 4096) == 0);
  std::vector<nghttp2_nv> nva;
  for (const auto& [name, value] : fields) {
    nva.push_back({(uint8_t*)name.data(), (uint8_t*)value.data(), name.size(), value.size(),
                   NGHTTP2_NV_FLAG_NONE});
  }
  std::vector<size_t> sizes;
  for (int i = 0; i < count; ++i) {
    std::vector<uint8_t> out(nghttp2_hd_deflate_bound(deflater, nva.data(), nva.size()));
    const ssize_t n =
        nghttp2_hd_deflate_hd(deflater, out.data(), out.size(), nva.data(), nva.size());
    REQUIRE(n > 0);
    sizes.push_back(static_cast<size_t>(n));
  }
  nghttp2_hd_deflate_del(deflater);
  return sizes;
}

}  // namespace netstack::test
