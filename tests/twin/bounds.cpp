/* Broken, three ways selected by BROKEN: 1 a DataCopy past the SetGlobalBuffer span, 2 a vector
 * instruction over more elements than its tensor holds, 3 DeQue of an empty queue, 4 Compare over a count
 * that does not fill whole 256-byte blocks. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::TBuf<AscendC::TPosition::VECCALC> maskBuf;
  AscendC::GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x), BROKEN == 1 ? 32 : 64);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y), 64);
  pipe.InitBuffer (inQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (outQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (maskBuf, 256);
  AscendC::LocalTensor<float> a = inQueue.AllocTensor<float> ();
  AscendC::DataCopy (a, xGm, 64);
  if (BROKEN != 3)
    inQueue.EnQue (a);
  AscendC::LocalTensor<float> b = inQueue.DeQue<float> ();
  AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
  AscendC::Muls (c, b, 2.0f, BROKEN == 2 ? 96 : 64);
  if (BROKEN == 4)
    {
      AscendC::LocalTensor<uint8_t> m = maskBuf.Get<uint8_t> ();
      AscendC::CompareScalar (m, c, 0.0f, AscendC::CMPMODE::GT, 48);
    }
  outQueue.EnQue (c);
  if (BROKEN != 3)
    inQueue.FreeTensor (b);
  else
    inQueue.FreeTensor (a);
  AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
  AscendC::DataCopy (yGm, d, 64);
  outQueue.FreeTensor (d);
}
