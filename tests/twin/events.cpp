/* Broken: an event id set twice before its wait, and a wait with no set. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) x;
  (void) y;
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::SetFlag<AscendC::HardEvent::V_S> (1);
  AscendC::SetFlag<AscendC::HardEvent::V_S> (1);
  AscendC::WaitFlag<AscendC::HardEvent::V_S> (1);
  AscendC::WaitFlag<AscendC::HardEvent::S_V> (2);
}
