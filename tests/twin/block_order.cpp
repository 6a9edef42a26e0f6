/* Broken: block b reads what block b - 1 wrote to the output, so the result depends on the order the
 * blocks run in. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) x;
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::GlobalTensor<float> yGm;
  int64_t b = AscendC::GetBlockIdx ();
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y), 64 * AscendC::GetBlockNum ());
  pipe.InitBuffer (inQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (outQueue, 1, 64 * sizeof (float));
  AscendC::LocalTensor<float> a = inQueue.AllocTensor<float> ();
  if (b > 0)
    AscendC::DataCopy (a, yGm[(b - 1) * 64], 64);
  else
    AscendC::Duplicate (a, 0.0f, 64);
  inQueue.EnQue (a);
  AscendC::LocalTensor<float> p = inQueue.DeQue<float> ();
  AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
  AscendC::Adds (c, p, 1.0f, 64);
  outQueue.EnQue (c);
  inQueue.FreeTensor (p);
  AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
  AscendC::DataCopy (yGm[b * 64], d, 64);
  outQueue.FreeTensor (d);
}
