/* Broken: two double-buffered queues of 64 KiB each: 256 KiB, over the 910B's 192 KiB Unified Buffer. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) x;
  (void) y;
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
  pipe.InitBuffer (inQueue, 2, 65536);
  pipe.InitBuffer (outQueue, 2, 65536);
}
