// Runs a libuv loop until a flag is set, for a benchmark phase that waits for callbacks.
#ifndef TOOLS_BENCH_RUN_LOOP_UNTIL_H_
#define TOOLS_BENCH_RUN_LOOP_UNTIL_H_

#include <uv.h>

namespace netstack {

// Runs `loop` until `done` is true; call from outside the loop (not from a callback). The loop
// waits for callbacks from other threads only if something referenced (the cross-thread
// poster) keeps it alive. False if the loop ran out of things to wait for first. A flag set by
// a timer or idle callback ends the wait without polling again (a prepare handle stops the
// loop before it would block), so the wait never outlasts the work.
bool RunLoopUntil(uv_loop_t* loop, const bool& done);

}  // namespace netstack

#endif  // TOOLS_BENCH_RUN_LOOP_UNTIL_H_
