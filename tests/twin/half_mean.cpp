/* The mean of 4096 float16 values of 20: their sum, 81920, is past the half range (65504). Summed in float32
 * after a Cast (CAST_NONE, exact) and rounded once (CAST_RINT), the mean is 20 exactly; BROKEN 1 sums in half,
 * as a half ReduceSum does (ReduceSum.md: half partial sums saturate at 65504), and the mean is 65504 / 4096
 * = 15.99: the accumulation the Ascend generator promotes to float32 for a float16 group. */
#include "fixture.h"

#ifndef BROKEN
#define BROKEN 0
#endif

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::TBuf<AscendC::TPosition::VECCALC> wide, red0, red1;
  AscendC::GlobalTensor<half> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ half *> (x), 4096);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ half *> (y), 16);
  pipe.InitBuffer (inQueue, 1, 4096 * sizeof (half));
  pipe.InitBuffer (outQueue, 1, 16 * sizeof (half));
  pipe.InitBuffer (wide, 4096 * sizeof (float));
  pipe.InitBuffer (red0, 32);
  pipe.InitBuffer (red1, 256);
  AscendC::LocalTensor<half> a = inQueue.AllocTensor<half> ();
  AscendC::DataCopy (a, xGm, 4096);
  inQueue.EnQue (a);
  AscendC::LocalTensor<half> b = inQueue.DeQue<half> ();
  AscendC::LocalTensor<half> c = outQueue.AllocTensor<half> ();
  AscendC::Duplicate (c, half (0.0f), 16);
#if BROKEN == 1
  (void) wide;
  AscendC::LocalTensor<half> s = red0.Get<half> ();
  AscendC::ReduceSum (s, b, red1.Get<half> (), 4096);
  AscendC::Muls (s, s, half (1.0f / 4096.0f), 16);
  AscendC::Adds (c, s, half (0.0f), 16);
#else
  AscendC::LocalTensor<float> w = wide.Get<float> ();
  AscendC::LocalTensor<float> s = red0.Get<float> ();
  AscendC::Cast (w, b, AscendC::RoundMode::CAST_NONE, 4096);
  AscendC::ReduceSum (s, w, red1.Get<float> (), 4096);
  AscendC::Muls (s, s, 1.0f / 4096.0f, 8);
  AscendC::Cast (c, s, AscendC::RoundMode::CAST_RINT, 8);
#endif
  outQueue.EnQue (c);
  inQueue.FreeTensor (b);
  AscendC::LocalTensor<half> d = outQueue.DeQue<half> ();
  AscendC::DataCopy (yGm, d, 16);
  outQueue.FreeTensor (d);
}
