/* Broken one rule at a time, selected by BROKEN (test-ascend-twin.c names the code each must give):
 *   1 65 buffers (InitBuffer num summed)          2 9 VECIN tensors allocated at once
 *   3 AllocTensor from a queue with none free      4 EnQue past the queue's depth
 *   5 EnQue of a tensor already queued             6 DataCopyPad with blockCount 0
 *   7 ReduceSum with a sharedTmpBuffer too small   8 Select with the wrong mode
 *   9 a DataCopy into the input                    10 a raw read past the input (the guard page)
 * Otherwise y = 2x over 64 floats. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> shallow;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> many[9];
  AscendC::TBuf<AscendC::TPosition::VECCALC> work, maskBuf;
  AscendC::GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x), 64);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y), 64);
  pipe.InitBuffer (inQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (outQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (shallow, 2, 64 * sizeof (float));
  pipe.InitBuffer (work, 32);
  pipe.InitBuffer (maskBuf, 256);
  if (BROKEN == 1)
    for (int i = 0; i < 9; i++)
      pipe.InitBuffer (many[i], 7, 32);
  if (BROKEN == 2)
    {
      for (int i = 0; i < 9; i++)
        pipe.InitBuffer (many[i], 1, 32);
      AscendC::LocalTensor<float> held[9];
      for (int i = 0; i < 9; i++)
        held[i] = many[i].AllocTensor<float> ();
      for (int i = 0; i < 9; i++)
        many[i].FreeTensor (held[i]);
    }
  AscendC::LocalTensor<float> a = inQueue.AllocTensor<float> ();
  if (BROKEN == 3)
    {
      AscendC::LocalTensor<float> again = inQueue.AllocTensor<float> ();
      (void) again;
    }
  if (BROKEN == 4)
    {
      AscendC::LocalTensor<float> s0 = shallow.AllocTensor<float> ();
      AscendC::LocalTensor<float> s1 = shallow.AllocTensor<float> ();
      shallow.EnQue (s0);
      shallow.EnQue (s1);
      AscendC::LocalTensor<float> d0 = shallow.DeQue<float> ();
      AscendC::LocalTensor<float> d1 = shallow.DeQue<float> ();
      shallow.FreeTensor (d0);
      shallow.FreeTensor (d1);
    }
  if (BROKEN == 6)
    {
      AscendC::DataCopyExtParams params (0, 256, 0, 0, 0);
      AscendC::DataCopyPadExtParams<float> pad (false, 0, 0, 0.0f);
      AscendC::DataCopyPad (a, xGm, params, pad);
    }
  else
    AscendC::DataCopy (a, xGm, 64);
  if (BROKEN == 9)
    AscendC::DataCopy (xGm, a, 64);
  if (BROKEN == 10)
    {
      volatile float *raw = reinterpret_cast<volatile float *> (x);
      (void) raw[64];
    }
  inQueue.EnQue (a);
  if (BROKEN == 5)
    inQueue.EnQue (a);
  AscendC::LocalTensor<float> b = inQueue.DeQue<float> ();
  AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
  AscendC::Muls (c, b, 2.0f, 64);
  if (BROKEN == 7)
    {
      AscendC::LocalTensor<float> w = work.Get<float> (4);
      AscendC::ReduceSum (w, b, w, 64);
    }
  if (BROKEN == 8)
    {
      AscendC::LocalTensor<uint8_t> m = maskBuf.Get<uint8_t> ();
      AscendC::CompareScalar (m, c, 0.0f, AscendC::CMPMODE::GT, 64);
      AscendC::Select (c, m, c, 0.0f, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);
    }
  outQueue.EnQue (c);
  inQueue.FreeTensor (b);
  AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
  AscendC::DataCopy (yGm, d, 64);
  outQueue.FreeTensor (d);
}
