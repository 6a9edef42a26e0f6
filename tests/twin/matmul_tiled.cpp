/* A mixed cube + vector kernel over any shape: C = Relu(A B + bias), A [FW_M, FW_K], B [FW_K, FW_N] (or
 * [FW_N, FW_K] with FW_TRANS_B), bias [FW_N], float, with the TCubeTiling the test computes on the host
 * (fw_ascend_cube_tiling) given as FW_TILING. Each block takes one core's share of C (M shares first, as
 * TCubeTiling's usedCoreNum counts them), SetTail for a short last share, and walks GetTensorC's blocks in
 * the tiling's iterateOrder (0: M first, 1: N first), each double-buffer-free: fetched into a VECOUT tensor,
 * Relu, copied out. */
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR tiling)
{
  (void) tiling;
  TCubeTiling t;
  FW_TILING;
  AscendC::TPipe pipe;
  matmul::Matmul<matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>,
                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float, FW_TRANS_B>,
                 matmul::MatmulType<AscendC::TPosition::VECIN, CubeFormat::ND, float>,
                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>> mm;
  REGIST_MATMUL_OBJ (&pipe, GetSysWorkSpacePtr (), mm, &t);
  int64_t idx = AscendC::GetBlockIdx ();
  int64_t mShares = (t.M + t.singleCoreM - 1) / t.singleCoreM;
  int64_t mCore = idx % mShares, nCore = idx / mShares;
  int64_t m0 = mCore * t.singleCoreM, n0 = nCore * t.singleCoreN;
  int sm = t.M - m0 < t.singleCoreM ? static_cast<int> (t.M - m0) : t.singleCoreM;
  int sn = t.N - n0 < t.singleCoreN ? static_cast<int> (t.N - n0) : t.singleCoreN;
  AscendC::GlobalTensor<float> aGm, bGm, biasGm, cGm;
  aGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (a) + m0 * t.Ka, static_cast<uint64_t> (sm) * t.Ka);
  uint64_t bOffset = FW_TRANS_B ? n0 * t.Kb : n0;
  bGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (b) + bOffset, static_cast<uint64_t> (t.Kb) * t.N - bOffset);
  biasGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (bias) + n0, sn);
  cGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (c) + m0 * t.N + n0,
                       static_cast<uint64_t> (sm - 1) * t.N + sn);
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  pipe.InitBuffer (outQueue, 1, static_cast<uint32_t> (t.baseM * t.baseN) * sizeof (float));
  mm.SetTensorA (aGm);
  mm.SetTensorB (bGm, FW_TRANS_B);
  mm.SetBias (biasGm);
  mm.SetTail (sm, sn);
  int mBlocks = (sm + t.baseM - 1) / t.baseM, nBlocks = (sn + t.baseN - 1) / t.baseN;
  for (int count = 0; mm.Iterate (); count++)
    {
      int bi = t.iterateOrder == 1 ? count / nBlocks : count % mBlocks;
      int bj = t.iterateOrder == 1 ? count % nBlocks : count / mBlocks;
      int rows = sm - bi * t.baseM < t.baseM ? sm - bi * t.baseM : t.baseM;
      int cols = sn - bj * t.baseN < t.baseN ? sn - bj * t.baseN : t.baseN;
      AscendC::LocalTensor<float> cLocal = outQueue.AllocTensor<float> ();
      mm.GetTensorC (cLocal, 0, true);
      AscendC::Relu (cLocal, cLocal, rows * t.baseN);
      outQueue.EnQue (cLocal);
      AscendC::LocalTensor<float> out = outQueue.DeQue<float> ();
      uint32_t padded = (static_cast<uint32_t> (cols) * sizeof (float) + 31) / 32 * 32;
      AscendC::DataCopyExtParams p (static_cast<uint16_t> (rows), static_cast<uint32_t> (cols) * sizeof (float),
                                    (static_cast<uint32_t> (t.baseN) * sizeof (float) - padded) / 32,
                                    static_cast<uint32_t> (t.N - cols) * sizeof (float), 0);
      AscendC::DataCopyPad (cGm[static_cast<uint64_t> (bi) * t.baseM * t.N + bj * t.baseN], out, p);
      outQueue.FreeTensor (out);
    }
  mm.End ();
}
