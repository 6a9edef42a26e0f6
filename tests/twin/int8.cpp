/* The integer group's contract on the twin (tests/core/test-ascend-int8.c runs it): A int8 [32, 64] with zero
 * point 3, B int8 [64, 32], one core, blocks of 16 x 32 x 32: the Matmul API's int8 x int8 -> int32 C
 * (Matmul使用说明, table 2), the zero point's correction corr[c] = -3 sum_k B[k][c] (the input corr) added in
 * int32, then y = 0.5 acc requantised to int8 with zero point -2: Cast float -> float CAST_RINT (half to even;
 * 0.5 acc lands on .5 for every odd acc), the clamp, the zero point, float -> half -> int8 CAST_NONE (Cast.md's
 * A2 table), copied out. Broken one rule at a time by BROKEN:
 *   1 CAST_ROUND (half away from zero) for the rounding   2 the correction left out
 *   3 a uint8_t A (no such Matmul type)                  4 float -> int8 in one Cast (no such A2 form)
 *   5 a negative half cast to uint8_t (precision_conversion.md: an error) */
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using AType = std::conditional<BROKEN == 3, uint8_t, int8_t>::type;

extern "C" __global__ __aicore__ void fixture (GM_ADDR a, GM_ADDR b, GM_ADDR corr, GM_ADDR c, GM_ADDR tiling)
{
  (void) tiling;
  const int M = 32, N = 32, K = 64;
  TCubeTiling t;
  t.usedCoreNum = 1;
  t.M = M;
  t.N = N;
  t.Ka = t.Kb = t.singleCoreK = K;
  t.singleCoreM = M;
  t.singleCoreN = N;
  t.baseM = 16;
  t.baseN = 32;
  t.baseK = 32;
  t.stepKa = t.stepKb = 2;  /* A1 and B1 hold all of K */
  t.depthA1 = t.depthB1 = 2;
  AscendC::TPipe pipe;
  matmul::Matmul<matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, AType>,
                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, int8_t>,
                 matmul::MatmulType<AscendC::TPosition::VECIN, CubeFormat::ND, int32_t>,
                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, int32_t>> mm;
  REGIST_MATMUL_OBJ (&pipe, GetSysWorkSpacePtr (), mm, &t);
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> cQueue, corrQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::TBuf<AscendC::TPosition::VECCALC> yBuf, hBuf, uBuf;
  AscendC::GlobalTensor<AType> aGm;
  AscendC::GlobalTensor<int8_t> bGm, cGm;
  AscendC::GlobalTensor<int32_t> corrGm;
  aGm.SetGlobalBuffer (reinterpret_cast<__gm__ AType *> (a), M * K);
  bGm.SetGlobalBuffer (reinterpret_cast<__gm__ int8_t *> (b), K * N);
  corrGm.SetGlobalBuffer (reinterpret_cast<__gm__ int32_t *> (corr), N);
  cGm.SetGlobalBuffer (reinterpret_cast<__gm__ int8_t *> (c), M * N);
  pipe.InitBuffer (cQueue, 1, 16 * 32 * sizeof (int32_t));
  pipe.InitBuffer (corrQueue, 1, 32 * sizeof (int32_t));
  pipe.InitBuffer (outQueue, 1, 16 * 32);
  pipe.InitBuffer (yBuf, 16 * 32 * sizeof (float));
  pipe.InitBuffer (hBuf, 16 * 32 * sizeof (half));
  pipe.InitBuffer (uBuf, 16 * 32);
  AscendC::LocalTensor<int32_t> corrIn = corrQueue.AllocTensor<int32_t> ();
  AscendC::DataCopy (corrIn, corrGm, 32);
  corrQueue.EnQue (corrIn);
  AscendC::LocalTensor<int32_t> corrL = corrQueue.DeQue<int32_t> ();
  mm.SetTensorA (aGm);
  mm.SetTensorB (bGm);
  for (int count = 0; mm.Iterate (); count++)
    {
      AscendC::LocalTensor<int32_t> acc = cQueue.AllocTensor<int32_t> ();
      mm.GetTensorC (acc, 0, true);
      cQueue.EnQue (acc);
      acc = cQueue.DeQue<int32_t> ();
      if (BROKEN != 2)
        for (int r = 0; r < 16; r++)
          AscendC::Add (acc[r * 32], acc[r * 32], corrL, 32);
      AscendC::LocalTensor<float> y = yBuf.Get<float> ();
      AscendC::LocalTensor<half> h = hBuf.Get<half> ();
      AscendC::Cast (y, acc, AscendC::RoundMode::CAST_NONE, 512);
      cQueue.FreeTensor (acc);
      AscendC::Muls (y, y, 0.5f, 512);
      AscendC::Cast (y, y, BROKEN == 1 ? AscendC::RoundMode::CAST_ROUND : AscendC::RoundMode::CAST_RINT, 512);
      AscendC::Maxs (y, y, -126.0f, 512);
      AscendC::Mins (y, y, 129.0f, 512);
      AscendC::Adds (y, y, -2.0f, 512);
      AscendC::Cast (h, y, AscendC::RoundMode::CAST_NONE, 512);
      AscendC::LocalTensor<int8_t> o = outQueue.AllocTensor<int8_t> ();
      if (BROKEN == 4)
        AscendC::Cast (o, y, AscendC::RoundMode::CAST_RINT, 512);
      else
        AscendC::Cast (o, h, AscendC::RoundMode::CAST_NONE, 512);
      if (BROKEN == 5)
        {
          AscendC::LocalTensor<uint8_t> u = uBuf.Get<uint8_t> ();
          AscendC::Cast (u, h, AscendC::RoundMode::CAST_NONE, 512);
        }
      outQueue.EnQue (o);
      o = outQueue.DeQue<int8_t> ();
      AscendC::DataCopy (cGm[count * 16 * 32], o, 512);
      outQueue.FreeTensor (o);
    }
  corrQueue.FreeTensor (corrL);
  mm.End ();
}
