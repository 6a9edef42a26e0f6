/* The high-dimensional slicing forms (twin_repeat.h) on 8 rows of 7 floats at a pitch of 8 (one 32-byte
 * block a row), as the generator's row helpers use them: a copy, the rows' sums and maxima with
 * WholeReduceSum/WholeReduceMax (srcRepStride 1 block), their difference, Brcb's block per row and an Add
 * that reads it with a block stride of 0. With BROKEN 0, y[8r + c] = x[8r + c] + max_r - sum_r for c < 7 and
 * y[8r + 7] = x[8r + 7] (the mask leaves that lane alone). Broken: 1 repeatTime 256, 2 a continuous mask of
 * 65 floats, 3 a repeat stride that reads past the tensor, 4 dstBlkStride 0, 5 Brcb into its own source,
 * 6 an all-zero bit mask. */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::TBuf<AscendC::TPosition::VECCALC> sumBuf, maxBuf, bcBuf;
  AscendC::GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x), 64);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y), 64);
  pipe.InitBuffer (inQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (outQueue, 1, 64 * sizeof (float));
  pipe.InitBuffer (sumBuf, 8 * sizeof (float));
  pipe.InitBuffer (maxBuf, 8 * sizeof (float));
  pipe.InitBuffer (bcBuf, 64 * sizeof (float));
  AscendC::LocalTensor<float> a = inQueue.AllocTensor<float> ();
  AscendC::DataCopy (a, xGm, 64);
  inQueue.EnQue (a);
  AscendC::LocalTensor<float> b = inQueue.DeQue<float> ();
  AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
  AscendC::LocalTensor<float> sums = sumBuf.Get<float> ();
  AscendC::LocalTensor<float> maxs = maxBuf.Get<float> ();
  AscendC::LocalTensor<float> bc = bcBuf.Get<float> ();
  AscendC::Muls (c, b, 1.0f, 64, 1, AscendC::UnaryRepeatParams (1, 1, 8, 8));
  AscendC::WholeReduceSum (sums, b, 7, BROKEN == 1 ? 256 : 8, 1, 1, BROKEN == 3 ? 2 : 1);
  AscendC::WholeReduceMax (maxs, b, 7, 8, 1, 1, 1, AscendC::ReduceOrder::ORDER_ONLY_VALUE);
  AscendC::Sub (sums, maxs, sums, 8, 1, AscendC::BinaryRepeatParams ());
  AscendC::Brcb (bc, BROKEN == 5 ? bc : sums, 1, AscendC::BrcbRepeatParams (1, 8));
  if (BROKEN == 6)
    {
      const uint64_t none[2] = { 0, 0 };
      AscendC::Add (c, b, bc, none, 8, AscendC::BinaryRepeatParams (1, 1, 0, 1, 1, 1));
    }
  else
    AscendC::Add (c, b, bc, BROKEN == 2 ? 65 : 7, 8, AscendC::BinaryRepeatParams (BROKEN == 4 ? 0 : 1, 1, 0, 1, 1, 1));
  outQueue.EnQue (c);
  inQueue.FreeTensor (b);
  AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
  AscendC::DataCopy (yGm, d, 64);
  outQueue.FreeTensor (d);
}
