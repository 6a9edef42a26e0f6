/* Each instruction computes in the type it is issued in. x = 2048 in half: Adds(x, 1) in half gives 2049,
 * a tie between 2048 and 2050 in binary16, rounded to even: 2048 (y[0..15]). The same Adds on x widened to
 * float gives 2049 exactly, which CAST_CEIL takes up to 2050 (y[16..31]); had the float instruction been
 * rounded to half it would be 2048 there too. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::TBuf<AscendC::TPosition::VECCALC> wide;
  AscendC::GlobalTensor<half> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ half *> (x), 16);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ half *> (y), 32);
  pipe.InitBuffer (inQueue, 1, 16 * sizeof (half));
  pipe.InitBuffer (outQueue, 1, 32 * sizeof (half));
  pipe.InitBuffer (wide, 16 * sizeof (float));
  AscendC::LocalTensor<half> a = inQueue.AllocTensor<half> ();
  AscendC::DataCopy (a, xGm, 16);
  inQueue.EnQue (a);
  AscendC::LocalTensor<half> b = inQueue.DeQue<half> ();
  AscendC::LocalTensor<half> c = outQueue.AllocTensor<half> ();
  AscendC::LocalTensor<float> w = wide.Get<float> ();
  AscendC::Adds (c, b, half (1.0f), 16);
  AscendC::Cast (w, b, AscendC::RoundMode::CAST_NONE, 16);
  AscendC::Adds (w, w, 1.0f, 16);
  AscendC::Cast (c[16], w, AscendC::RoundMode::CAST_CEIL, 16);
  outQueue.EnQue (c);
  inQueue.FreeTensor (b);
  AscendC::LocalTensor<half> d = outQueue.DeQue<half> ();
  AscendC::DataCopy (yGm, d, 32);
  outQueue.FreeTensor (d);
}
