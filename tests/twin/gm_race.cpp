/* Broken: every block writes the whole output, not its own share. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) x;
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::GlobalTensor<float> yGm;
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y), 64);
  pipe.InitBuffer (outQueue, 1, 64 * sizeof (float));
  AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
  AscendC::Duplicate (c, static_cast<float> (AscendC::GetBlockIdx ()), 64);
  outQueue.EnQue (c);
  AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
  AscendC::DataCopy (yGm, d, 64);
  outQueue.FreeTensor (d);
}
