/* lib/matmul_intf.h: declarations of the part of the Ascend C Matmul high-level API a mixed cube + vector
 * kernel uses (the "mix vector-cube" form of CANN's MatmulLeakyReluCustom sample), for g++ -fsyntax-only like
 * ../kernel_operator.h. Restated from the API pages (cannmirror/asc-devkit, docs/api/context/:
 * TCubeTiling结构体.md, Matmul使用说明, SetTensorA.md, SetTensorB.md, SetBias.md, SetTail.md, Iterate.md,
 * GetTensorC.md, End.md, REGIST_MATMUL_OBJ.md); the twin (../twin/lib/matmul_intf.h) implements the same
 * subset. Not CANN's header; nothing installs it. */
#ifndef FW_ASCEND_MATMUL_INTF_H
#define FW_ASCEND_MATMUL_INTF_H

#include "../kernel_operator.h"

/* TCubeTiling结构体.md. */
struct TCubeTiling
{
  int usedCoreNum;
  int M, N, Ka, Kb;
  int singleCoreM, singleCoreN, singleCoreK;
  int baseM, baseN, baseK;
  int depthA1, depthB1;
  int stepM, stepN;
  int isBias;
  int transLength;
  int iterateOrder;
  int shareMode, shareL1Size, shareL0CSize, shareUbSize;
  int batchM, batchN, singleBatchM, singleBatchN;
  int stepKa, stepKb;
  int depthAL1CacheUB, depthBL1CacheUB;
  int dbL0A, dbL0B, dbL0C;
};

/* Matmul使用说明: matrix formats. */
enum class CubeFormat { ND, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

namespace matmul {

/* MatmulType<position, format, type, isTrans>. */
template <AscendC::TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false> struct MatmulType
{
  using T = TYPE;
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE> class Matmul
{
public:
  __aicore__ Matmul () {}
  __aicore__ void Init (const TCubeTiling *cubeTiling, AscendC::TPipe *tpipe = nullptr);
  /* SetTensorA.md / SetTensorB.md (GM operands), SetBias.md, SetTail.md. */
  __aicore__ void SetTensorA (const AscendC::GlobalTensor<typename A_TYPE::T> &gm, bool isTransposeA = false);
  __aicore__ void SetTensorB (const AscendC::GlobalTensor<typename B_TYPE::T> &gm, bool isTransposeB = false);
  __aicore__ void SetBias (const AscendC::GlobalTensor<typename BIAS_TYPE::T> &biasGlobal);
  __aicore__ void SetTail (int tailM = -1, int tailN = -1, int tailK = -1);
  /* Iterate.md: the next baseM x baseN block of C; false when none is left. */
  template <bool sync = true> __aicore__ bool Iterate (bool enPartialSum = false);
  /* GetTensorC.md: the block Iterate computed, into a VECIN/VECOUT tensor. */
  template <bool sync = true>
  __aicore__ void GetTensorC (const AscendC::LocalTensor<typename C_TYPE::T> &co2Local, uint8_t enAtomic = 0,
                              bool enSequentialWrite = false);
  /* End.md. */
  __aicore__ void End ();
};

}  // namespace matmul

/* GetSysWorkSpacePtr.md. */
__aicore__ GM_ADDR GetSysWorkSpacePtr ();

/* REGIST_MATMUL_OBJ.md: REGIST_MATMUL_OBJ(&pipe, workspace, obj, &tiling, ...) registers each Matmul object
 * with the pipe and its tiling. */
template <class MM> __aicore__ void FwRegistMatmulObj (AscendC::TPipe *tpipe, GM_ADDR workspace, MM &obj,
                                                       const TCubeTiling *tiling);
#define REGIST_MATMUL_OBJ(tpipe, workspace, obj, tiling) FwRegistMatmulObj ((tpipe), (workspace), obj, (tiling))

#endif
