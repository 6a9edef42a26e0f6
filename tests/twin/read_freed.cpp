/* Broken: the input tensor is given back with FreeTensor before the vector instruction that reads it. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x), 64);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y), 64);
  pipe.InitBuffer (inQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (outQueue, 1, 64 * sizeof (float));
  AscendC::LocalTensor<float> a = inQueue.AllocTensor<float> ();
  AscendC::DataCopy (a, xGm, 64);
  inQueue.EnQue (a);
  AscendC::LocalTensor<float> b = inQueue.DeQue<float> ();
  inQueue.FreeTensor (b);
  AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
  AscendC::Muls (c, b, 2.0f, 64);
  outQueue.EnQue (c);
  AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
  AscendC::DataCopy (yGm, d, 64);
  outQueue.FreeTensor (d);
}
