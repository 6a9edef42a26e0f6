/* lib/matmul_intf.h of Fusion Workbench's Ascend C twin: the Matmul high-level API in the one form the "mix
 * vector-cube" paradigm uses (CANN's MatmulLeakyReluCustom sample): A, B and the bias in GM (ND), C fetched
 * block by block into a VECIN/VECOUT LocalTensor with synchronous Iterate/GetTensorC, then the vector epilogue.
 *
 * Written from the API pages (cannmirror/asc-devkit/docs/api/context/: TCubeTiling结构体.md, Matmul使用说明,
 * SetTensorA.md, SetTensorB.md, SetBias.md, Iterate.md, GetTensorC.md, End.md, REGIST_MATMUL_OBJ.md) and the
 * profile's L1/L0 sizes (data/hw/*.yaml); docs/ascend-twin.md lists the rules. It models the contract, not the
 * cube unit: L1/L0 are capacities checked against the tiling, and the arithmetic is float accumulation. */
#ifndef FW_ASCEND_MATMUL_INTF_H
#define FW_ASCEND_MATMUL_INTF_H

#include <algorithm>
#include <type_traits>
#include <vector>

#include "../kernel_operator.h"

/* TCubeTiling结构体.md: the fields the kernel side reads (the reserved ones are kept for layout only). */
struct TCubeTiling
{
  int usedCoreNum = 1;
  int M = 0, N = 0, Ka = 0, Kb = 0;
  int singleCoreM = 0, singleCoreN = 0, singleCoreK = 0;
  int baseM = 0, baseN = 0, baseK = 0;
  int depthA1 = 1, depthB1 = 1;
  int stepM = 1, stepN = 1;
  int isBias = 0;
  int transLength = 0;
  int iterateOrder = 0;
  int shareMode = 0, shareL1Size = 0, shareL0CSize = 0, shareUbSize = 0;
  int batchM = 1, batchN = 1, singleBatchM = 1, singleBatchN = 1;
  int stepKa = 1, stepKb = 1;
  int depthAL1CacheUB = 0, depthBL1CacheUB = 0;
  int dbL0A = 1, dbL0B = 1, dbL0C = 1;
};

