/* The mix vector-cube form (lib/matmul_intf.h): C = 2 (A B + bias), A [48, 40], B [40, 32], bias [32] in
 * float over two cores that split M (singleCoreM 24 = a 16-row block and an 8-row tail), base 16 x 16 x 16,
 * each block fetched into a VECOUT tensor, doubled and copied out. Broken one rule at a time by BROKEN:
 *   1 baseM 20 (not a multiple of 16)           2 baseK 1024 with dbL0A 2 (L0A overflows)
 *   3 depthA1 1024 (L1 overflows)               4 GetTensorC before Iterate
 *   5 a C tensor smaller than baseM x baseN      6 Iterate before SetTensorB
 *   7 no End                                     8 usedCoreNum 3 for two cores' shares
 *   9 depthB1 2, fewer blocks than B1's stepN x stepKb buffer of 3 */
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR tiling)
{
  (void) tiling;
  const int M = 48, N = 32, K = 40;
  TCubeTiling t;
  t.usedCoreNum = BROKEN == 8 ? 3 : 2;
  t.M = M;
  t.N = N;
  t.Ka = t.Kb = t.singleCoreK = K;
  t.singleCoreM = 24;
  t.singleCoreN = N;
  t.baseM = BROKEN == 1 ? 20 : 16;
  t.baseN = 16;
  t.baseK = BROKEN == 2 ? 1024 : 16;
  t.dbL0A = BROKEN == 2 ? 2 : 1;
  t.depthA1 = BROKEN == 3 ? 1024 : 3;
  t.depthB1 = BROKEN == 9 ? 2 : 3;
  t.stepKa = t.stepKb = 3;  /* A1 and B1 hold all of K (3 x baseK 16 >= 40) */
  t.isBias = 1;
  AscendC::TPipe pipe;
  matmul::Matmul<matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>,
                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>,
                 matmul::MatmulType<AscendC::TPosition::VECIN, CubeFormat::ND, float>,
                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>> mm;
  REGIST_MATMUL_OBJ (&pipe, GetSysWorkSpacePtr (), mm, &t);
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::GlobalTensor<float> aGm, bGm, biasGm, cGm;
  int64_t core = AscendC::GetBlockIdx ();
  aGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (a) + core * 24 * K, 24 * K);
  bGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (b), K * N);
  biasGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (bias), N);
  cGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (c) + core * 24 * N, 24 * N);
  pipe.InitBuffer (outQueue, 1, (BROKEN == 5 ? 128 : 256) * sizeof (float));
  if (BROKEN == 4)
    {
      AscendC::LocalTensor<float> early = outQueue.AllocTensor<float> ();
      mm.GetTensorC (early, 0, true);
      outQueue.FreeTensor (early);
    }
  mm.SetTensorA (aGm);
  if (BROKEN != 6)
    mm.SetTensorB (bGm);
  mm.SetBias (biasGm);
  const int mBlocks = 2;
  for (int count = 0; mm.Iterate (); count++)
    {
      int bi = count % mBlocks, bj = count / mBlocks;
      int rows = bi == 1 ? 8 : 16;
      AscendC::LocalTensor<float> cLocal = outQueue.AllocTensor<float> ();
      mm.GetTensorC (cLocal, 0, true);
      AscendC::Muls (cLocal, cLocal, 2.0f, 256);
      outQueue.EnQue (cLocal);
      AscendC::LocalTensor<float> out = outQueue.DeQue<float> ();
      AscendC::DataCopyExtParams p (static_cast<uint16_t> (rows), 16 * sizeof (float), 0, (N - 16) * sizeof (float), 0);
      AscendC::DataCopyPad (cGm[bi * 16 * N + bj * 16], out, p);
      outQueue.FreeTensor (out);
    }
  if (BROKEN != 7)
    mm.End ();
}
