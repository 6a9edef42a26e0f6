/* kernel_operator.h of Fusion Workbench's Ascend C twin: an implementation, for the host C++ compiler, of
 * exactly the part of the Ascend C API that the `ascend` target emits (the same subset data/ascend/
 * kernel_operator.h declares), so that a generated fw_kNNN.cpp compiles unchanged and runs on this machine.
 *
 * Written from the public API reference (the pages cannmirror/asc-devkit/docs/api/context/NAME.md, hiascend.com "Ascend C
 * API"); it is not CANN's code and models no instruction timing. Every entry point checks the rule its page
 * states and reports a violation as a diagnostic with a stable code and the kernel source line
 * (`__builtin_FILE ()` / `__builtin_LINE ()` default arguments); docs/ascend-twin.md lists the rules. The
 * arithmetic follows the pages where they say how (ReduceSum's binary tree, Cast's round modes, Compare's bit
 * masks); elsewhere it is IEEE float, or float rounded to binary16 after every instruction for half. */
#ifndef FW_ASCEND_KERNEL_OPERATOR_H
#define FW_ASCEND_KERNEL_OPERATOR_H

#include <cstdint>
#include <cstring>

#include "twin_core.h"

#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR __gm__ uint8_t *

#define FW_LOC const char *fwFile = __builtin_FILE (), int fwLine = __builtin_LINE ()
#define FW_AT fwFile, fwLine

/* half: binary16 storage; arithmetic converts through float (data types page). */
struct half
{
  uint16_t bits;
  half () : bits (0) {}
  half (float f) : bits (fwtwin::FloatToHalf (f)) {}
  operator float () const { return fwtwin::HalfToFloat (bits); }
};

/* PipeBarrier(ISASI): pipeline names (PIPE_FIX: L0C -> GM, the pipe CrossCoreSetFlag names after cube work). */
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX };

/* "设置Kernel类型" / kernel type pages: code for one kind of core. A block of the twin is one AI Core with both
 * its cube and its vector units, so both hold. */
#define ASCEND_IS_AIV (true)
#define ASCEND_IS_AIC (true)