enum class CubeFormat { ND, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

namespace matmul {

/* MatmulType: where a matrix lives, its format and element type (Matmul使用说明). */
template <AscendC::TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false> struct MatmulType
{
  static constexpr AscendC::TPosition pos = POSITION;
  static constexpr CubeFormat format = FORMAT;
  using T = TYPE;
  static constexpr bool isTrans = ISTRANS;
};

namespace twin {
/* Checks a tiling against TCubeTiling结构体.md and the profile's L1/L0A/L0B/L0C; false when it cannot run. */
bool CheckTiling (const TCubeTiling &t, unsigned a_bytes, unsigned b_bytes, unsigned bias_bytes, const char *file,
                  int line);
/* c[i * ldc + j] = (the products a[i * lda + k] * b(k, j) added for k = 0, 1, ... K - 1 in that order, from
 * 0) + bias[j] when bias is given, for i < rows, j < cols; b(k, j) is b[j * ldb + k] when trans_b, else
 * b[k * ldb + j]. Every product and sum is one float operation, rounded (no fused multiply-add). */
void BlockProduct (const float *a, uint64_t lda, const float *b, uint64_t ldb, bool trans_b, const float *bias,
                   int rows, int cols, int K, float *c, uint64_t ldc);
}  // namespace twin

/* The accumulator (L0C) type: Matmul使用说明 (Matmul模板参数, the L0cT of the CO1 form): "A矩阵数据类型是int8_t或
 * int4b_t时，C矩阵的数据类型是int32_t; A矩阵数据类型是half、float或bfloat16_t时，C矩阵的数据类型是float". */
template <typename TA> struct L0cType { using type = float; };
template <> struct L0cType<int8_t> { using type = int32_t; };

/* Matmul使用说明, 表2 "Matmul输入输出数据类型的支持列表" on Atlas A2: A and B both half, float or bfloat16 with C
 * of their type or float, or A and B int8_t with C int32_t, half or int8_t and an int32_t bias. Anything else
 * (uint8_t operands, int8_t A with a half B, an int8 product into float) is not a form the API takes. */
template <typename TA, typename TB, typename TC, typename TBias> constexpr bool MatmulTypesSupported ()
{
  return std::is_same<TA, int8_t>::value
             ? std::is_same<TB, int8_t>::value && std::is_same<TBias, int32_t>::value &&
                   (std::is_same<TC, int32_t>::value || std::is_same<TC, half>::value || std::is_same<TC, int8_t>::value)
             : (std::is_same<TA, half>::value || std::is_same<TA, float>::value) && std::is_same<TA, TB>::value &&
                   (std::is_same<TC, TA>::value || std::is_same<TC, float>::value) && !std::is_integral<TBias>::value;
}

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE> class Matmul
{
  using TA = typename A_TYPE::T;
  using TB = typename B_TYPE::T;
  using TC = typename C_TYPE::T;
  using TBias = typename BIAS_TYPE::T;
  using TAcc = typename L0cType<TA>::type;

public:
  Matmul () {}
  ~Matmul ()
  {
    if (pending_)
      fwtwin::Diag ("FW-TWIN-MATMUL-ORDER", iter_file_, iter_line_,
                    "Iterate computed a block of C that no GetTensorC fetched");
    if (ok_ && !ended_)
      fwtwin::Diag ("FW-TWIN-MATMUL-ORDER", init_file_, init_line_, "the Matmul object is never ended (End)");
  }

  /* REGIST_MATMUL_OBJ.md: the object is set up with the pipe and its tiling before any other call. */
  void FwRegister (AscendC::TPipe *pipe, const TCubeTiling *tiling, const char *file, int line)
  {
    init_file_ = file;
    init_line_ = line;
    if (pipe == nullptr || tiling == nullptr)
      {
        fwtwin::Diag ("FW-TWIN-MATMUL-TILING", file, line, "REGIST_MATMUL_OBJ without a pipe or a tiling");
        return;
      }
    t_ = *tiling;
    if (!MatmulTypesSupported<TA, TB, TC, TBias> ())
      {
        fwtwin::Diag ("FW-TWIN-MATMUL-TYPE", file, line,
                      "Matmul with A, B, C, bias of %u, %u, %u, %u bytes%s: not a combination of Matmul使用说明's table 2",
                      (unsigned) sizeof (TA), (unsigned) sizeof (TB), (unsigned) sizeof (TC), (unsigned) sizeof (TBias),
                      std::is_unsigned<TA>::value || std::is_unsigned<TB>::value ? " (unsigned operands)" : "");
        return;
      }
    ok_ = twin::CheckTiling (t_, sizeof (TA), sizeof (TB), t_.isBias ? sizeof (TBias) : 0, file, line);
  }

  /* SetTensorA.md / SetTensorB.md: the core's [singleCoreM, K] and [K, singleCoreN] in GM (row pitch Ka
   * and N, the original shapes). */
  void SetTensorA (const AscendC::GlobalTensor<TA> &gm, bool isTransposeA = false, FW_LOC)
  {
    if (isTransposeA)
      fwtwin::Diag ("FW-TWIN-UNSUPPORTED", FW_AT, "SetTensorA with a transposed A");
    a_ = gm;
    have_a_ = true;
    Restart ();
  }
  /* A transposed B (ONNX Gemm's transB, a Linear layer's weight) is [N, Kb] row-major: its row pitch is Kb. */
  void SetTensorB (const AscendC::GlobalTensor<TB> &gm, bool isTransposeB = false, FW_LOC)
  {
    (void) fwFile;
    (void) fwLine;
    trans_b_ = isTransposeB;
    b_ = gm;
    have_b_ = true;
    Restart ();
  }
  /* SetBias.md: a [singleCoreN] vector added to every row of C; the tiling must say isBias. */
  void SetBias (const AscendC::GlobalTensor<TBias> &gm, FW_LOC)
  {
    if (!t_.isBias)
      fwtwin::Diag ("FW-TWIN-MATMUL-TILING", FW_AT, "SetBias with a tiling whose isBias is 0");
    bias_ = gm;
    have_bias_ = true;
  }
  /* SetTail: the block's own M, N, K when the core's share is smaller than singleCore* (the last block). */
  void SetTail (int tailM = -1, int tailN = -1, int tailK = -1, FW_LOC)
  {
    if (tailK != -1 && tailK != t_.singleCoreK)
      fwtwin::Diag ("FW-TWIN-UNSUPPORTED", FW_AT, "SetTail with a K other than singleCoreK");
    if (tailM > t_.singleCoreM || tailN > t_.singleCoreN)
      fwtwin::Diag ("FW-TWIN-MATMUL-TILING", FW_AT, "SetTail(%d, %d) larger than singleCoreM/N (%d, %d)", tailM, tailN,
                    t_.singleCoreM, t_.singleCoreN);
    tail_m_ = tailM > 0 ? tailM : -1;
    tail_n_ = tailN > 0 ? tailN : -1;
    Restart ();
  }

  /* Iterate.md: each call computes the next [baseM, baseN] block of this core's C (smaller at the M and N
   * tails), M first with iterateOrder 0 and N first with 1 (TCubeTiling结构体.md); false when none is left. */
  template <bool sync = true> bool Iterate (bool enPartialSum = false, FW_LOC)
  {
    if (!sync || enPartialSum)
      {
        fwtwin::Diag ("FW-TWIN-UNSUPPORTED", FW_AT, "Iterate in the asynchronous or partial-sum form");
        return false;
      }
    if (!ok_ || !have_a_ || !have_b_ || (t_.isBias && !have_bias_))
      {
        fwtwin::Diag ("FW-TWIN-MATMUL-ORDER", FW_AT, "%s",
                      !ok_ ? "Iterate on a Matmul object without a valid REGIST_MATMUL_OBJ tiling"
                           : "Iterate before SetTensorA, SetTensorB and (isBias) SetBias");
        return false;
      }
    if (pending_)
      fwtwin::Diag ("FW-TWIN-MATMUL-ORDER", FW_AT, "Iterate again before GetTensorC fetched the last block");
    int sm = tail_m_ > 0 ? tail_m_ : t_.singleCoreM, sn = tail_n_ > 0 ? tail_n_ : t_.singleCoreN;
    int mb = (sm + t_.baseM - 1) / t_.baseM, nb = (sn + t_.baseN - 1) / t_.baseN;
    if (next_ >= mb * nb)
      {
        pending_ = false;
        return false;
      }
    int bi = t_.iterateOrder == 0 ? next_ % mb : next_ / nb;
    int bj = t_.iterateOrder == 0 ? next_ / mb : next_ % nb;
    next_++;
    iter_file_ = fwFile;
    iter_line_ = fwLine;
    rows_ = sm - bi * t_.baseM < t_.baseM ? sm - bi * t_.baseM : t_.baseM;
    cols_ = sn - bj * t_.baseN < t_.baseN ? sn - bj * t_.baseN : t_.baseN;
    pending_ = Compute (bi, bj, FW_AT);
    return true;
  }

  /* GetTensorC.md, the VECIN form with enSequentialWrite: the block lands as [baseM, baseN] row-major at the
   * tensor's start (a tail block's rows keep the baseN pitch); the tensor must hold baseM * baseN elements.
   * Synchronous: the data is in UB when the call returns, booked as written by the vector pipe's side. */
  template <bool sync = true>
  void GetTensorC (const AscendC::LocalTensor<TC> &co2Local, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                   FW_LOC)
  {
    if (!pending_)
      {
        fwtwin::Diag ("FW-TWIN-MATMUL-ORDER", FW_AT, "GetTensorC without a block from Iterate to fetch");
        return;
      }
    pending_ = false;
    if (!sync || enAtomic != 0 || !enSequentialWrite)
      {
        fwtwin::Diag ("FW-TWIN-UNSUPPORTED", FW_AT,
                      "GetTensorC to UB other than synchronous, without atomics, with enSequentialWrite");
        return;
      }
    uint64_t n = static_cast<uint64_t> (t_.baseM) * t_.baseN;
    if (co2Local.GetSize () < n)
      {
        fwtwin::Diag ("FW-TWIN-MATMUL-C-SIZE", FW_AT, "GetTensorC into a tensor of %u elements, less than baseM * baseN = %llu",
                      co2Local.GetSize (), (unsigned long long) n);
        return;
      }
    fwtwin::Issue (fwtwin::P_V);
    TC *d = co2Local.Use (n, fwtwin::P_V, true, true, "GetTensorC", FW_AT);
    if (d == nullptr)
      return;
    for (int i = 0; i < rows_; i++)
      for (int j = 0; j < cols_; j++)
        d[static_cast<uint64_t> (i) * t_.baseN + j] = static_cast<TC> (acc_[static_cast<uint64_t> (i) * t_.baseN + j]);
  }

  /* End.md: the object is done; nothing may follow. */
  void End (FW_LOC)
  {
    if (pending_)
      fwtwin::Diag ("FW-TWIN-MATMUL-ORDER", FW_AT, "End with a block Iterate computed still unfetched");
    pending_ = false;
    ended_ = true;
  }

  const TCubeTiling &FwTiling () const { return t_; }

private:
  void Restart ()
  {
    next_ = 0;
    pending_ = false;
    cached_a_ = cached_b_ = -1;
  }

  /* One block: float accumulation over K in baseK steps (L0C holds float for half and float inputs), the
   * bias added once. A and B come from GM through L1 (MTE2). TCubeTiling结构体.md: A1 holds depthA1 blocks of
   * baseM x baseK, a buffer of stepM blocks along M by stepKa along K (B1 likewise, stepN by stepKb); when that
   * buffer spans K (singleK <= baseK * stepKa: "K全载", asc-devkit's matmul_preload sample, which also gives
   * depthA1 = stepM * stepKa, twice that double-buffered) it holds a panel of stepM row blocks of A over all
   * of K, loaded when a block needs a panel it does not hold and kept for every block sharing it (the bias of
   * B's panel travels with it). Without all of K held, each block streams its own rows (columns) through. */
  bool Compute (int bi, int bj, const char *file, int line)
  {
    int K = t_.singleCoreK;
    uint64_t m0 = static_cast<uint64_t> (bi) * t_.baseM, n0 = static_cast<uint64_t> (bj) * t_.baseN;
    int sm = tail_m_ > 0 ? tail_m_ : t_.singleCoreM, sn = tail_n_ > 0 ? tail_n_ : t_.singleCoreN;
    bool a_res = static_cast<int64_t> (t_.stepKa) * t_.baseK >= K && t_.depthA1 >= t_.stepM * t_.stepKa;
    bool b_res = static_cast<int64_t> (t_.stepKb) * t_.baseK >= K && t_.depthB1 >= t_.stepN * t_.stepKb;
    int pa = a_res ? bi / t_.stepM : -1, pb = b_res ? bj / t_.stepN : -1;
    fwtwin::Issue (fwtwin::P_MTE2);
    uint64_t before = fwtwin::g.stats.mte2_bytes;
    if (!(a_res && cached_a_ == pa))
      {
        uint64_t r0 = a_res ? static_cast<uint64_t> (pa) * t_.stepM * t_.baseM : m0;
        uint64_t nr = a_res ? std::min<uint64_t> (static_cast<uint64_t> (t_.stepM) * t_.baseM, sm - r0) : rows_;
        for (uint64_t i = 0; i < nr; i++)
          if (!a_.Check ((r0 + i) * t_.Ka, K, false, "Matmul reading A", file, line))
            return false;
        fwtwin::g.stats.mte2_bytes += nr * K * sizeof (TA);
      }
    if (!(b_res && cached_b_ == pb))
      {
        uint64_t c0 = b_res ? static_cast<uint64_t> (pb) * t_.stepN * t_.baseN : n0;
        uint64_t nc = b_res ? std::min<uint64_t> (static_cast<uint64_t> (t_.stepN) * t_.baseN, sn - c0) : cols_;
        for (int k = 0; !trans_b_ && k < K; k++)
          if (!b_.Check (static_cast<uint64_t> (k) * t_.N + c0, nc, false, "Matmul reading B", file, line))
            return false;
        for (uint64_t j = 0; trans_b_ && j < nc; j++)
          if (!b_.Check ((c0 + j) * t_.Kb, K, false, "Matmul reading B", file, line))
            return false;
        if (t_.isBias && !bias_.Check (c0, nc, false, "Matmul reading the bias", file, line))
          return false;
        fwtwin::g.stats.mte2_bytes += nc * (K * sizeof (TB) + (t_.isBias ? sizeof (TBias) : 0));
      }
    /* The cube core's work for the time estimate: its GM reads (part of MTE2's total) and multiply-adds. */
    fwtwin::g.block.mte2_bytes += fwtwin::g.stats.mte2_bytes - before;
    fwtwin::g.block.cube_bytes += fwtwin::g.stats.mte2_bytes - before;
    fwtwin::g.block.cube_macs += static_cast<uint64_t> (rows_) * cols_ * K;
    fwtwin::g.block.cube_size = sizeof (TA);
    cached_a_ = pa;
    cached_b_ = pb;
    acc_.assign (static_cast<uint64_t> (t_.baseM) * t_.baseN, TAcc (0));
    if constexpr (std::is_same<TAcc, float>::value)
      {
        /* The arithmetic runs in the runtime (twin_matmul.cpp, compiled once and optimised) on float views
         * of the block's rows of A and columns of B: half operands are widened first, exactly as each
         * product would widen them. */
        const float *A = Widen (a_.Address () + m0 * t_.Ka, static_cast<uint64_t> (rows_) * t_.Ka, &wide_a_);
        const float *B;
        uint64_t ldb;
        if (trans_b_)
          {
            B = Widen (b_.Address () + n0 * t_.Kb, static_cast<uint64_t> (cols_) * t_.Kb, &wide_b_);
            ldb = t_.Kb;
          }
        else
          {
            B = Widen (b_.Address () + n0, static_cast<uint64_t> (K - 1) * t_.N + cols_, &wide_b_);
            ldb = t_.N;
          }
        const float *bias = t_.isBias ? Widen (bias_.Address () + n0, cols_, &wide_bias_) : nullptr;
        twin::BlockProduct (A, t_.Ka, B, ldb, trans_b_, bias, rows_, cols_, K, acc_.data (), t_.baseN);
      }
    else
      {
        const TA *A = a_.Address ();
        const TB *B = b_.Address ();
        /* int8_t x int8_t products summed in int32_t, exactly (the int8 row of table 2). */
        for (int i = 0; i < rows_; i++)
          for (int j = 0; j < cols_; j++)
            {
              TAcc s = TAcc (0);
              for (int k = 0; k < K; k++)
                s += static_cast<TAcc> (A[(m0 + i) * t_.Ka + k]) *
                     static_cast<TAcc> (trans_b_ ? B[(n0 + j) * t_.Kb + k] : B[static_cast<uint64_t> (k) * t_.N + n0 + j]);
              if (t_.isBias)
                s += static_cast<TAcc> (bias_.Address ()[n0 + j]);
              acc_[static_cast<uint64_t> (i) * t_.baseN + j] = s;
            }
      }
    return true;
  }

  /* n elements from p as float: p itself when they are float, else widened into *buf. */
  template <typename T> static const float *Widen (const T *p, uint64_t n, std::vector<float> *buf)
  {
    if constexpr (std::is_same<T, float>::value)
      {
        (void) n;
        (void) buf;
        return p;
      }
    else
      {
        buf->resize (n);
        for (uint64_t i = 0; i < n; i++)
          (*buf)[i] = static_cast<float> (p[i]);
        return buf->data ();
      }
  }

  TCubeTiling t_;
  bool ok_ = false, trans_b_ = false, have_a_ = false, have_b_ = false, have_bias_ = false, pending_ = false, ended_ = false;
  int next_ = 0, rows_ = 0, cols_ = 0, tail_m_ = -1, tail_n_ = -1, cached_a_ = -1, cached_b_ = -1;
  AscendC::GlobalTensor<TA> a_;
  AscendC::GlobalTensor<TB> b_;
  AscendC::GlobalTensor<TBias> bias_;
  std::vector<TAcc> acc_;
  std::vector<float> wide_a_, wide_b_, wide_bias_;
  const char *init_file_ = "-", *iter_file_ = "-";
  int init_line_ = 0, iter_line_ = 0;
};

}  // namespace matmul

/* REGIST_MATMUL_OBJ.md: REGIST_MATMUL_OBJ(&pipe, workspace, obj, &tiling[, obj2, &tiling2 ...]); the twin
 * takes one object. A macro, so the kernel line is the line it is written on. */
#define REGIST_MATMUL_OBJ(tpipe, workspace, obj, tiling)                                                            \
  do                                                                                                                \
    {                                                                                                               \
      (void) (workspace);                                                                                           \
      (obj).FwRegister ((tpipe), (tiling), __FILE__, __LINE__);                                                     \
    }                                                                                                               \
  while (0)

/* GetSysWorkSpacePtr.md: the system workspace; the twin's Matmul needs none. */
inline GM_ADDR GetSysWorkSpacePtr () { return nullptr; }

#endif
