/* kernel_operator.h: declarations of the part of the Ascend C API that Fusion Workbench's `ascend` target
 * emits, so that generated kernels can be checked with a host C++ compiler (g++ -std=c++17 -fsyntax-only).
 *
 * This is NOT CANN's header and holds no implementation: it restates, from the public Ascend C API reference
 * (hiascend.com "Ascend C API", mirrored in the cannmirror/asc-devkit repository under docs/api/context/),
 * the signatures the generator relies on. Each declaration names the page it comes from. A kernel that
 * compiles against this file uses the API with the documented names, template parameters and argument
 * orders; declarations drop the `inline` of the reference so that a host compiler does not warn about
 * bodies it never sees. It does not prove that the CANN toolchain accepts it or that it runs correctly on a chip.
 * Tests use it; nothing installs it. */
#ifndef FW_ASCEND_KERNEL_OPERATOR_H
#define FW_ASCEND_KERNEL_OPERATOR_H

#include <cstdint>

/* Function-type and address-space qualifiers of the bisheng compiler (Ascend C programming guide, "核函数"
 * / kernel function definition): they have no meaning to a host compiler. */
#define __global__
#define __aicore__
#define __gm__
/* GM_ADDR: the kernel argument type for global memory (kernel function definition page). */
#define GM_ADDR __gm__ uint8_t *

/* half: the 16-bit float type of the device compiler (data types page). A stand-in with the conversions
 * generated code uses. */
struct half
{
  uint16_t bits;
  half () : bits (0) {}
  half (float f);
  operator float () const;
};

/* pipe_t: the hardware pipelines named by PipeBarrier (PipeBarrier / "ISASI" synchronisation page). */
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX };

/* Code for one kind of core of a mixed kernel ("设置Kernel类型" / kernel type pages: `if ASCEND_IS_AIV {…}`). */
#define ASCEND_IS_AIV (true)
#define ASCEND_IS_AIC (true)

