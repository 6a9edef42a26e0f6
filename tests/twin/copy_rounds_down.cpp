/* Broken: DataCopy of 10 floats (40 bytes, not a 32-byte multiple) moves only the first 8; the kernel
 * relies on all 10 arriving. No rule names this: the numbers show it (y[8], y[9] are not 2x). */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x), 16);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y), 16);
  pipe.InitBuffer (inQueue, 1, 16 * sizeof (float));
  pipe.InitBuffer (outQueue, 1, 16 * sizeof (float));
  AscendC::LocalTensor<float> a = inQueue.AllocTensor<float> ();
  AscendC::DataCopy (a, xGm, 10);
  inQueue.EnQue (a);
  AscendC::LocalTensor<float> b = inQueue.DeQue<float> ();
  AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
  AscendC::Muls (c, b, 2.0f, 16);
  outQueue.EnQue (c);
  inQueue.FreeTensor (b);
  AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
  AscendC::DataCopy (yGm, d, 16);
  outQueue.FreeTensor (d);
}