namespace AscendC {

enum class TPosition { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM, SPM, SHM, TSCM, MAX };
using QuePosition = TPosition;
enum class CMPMODE { LT, GT, EQ, LE, GE, NE };
enum class SELMODE { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class HardEvent : uint8_t {
  MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
  MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
  MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3
};
using TEventID = int8_t;
enum class RoundMode { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

namespace twin {
/* The source and destination pipe of a HardEvent (SetFlag/WaitFlag(ISASI): events are named SRC_DST). */
void EventPipes (HardEvent e, int *src, int *dst);
void SetFlag (HardEvent e, int id, const char *file, int line);
void WaitFlag (HardEvent e, int id, const char *file, int line);
int FetchEventID (HardEvent e, const char *file, int line);
void Barrier (int pipe);
}  // namespace twin

/* GlobalTensor.md: a view of global memory; SetGlobalBuffer gives its span. */
template <typename T> class GlobalTensor
{
public:
  GlobalTensor () {}
  void SetGlobalBuffer (__gm__ T *buffer, uint64_t bufferSize, FW_LOC)
  {
    base_ = buffer;
    size_ = static_cast<int64_t> (bufferSize);
    /* An empty span is only an address (an idle block's share past the end): nothing to check until used. */
    buf_ = bufferSize == 0 ? -1 : fwtwin::GmFind (buffer, bufferSize * sizeof (T), "SetGlobalBuffer", FW_AT);
  }
  void SetGlobalBuffer (__gm__ T *buffer, FW_LOC)
  {
    base_ = buffer;
    buf_ = fwtwin::GmFind (buffer, 0, "SetGlobalBuffer", FW_AT);
    size_ = buf_ < 0 ? 0 : static_cast<int64_t> ((fwtwin::g.gm[buf_].data + fwtwin::g.gm[buf_].bytes -
                                                  reinterpret_cast<uint8_t *> (buffer)) / sizeof (T));
  }
  T GetValue (const uint64_t offset, FW_LOC) const
  {
    T v = T ();
    if (Check (offset, 1, false, "GlobalTensor::GetValue", FW_AT))
      std::memcpy (&v, base_ + offset, sizeof (T));
    fwtwin::g.stats.scalar_accesses++;
    fwtwin::g.block.scalar++;
    return v;
  }
  GlobalTensor operator[] (const uint64_t offset) const
  {
    GlobalTensor t = *this;
    t.base_ = base_ + offset;
    t.size_ = size_ - static_cast<int64_t> (offset);
    return t;
  }
  /* [offset, offset + count) must lie inside the SetGlobalBuffer span and the buffer the host passed. */
  bool Check (uint64_t offset, uint64_t count, bool write, const char *what, const char *file, int line) const
  {
    if (base_ == nullptr)
      {
        fwtwin::Diag ("FW-TWIN-GM-UNSET", file, line, "%s on a GlobalTensor without SetGlobalBuffer", what);
        return false;
      }
    if (static_cast<int64_t> (offset + count) > size_)
      {
        fwtwin::Diag ("FW-TWIN-GM-BOUNDS", file, line,
                      "%s of %llu elements at offset %llu passes the end of the SetGlobalBuffer span (%lld left)",
                      what, (unsigned long long) count, (unsigned long long) offset, (long long) size_);
        return false;
      }
    int b = fwtwin::GmFind (base_ + offset, count * sizeof (T), what, file, line);
    if (b < 0)
      return false;
    if (write)
      fwtwin::GmWrite (b, reinterpret_cast<const uint8_t *> (base_ + offset), count * sizeof (T), file, line);
    else
      fwtwin::GmRead (b, reinterpret_cast<const uint8_t *> (base_ + offset), count * sizeof (T), file, line);
    return true;
  }
  T *Address () const { return base_; }

private:
  T *base_ = nullptr;
  int64_t size_ = 0;
  int buf_ = -1;
};

/* LocalTensor.md: a view of Unified Buffer memory, from a TQue's AllocTensor/DeQue or a TBuf's Get. */
template <typename T> class LocalTensor
{
public:
  LocalTensor () {}
  LocalTensor (int slot, uint32_t gen, uint32_t addr, uint32_t size) : slot_ (slot), gen_ (gen), addr_ (addr), size_ (size) {}
  T GetValue (const uint32_t index, FW_LOC) const
  {
    uint64_t bytes = sizeof (T);
    T v = T ();
    fwtwin::Issue (fwtwin::P_S);
    fwtwin::g.stats.scalar_accesses++;
    fwtwin::g.block.scalar++;
    if (index >= size_)
      {
        fwtwin::Diag ("FW-TWIN-UB-BOUNDS", FW_AT, "GetValue(%u) past the tensor's %u elements", index, size_);
        return v;
      }
    if (fwtwin::UbAccess (slot_, gen_, addr_ + index * sizeof (T), &bytes, (size_ - index) * sizeof (T), fwtwin::P_S,
                          false, "GetValue", FW_AT))
      std::memcpy (&v, fwtwin::g.ub + addr_ + index * sizeof (T), sizeof (T));
    return v;
  }
  void SetValue (const uint32_t index, const T value, FW_LOC) const
  {
    uint64_t bytes = sizeof (T);
    fwtwin::Issue (fwtwin::P_S);
    fwtwin::g.stats.scalar_accesses++;
    fwtwin::g.block.scalar++;
    if (index >= size_)
      {
        fwtwin::Diag ("FW-TWIN-UB-BOUNDS", FW_AT, "SetValue(%u) past the tensor's %u elements", index, size_);
        return;
      }
    if (fwtwin::UbAccess (slot_, gen_, addr_ + index * sizeof (T), &bytes, (size_ - index) * sizeof (T), fwtwin::P_S,
                          true, "SetValue", FW_AT))
      std::memcpy (fwtwin::g.ub + addr_ + index * sizeof (T), &value, sizeof (T));
  }
  /* An offset past the end leaves an empty view; using it is the diagnostic. */
  LocalTensor operator[] (const uint32_t offset) const
  {
    LocalTensor t = *this;
    t.addr_ = addr_ + offset * static_cast<uint32_t> (sizeof (T));
    t.size_ = offset > size_ ? 0 : size_ - offset;
    return t;
  }
  uint32_t GetSize () const { return size_; }

  /* The twin's access: count elements by pipe; nullptr when it must be skipped. */
  T *Use (uint64_t count, int pipe, bool write, bool aligned, const char *what, const char *file, int line) const
  {
    uint64_t bytes = count * sizeof (T);
    if (aligned && !fwtwin::CheckAligned (addr_, what, file, line))
      return nullptr;
    if (!fwtwin::UbAccess (slot_, gen_, addr_, &bytes, size_ * static_cast<uint32_t> (sizeof (T)), pipe, write, what,
                           file, line))
      return nullptr;
    if (bytes < count * sizeof (T))
      return nullptr;
    return reinterpret_cast<T *> (fwtwin::g.ub + addr_);
  }
  uint32_t Addr () const { return addr_; }
  int Slot () const { return slot_; }
  uint32_t Gen () const { return gen_; }

private:
  int slot_ = -1;
  uint32_t gen_ = 0;
  uint32_t addr_ = 0;
  uint32_t size_ = 0;
};

namespace twin {
/* InitBuffer.md: one block list of num blocks of len bytes (rounded up to 32), inside the profile's UB. */
int InitBuffer (int position, bool queue, int depth, int num, uint32_t len, const char *file, int line);
int AllocSlot (int queue, const char *file, int line);
bool EnQue (int queue, int slot, uint32_t gen, const char *file, int line);
int DeQue (int queue, const char *file, int line);
void FreeSlot (int queue, int slot, uint32_t gen, const char *file, int line);
}  // namespace twin

template <TPosition pos> class TBuf;

/* TPipe.md, InitBuffer.md, FetchEventID.md. */
class TPipe
{
public:
  TPipe ();
  ~TPipe ();
  template <class Q> bool InitBuffer (Q &que, uint8_t num, uint32_t len, FW_LOC)
  {
    que.id_ = twin::InitBuffer (static_cast<int> (Q::kPosition), true, Q::kDepth, num, len, FW_AT);
    return que.id_ >= 0;
  }
  template <TPosition bufPos> bool InitBuffer (TBuf<bufPos> &buf, uint32_t len, FW_LOC)
  {
    buf.slot_ = twin::InitBuffer (static_cast<int> (bufPos), false, 0, 1, len, FW_AT);
    return buf.slot_ >= 0;
  }
  template <HardEvent evt> TEventID FetchEventID (FW_LOC)
  {
    return static_cast<TEventID> (twin::FetchEventID (evt, FW_AT));
  }
  TEventID FetchEventID (HardEvent evt, FW_LOC) { return static_cast<TEventID> (twin::FetchEventID (evt, FW_AT)); }
};

/* TQue.md; AllocTensor.md, EnQue.md, DeQue.md, FreeTensor.md: the tensor state machine FREE -> OCCUPIED ->
 * ENQUE -> DEQUE -> FREE. */
template <TPosition pos, int32_t depth> class TQue
{
public:
  static constexpr TPosition kPosition = pos;
  static constexpr int kDepth = depth;
  TQue () {}
  template <typename T> LocalTensor<T> AllocTensor (FW_LOC)
  {
    int s = twin::AllocSlot (id_, FW_AT);
    if (s < 0)
      return LocalTensor<T> ();
    const fwtwin::Slot &sl = fwtwin::g.slots[s];
    return LocalTensor<T> (s, sl.gen, sl.start, sl.len / static_cast<uint32_t> (sizeof (T)));
  }
  template <typename T> bool EnQue (const LocalTensor<T> &tensor, FW_LOC)
  {
    return twin::EnQue (id_, tensor.Slot (), tensor.Gen (), FW_AT);
  }
  template <typename T> LocalTensor<T> DeQue (FW_LOC)
  {
    int s = twin::DeQue (id_, FW_AT);
    if (s < 0)
      return LocalTensor<T> ();
    const fwtwin::Slot &sl = fwtwin::g.slots[s];
    return LocalTensor<T> (s, sl.gen, sl.start, sl.len / static_cast<uint32_t> (sizeof (T)));
  }
  template <typename T> void FreeTensor (LocalTensor<T> &tensor, FW_LOC)
  {
    twin::FreeSlot (id_, tensor.Slot (), tensor.Gen (), FW_AT);
  }
  int id_ = -1;
};

/* TBuf.md: Get<T>() is the whole buffer, Get<T>(len) its first len elements. */
template <TPosition pos> class TBuf
{
public:
  TBuf () {}
  template <typename T> LocalTensor<T> Get (FW_LOC)
  {
    if (slot_ < 0)
      {
        fwtwin::Diag ("FW-TWIN-NO-BUFFER", FW_AT, "TBuf::Get on a buffer InitBuffer never set up");
        return LocalTensor<T> ();
      }
    const fwtwin::Slot &sl = fwtwin::g.slots[slot_];
    return LocalTensor<T> (slot_, sl.gen, sl.start, sl.len / static_cast<uint32_t> (sizeof (T)));
  }
  template <typename T> LocalTensor<T> Get (uint32_t len, FW_LOC)
  {
    LocalTensor<T> all = Get<T> (FW_AT);
    if (len > all.GetSize ())
      fwtwin::Diag ("FW-TWIN-UB-BOUNDS", FW_AT, "TBuf::Get(%u) asks for more than the buffer's %u elements", len,
                    all.GetSize ());
    return LocalTensor<T> (all.Slot (), all.Gen (), all.Addr (), len < all.GetSize () ? len : all.GetSize ());
  }
  int slot_ = -1;
};

/* GetBlockIdx.md, GetBlockNum.md. */
inline int64_t GetBlockIdx () { return fwtwin::g.block_idx; }
inline int64_t GetBlockNum () { return fwtwin::g.block_num; }

/* PipeBarrier(ISASI): PIPE_ALL orders every pipe after every other; a single pipe is in order already. */
template <pipe_t pipe> void PipeBarrier ()
{
  twin::Barrier (pipe == PIPE_ALL ? -1 : 0);
}

/* SetFlag/WaitFlag(ISASI): WaitFlag on the destination pipe waits for the source pipe's work before SetFlag. */
template <HardEvent event> void SetFlag (int32_t eventID, FW_LOC) { twin::SetFlag (event, eventID, FW_AT); }
template <HardEvent event> void WaitFlag (int32_t eventID, FW_LOC) { twin::WaitFlag (event, eventID, FW_AT); }

/* SyncAll.md, hard-sync prototype: every core of the launch waits until all have arrived (isAIVOnly true: the
 * vector cores of a pure vector kernel; false: the cube and vector cores of a mixed one). Every block must call
 * it the same number of times; one that never arrives leaves the others waiting (FW-TWIN-SYNC-HANG). */
template <bool isAIVOnly = true> void SyncAll (FW_LOC)
{
  fwtwin::SyncArrive (isAIVOnly ? 0 : 1, "SyncAll", FW_AT);
  fwtwin::SyncWait (isAIVOnly ? 0 : 1, "SyncAll", FW_AT);
}

namespace twin {
void CrossCoreSet (int mode, int flag, const char *file, int line);
void CrossCoreWait (int flag, const char *file, int line);
}  // namespace twin

/* CrossCoreSetFlag(ISASI) / CrossCoreWaitFlag(ISASI): mode 0 synchronises the AI Cores of the launch (set on
 * every core, then wait: a barrier on flagId); modes 1 and 2 stay inside one AI Core (its vector cores, its
 * cube and vector cores), which on the twin is one block. flagId 0-10 (A2/A3); a counter is set at most 15 times. */
template <uint8_t modeId, pipe_t pipe> void CrossCoreSetFlag (uint16_t flagId, FW_LOC)
{
  twin::CrossCoreSet (modeId, flagId, FW_AT);
}
inline void CrossCoreWaitFlag (uint16_t flagId, FW_LOC) { twin::CrossCoreWait (flagId, FW_AT); }

}  // namespace AscendC

#include "twin_copy.h"
#include "twin_vector.h"
#include "twin_repeat.h"

#endif