namespace AscendC {

/* TPosition / QuePosition: logical buffer positions (TPosition.md; QuePosition is its alias in TQue.md). */
enum class TPosition { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM, SPM, SHM, TSCM, MAX };
using QuePosition = TPosition;

/* CMPMODE: comparison of Compare and CompareScalar (Compare.md, CompareScalar.md). */
enum class CMPMODE { LT, GT, EQ, LE, GE, NE };

/* SELMODE: how Select reads its mask (Select.md; SetCmpMask(ISASI).md names the three modes). */
enum class SELMODE { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

/* HardEvent: synchronisation between two pipelines of one core, named source_destination
 * (SetFlag/WaitFlag(ISASI), atlasascendc_api_07_0270); TEventID: the event id type (FetchEventID.md). */
enum class HardEvent : uint8_t {
  MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
  MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
  MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3
};
using TEventID = int8_t;

/* RoundMode: rounding of Cast (Cast.md). */
enum class RoundMode { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

/* GlobalTensor: global memory view (GlobalTensor.md: SetGlobalBuffer, GetValue, operator[]). */
template <typename T> class GlobalTensor
{
public:
  __aicore__ GlobalTensor () {}
  __aicore__ void SetGlobalBuffer (__gm__ T *buffer, uint64_t bufferSize);
  __aicore__ void SetGlobalBuffer (__gm__ T *buffer);
  __aicore__ T GetValue (const uint64_t offset) const;
  __aicore__ GlobalTensor operator[] (const uint64_t offset) const;
};

/* LocalTensor: Unified Buffer view (LocalTensor.md: GetValue, SetValue, operator[], GetSize). */
template <typename T> class LocalTensor
{
public:
  __aicore__ LocalTensor () {}
  __aicore__ T GetValue (const uint32_t index) const;
  __aicore__ void SetValue (const uint32_t index, const T value) const;
  __aicore__ LocalTensor operator[] (const uint32_t offset) const;
  __aicore__ uint32_t GetSize () const;
};

template <TPosition pos> class TBuf;

/* TPipe: owns the on-chip memory of queues and buffers (TPipe.md; InitBuffer.md: InitBuffer(que, num, len)
 * and InitBuffer(buf, len)). */
class TPipe
{
public:
  __aicore__ TPipe () {}
  template <class T> __aicore__ bool InitBuffer (T &que, uint8_t num, uint32_t len);
  template <TPosition bufPos> __aicore__ bool InitBuffer (TBuf<bufPos> &buf, uint32_t len);
  /* FetchEventID.md: an event id for an immediate SetFlag / WaitFlag pair, not reserved. */
  template <HardEvent evt> __aicore__ TEventID FetchEventID ();
  __aicore__ TEventID FetchEventID (HardEvent evt);
};

/* TQue: a queue of tensors between pipeline stages (TQue.md; AllocTensor.md, EnQue-16.md, DeQue.md,
 * FreeTensor.md). depth 2 is double buffering. */
template <TPosition pos, int32_t depth> class TQue
{
public:
  __aicore__ TQue () {}
  template <typename T> __aicore__ LocalTensor<T> AllocTensor ();
  template <typename T> __aicore__ bool EnQue (const LocalTensor<T> &tensor);
  template <typename T> __aicore__ LocalTensor<T> DeQue ();
  template <typename T> __aicore__ void FreeTensor (LocalTensor<T> &tensor);
};

/* TBuf: a buffer for temporaries outside any queue (TBuf.md: Get<T>()). */
template <TPosition pos> class TBuf
{
public:
  __aicore__ TBuf () {}
  template <typename T> __aicore__ LocalTensor<T> Get ();
  template <typename T> __aicore__ LocalTensor<T> Get (uint32_t len);
};

/* Block (core) index and count (GetBlockIdx.md, GetBlockNum.md). */
__aicore__ int64_t GetBlockIdx ();
__aicore__ int64_t GetBlockNum ();

/* Pipeline barrier (PipeBarrier in the synchronisation control pages, "PipeBarrier(ISASI)"). */
template <pipe_t pipe> __aicore__ void PipeBarrier ();

/* SetFlag / WaitFlag(ISASI) (atlasascendc_api_07_0270): the destination pipeline waits for the source
 * pipeline's work issued before SetFlag; ids come from FetchEventID or AllocEventID. */
template <HardEvent event> __aicore__ void SetFlag (int32_t eventID);
template <HardEvent event> __aicore__ void WaitFlag (int32_t eventID);

/* Synchronisation of all cores (SyncAll.md, hard-sync prototype): isAIVOnly true for the vector cores of a
 * pure vector kernel, false for the cube and vector cores of a mixed one. */
template <bool isAIVOnly = true> __aicore__ void SyncAll ();
/* Cross-core flags (CrossCoreSetFlag(ISASI).md, CrossCoreWaitFlag(ISASI).md): mode 0 across the AI Cores, 1
 * between the vector cores of one AI Core, 2 between its cube and vector cores; flagId 0-10. */
template <uint8_t modeId, pipe_t pipe> __aicore__ void CrossCoreSetFlag (uint16_t flagId);
__aicore__ void CrossCoreWaitFlag (uint16_t flagId);

/* DataCopy, contiguous form (DataCopy.md, "基础数据搬运" count prototypes): count elements, 32-byte
 * multiples only. */
template <typename T> __aicore__ void DataCopy (const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                                                        const uint32_t count);
template <typename T> __aicore__ void DataCopy (const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                                                        const uint32_t count);

/* DataCopyPad: unaligned copies (DataCopyPad.md / atlasascendc_api_07_0265, DataCopyExtParams and
 * DataCopyPadExtParams<T> prototypes). blockLen in bytes; UB-side strides in 32-byte blocks. */
struct DataCopyExtParams
{
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;
  uint32_t srcStride = 0;
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
  __aicore__ DataCopyExtParams () {}
  __aicore__ DataCopyExtParams (const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                                const uint32_t dstStrideIn, const uint32_t rsvIn);
};
template <typename T> struct DataCopyPadExtParams
{
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = T ();
  __aicore__ DataCopyPadExtParams () {}
  __aicore__ DataCopyPadExtParams (const bool isPadIn, const uint8_t leftPadIn, const uint8_t rightPadIn,
                                   T padValue);
};
template <typename T> __aicore__ void DataCopyPad (const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                                                           const DataCopyExtParams &dataCopyParams,
                                                           const DataCopyPadExtParams<T> &padParams);
template <typename T> __aicore__ void DataCopyPad (const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                                                           const DataCopyExtParams &dataCopyParams);

/* Binary vector instructions, "tensor前n个数据计算" prototypes (Add.md, Sub.md, Mul.md, Div.md, Max.md,
 * Min.md): dst, src0, src1, count. */
template <typename T> __aicore__ void Add (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                                   const LocalTensor<T> &src1, const int32_t &count);
template <typename T> __aicore__ void Sub (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                                   const LocalTensor<T> &src1, const int32_t &count);
template <typename T> __aicore__ void Mul (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                                   const LocalTensor<T> &src1, const int32_t &count);
template <typename T> __aicore__ void Div (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                                   const LocalTensor<T> &src1, const int32_t &count);
template <typename T> __aicore__ void Max (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                                   const LocalTensor<T> &src1, const int32_t &count);
template <typename T> __aicore__ void Min (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                                   const LocalTensor<T> &src1, const int32_t &count);

/* Vector-scalar instructions (Adds.md, Muls.md, Maxs.md, Mins.md): dst, src, scalar, count. */
template <typename T> __aicore__ void Adds (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                    const T &scalarValue, const int32_t &count);
template <typename T> __aicore__ void Muls (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                    const T &scalarValue, const int32_t &count);
template <typename T> __aicore__ void Maxs (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                    const T &scalarValue, const int32_t &count);
template <typename T> __aicore__ void Mins (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                    const T &scalarValue, const int32_t &count);

/* Unary vector instructions (Exp.md, Ln.md, Abs.md, Relu.md, Sqrt.md, Rsqrt.md, Reciprocal.md): dst, src,
 * count. */
template <typename T> __aicore__ void Exp (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                   const int32_t &count);
template <typename T> __aicore__ void Ln (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                  const int32_t &count);
template <typename T> __aicore__ void Abs (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                   const int32_t &count);
template <typename T> __aicore__ void Relu (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                    const int32_t &count);
template <typename T> __aicore__ void Sqrt (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                    const int32_t &count);
template <typename T> __aicore__ void Rsqrt (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                     const int32_t &count);
template <typename T> __aicore__ void Reciprocal (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                                          const int32_t &count);

/* Duplicate: fill with a scalar (Duplicate.md): dst, scalar, count. */
template <typename T> __aicore__ void Duplicate (const LocalTensor<T> &dst, const T &scalarValue,
                                                         const int32_t &count);

/* Reductions of the first count elements into dst[0] (ReduceSum.md, ReduceMax.md, ReduceMin.md). */
template <typename T, bool isSetMask = true>
__aicore__ void ReduceSum (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                  const LocalTensor<T> &sharedTmpBuffer, const int32_t count);
template <typename T>
__aicore__ void ReduceMax (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                  const LocalTensor<T> &sharedTmpBuffer, const int32_t count,
                                  bool calIndex = false);
template <typename T>
__aicore__ void ReduceMin (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                  const LocalTensor<T> &sharedTmpBuffer, const int32_t count,
                                  bool calIndex = false);

/* Compare, "tensor前n个数据计算" prototype (Compare.md): one bit per element into dst (uint8_t), 1 where
 * src0 cmpMode src1 holds; count elements must fill whole 256-byte blocks. */
template <typename T, typename U>
__aicore__ void Compare (const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                         CMPMODE cmpMode, uint32_t count);
/* CompareScalar (CompareScalar.md): the same against a scalar of the source type. */
template <typename T, typename U>
__aicore__ void CompareScalar (const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar,
                               CMPMODE cmpMode, uint32_t count);
/* Select, "tensor前n个数据计算" prototypes (Select.md): src0 where the mask bit is 1, src1 where it is 0;
 * VSEL_TENSOR_SCALAR_MODE with a scalar src1, VSEL_TENSOR_TENSOR_MODE with two tensors. */
template <typename T, typename U>
__aicore__ void Select (const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                        T src1, SELMODE selMode, uint32_t count);
template <typename T, typename U>
__aicore__ void Select (const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                        const LocalTensor<T> &src1, SELMODE selMode, uint32_t count);

/* Cast between dtypes (Cast.md, count prototype): dst, src, round mode, count. */
template <typename T, typename U>
__aicore__ void Cast (const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode,
                             const uint32_t count);

/* The "tensor高维切分计算" (high-dimensional slicing) forms: a mask, a repeat count (at most 255) and
 * strides in 32-byte blocks (高维切分.md; BinaryRepeatParams.md, UnaryRepeatParams.md, Brcb.md's
 * BrcbRepeatParams). The generator uses the continuous mask to cover many short rows per instruction. */
struct BinaryRepeatParams
{
  __aicore__ BinaryRepeatParams () {}
  __aicore__ BinaryRepeatParams (const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn,
                                 const uint8_t src1BlkStrideIn, const uint8_t dstRepStrideIn,
                                 const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn);
  uint8_t dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride, src1RepStride;
};
struct UnaryRepeatParams
{
  __aicore__ UnaryRepeatParams () {}
  __aicore__ UnaryRepeatParams (const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                                const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn);
  uint16_t dstBlkStride, srcBlkStride;
  uint8_t dstRepStride, srcRepStride;
};
struct BrcbRepeatParams
{
  __aicore__ BrcbRepeatParams () {}
  __aicore__ BrcbRepeatParams (const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn);
  uint16_t dstRepStride, dstBlkStride;
};
enum class ReduceOrder { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

template <typename T> __aicore__ void Add (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                           const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                                           const BinaryRepeatParams &repeatParams);
template <typename T> __aicore__ void Sub (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                           const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                                           const BinaryRepeatParams &repeatParams);
template <typename T> __aicore__ void Mul (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                           const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                                           const BinaryRepeatParams &repeatParams);
template <typename T> __aicore__ void Div (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                           const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                                           const BinaryRepeatParams &repeatParams);
template <typename T> __aicore__ void Max (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                           const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                                           const BinaryRepeatParams &repeatParams);
template <typename T> __aicore__ void Min (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                           const LocalTensor<T> &src1, uint64_t mask, const uint8_t repeatTime,
                                           const BinaryRepeatParams &repeatParams);
template <typename T> __aicore__ void Adds (const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,
                                            uint64_t mask, const uint8_t repeatTime,
                                            const UnaryRepeatParams &repeatParams);
template <typename T> __aicore__ void Muls (const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,
                                            uint64_t mask, const uint8_t repeatTime,
                                            const UnaryRepeatParams &repeatParams);

/* WholeReduceSum.md, WholeReduceMax.md, WholeReduceMin.md (continuous mask): one result per repeat. */
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceSum (const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask,
                                const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                const int32_t srcRepStride);
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceMax (const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask,
                                const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);
template <typename T, bool isSetMask = true>
__aicore__ void WholeReduceMin (const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask,
                                const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);

/* Brcb.md: each repeat fills 8 destination blocks with 8 elements of src0, one each. */
template <typename T> __aicore__ void Brcb (const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                                            const uint8_t repeatTime, const BrcbRepeatParams &repeatParams);

/* Gather.md (count form, "tensor前n个数据计算"): element i of dst from src's address + srcBaseAddr +
 * srcOffset[i] bytes; 2- or 4-byte elements on Atlas A2. */
template <typename T> __aicore__ void Gather (const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                              const LocalTensor<uint32_t> &srcOffset, const uint32_t srcBaseAddr,
                                              const uint32_t count);

} /* namespace AscendC */

#endif
