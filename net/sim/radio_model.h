// RadioModel: the client's mobile radio as two states (RRC connected / idle), from the mobile
// networking chapter: the radio stays connected while anything is sent or received and for
// `tail` after the last of it, then drops to idle; traffic that finds it idle first waits the
// `promotion` delay (the state transition and its signalling). Internal to net/sim.
#ifndef NET_SIM_RADIO_MODEL_H_
#define NET_SIM_RADIO_MODEL_H_

#include <cstdint>

#include "net/base/time.h"
#include "net/sim/network_params.h"

namespace netstack {

class RadioModel {
 public:
  // `promotions` (not owned, outlives the model) counts idle -> active transitions.
  RadioModel(const RadioParams& params, uint64_t* promotions)
      : params_(params), promotions_(promotions) {}

  // Traffic wants the radio at `t`: returns when it can flow (`t`, or `t` + promotion when the
  // radio is idle then, counting one promotion) and marks the radio busy at that time. With
  // the radio disabled, returns `t`. The radio starts idle.
  TimeTicks Acquire(TimeTicks t) {
    if (!params_.enabled) return t;
    if (t >= active_until_) {
      ++*promotions_;
      t += params_.promotion;
    }
    Touch(t);
    return t;
  }

  // Traffic flowed at `t` (which may lie ahead of the clock: a reply already on its way): the
  // radio stays active until `t` + tail at least.
  void Touch(TimeTicks t) {
    if (params_.enabled && t + params_.tail > active_until_) active_until_ = t + params_.tail;
  }

 private:
  const RadioParams params_;
  uint64_t* const promotions_;
  TimeTicks active_until_{};  // idle at and after this time
};

}  // namespace netstack

#endif  // NET_SIM_RADIO_MODEL_H_
