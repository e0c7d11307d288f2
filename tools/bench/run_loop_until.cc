#include "tools/bench/run_loop_until.h"

namespace netstack {

bool RunLoopUntil(uv_loop_t* loop, const bool& done) {
  // Heap-allocated and freed in its close callback, so returning never waits for the close.
  auto* prepare = new uv_prepare_t;
  uv_prepare_init(loop, prepare);
  prepare->data = const_cast<bool*>(&done);
  uv_unref(reinterpret_cast<uv_handle_t*>(prepare));
  // Prepare callbacks run right before the loop computes its poll timeout; a stopped loop
  // polls without blocking and uv_run returns after this iteration.
  uv_prepare_start(prepare, [](uv_prepare_t* p) {
    if (*static_cast<const bool*>(p->data)) uv_stop(p->loop);
  });
  bool ok = true;
  while (!done) {
    if (uv_run(loop, UV_RUN_ONCE) == 0 && !done) {
      ok = false;
      break;
    }
  }
  uv_prepare_stop(prepare);
  uv_close(reinterpret_cast<uv_handle_t*>(prepare),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_prepare_t*>(h); });
  return ok;
}

}  // namespace netstack
