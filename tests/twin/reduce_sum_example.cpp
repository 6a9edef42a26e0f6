/* The example of the ReduceSum page (ReduceSum.md): half [60000, 60000, -30000, 100] sums by a binary tree
 * with partial sums saturating at 65504: 60000 + 60000 -> 65504, -30000 + 100 = -29900, 65504 - 29900 =
 * 35604 (in binary16, rounding each partial sum: 35584). A plain left-to-right sum would give
 * 60000 + 60000 = inf in half. The input is padded with zeros to one 256-byte repeat. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::TBuf<AscendC::TPosition::VECCALC> work;
  AscendC::GlobalTensor<half> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ half *> (x), 128);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ half *> (y), 16);
  pipe.InitBuffer (inQueue, 1, 128 * sizeof (half));
  pipe.InitBuffer (outQueue, 1, 16 * sizeof (half));
  pipe.InitBuffer (work, 32);
  AscendC::LocalTensor<half> a = inQueue.AllocTensor<half> ();
  AscendC::DataCopy (a, xGm, 128);
  inQueue.EnQue (a);
  AscendC::LocalTensor<half> b = inQueue.DeQue<half> ();
  AscendC::LocalTensor<half> c = outQueue.AllocTensor<half> ();
  AscendC::Duplicate (c, half (0.0f), 16);
  AscendC::LocalTensor<half> w = work.Get<half> ();
  AscendC::ReduceSum (c, b, w, 4);
  outQueue.EnQue (c);
  inQueue.FreeTensor (b);
  AscendC::LocalTensor<half> d = outQueue.DeQue<half> ();
  AscendC::DataCopy (yGm, d, 16);
  outQueue.FreeTensor (d);
}
