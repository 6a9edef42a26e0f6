/* Gather (twin_vector.h) as the integer Conv's im2col prepass uses it: 64 floats x, offsets in bytes, a base
 * address. With BROKEN 0, y[i] = x[(63 - i) / 2 + 8]: offsets (63 - i) / 2 * 4 from a base of 32 bytes (eight
 * elements), so every element is read and some twice. Broken: 1 a byte offset that is not a whole float, 2 an
 * offset past the source, 3 more elements than the offset tensor holds. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::TBuf<AscendC::TPosition::VECCALC> offBuf;
  AscendC::GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x), 64);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y), 64);
  pipe.InitBuffer (inQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (outQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (offBuf, 64 * sizeof (uint32_t));
  AscendC::LocalTensor<float> a = inQueue.AllocTensor<float> ();
  AscendC::DataCopy (a, xGm, 64);
  inQueue.EnQue (a);
  AscendC::LocalTensor<float> b = inQueue.DeQue<float> ();
  AscendC::LocalTensor<uint32_t> off = offBuf.Get<uint32_t> ();
  for (uint32_t i = 0; i < 64; i++)
    off.SetValue (i, (63 - i) / 2 * 4 + (BROKEN == 1 && i == 5 ? 2 : 0) + (BROKEN == 2 && i == 9 ? 4 * 56 : 0));
  AscendC::SetFlag<AscendC::HardEvent::S_V> (0);
  AscendC::WaitFlag<AscendC::HardEvent::S_V> (0);
  AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
  AscendC::Gather (c, b, BROKEN == 3 ? off[32] : off, 32, 64);
  outQueue.EnQue (c);
  inQueue.FreeTensor (b);
  AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
  AscendC::DataCopy (yGm, d, 64);
  outQueue.FreeTensor (d);
}
