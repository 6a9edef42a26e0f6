/* Cast.md's round modes, float -> half: y[16 m + i] is x[i] cast in RoundMode m (CAST_NONE .. CAST_ODD, in the
 * enum's order). The page's example is x = 0.5 + 2^-12 (a tie between 0.5 and 0.5 + 2^-11): CAST_RINT, CAST_FLOOR
 * and CAST_TRUNC give 0.5, CAST_CEIL, CAST_ROUND and CAST_ODD 0.5 + 2^-11. tests/core/test-ascend-twin.c
 * passes the other inputs and checks each. The broken variants give a conversion a mode its row of the page's
 * Atlas A2 table does not list: 1 half -> float with CAST_RINT (only CAST_NONE), 2 float -> int32 with
 * CAST_NONE (only the five rounding modes), 3 int32 -> half (a dequantise on A2). */
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
  AscendC::TBuf<AscendC::TPosition::VECCALC> work;
  AscendC::GlobalTensor<float> xGm;
  AscendC::GlobalTensor<half> yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x), 16);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ half *> (y), 128);
  pipe.InitBuffer (inQueue, 1, 16 * sizeof (float));
  pipe.InitBuffer (outQueue, 1, 128 * sizeof (half));
  pipe.InitBuffer (work, 16 * sizeof (float));
  AscendC::LocalTensor<float> a = inQueue.AllocTensor<float> ();
  AscendC::DataCopy (a, xGm, 16);
  inQueue.EnQue (a);
  AscendC::LocalTensor<float> b = inQueue.DeQue<float> ();
  AscendC::LocalTensor<half> c = outQueue.AllocTensor<half> ();
  AscendC::Duplicate (c, half (0.0f), 128);
  AscendC::Cast (c[0], b, AscendC::RoundMode::CAST_NONE, 16);
  AscendC::Cast (c[16], b, AscendC::RoundMode::CAST_RINT, 16);
  AscendC::Cast (c[32], b, AscendC::RoundMode::CAST_FLOOR, 16);
  AscendC::Cast (c[48], b, AscendC::RoundMode::CAST_CEIL, 16);
  AscendC::Cast (c[64], b, AscendC::RoundMode::CAST_ROUND, 16);
  AscendC::Cast (c[80], b, AscendC::RoundMode::CAST_TRUNC, 16);
  AscendC::Cast (c[96], b, AscendC::RoundMode::CAST_ODD, 16);
#if BROKEN == 1
  AscendC::LocalTensor<float> w = work.Get<float> ();
  AscendC::Cast (w, c, AscendC::RoundMode::CAST_RINT, 16);
#elif BROKEN == 2
  AscendC::LocalTensor<int32_t> w = work.Get<int32_t> ();
  AscendC::Cast (w, b, AscendC::RoundMode::CAST_NONE, 16);
#elif BROKEN == 3
  AscendC::LocalTensor<int32_t> w = work.Get<int32_t> ();
  AscendC::Cast (w, b, AscendC::RoundMode::CAST_TRUNC, 16);
  AscendC::Cast (c[112], w, AscendC::RoundMode::CAST_NONE, 16);
#else
  (void) work;
#endif
  outQueue.EnQue (c);
  inQueue.FreeTensor (b);
  AscendC::LocalTensor<half> d = outQueue.DeQue<half> ();
  AscendC::DataCopy (yGm, d, 128);
  outQueue.FreeTensor (d);
}
