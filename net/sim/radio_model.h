// RadioModel: the client's mobile radio in the mobile networking chapter's three states: it stays
// active while anything is sent or received and for `tail` after the last of it, then idles;
// after `disconnect_after` more (when set) it is disconnected. Traffic that finds it idle first
// waits `promotion` (the state transition and its signalling); traffic that finds it
// disconnected waits `promotion` + `reconnect`. Internal to net/sim.
#ifndef NET_SIM_RADIO_MODEL_H_
#define NET_SIM_RADIO_MODEL_H_

#include <cstdint>

#include "net/base/time.h"
#include "net/sim/network_params.h"

namespace netstack {

class RadioModel {
 public:
  // `promotions` (not owned, outlives the model) counts idle or disconnected -> active
  // transitions.
  RadioModel(const RadioParams& params, uint64_t* promotions)
      : params_(params), promotions_(promotions) {}

  // Traffic wants the radio at `t`: returns when it can flow (`t`; `t` + promotion when the
  // radio is idle then; `t` + promotion + reconnect when it is disconnected; each counting one
  // promotion) and marks the radio busy at that time. With the radio disabled, returns `t`.
  // The radio starts idle.
  TimeTicks Acquire(TimeTicks t) {
    if (!params_.enabled) return t;
    if (t >= active_until_) {
      ++*promotions_;
      const bool disconnected = params_.disconnect_after > TimeDelta::zero() &&
                                active_until_ != TimeTicks{} &&
                                t >= active_until_ + params_.disconnect_after;
      t += params_.promotion;
      if (disconnected) t += params_.reconnect;
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
