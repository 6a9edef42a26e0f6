/* twin_core.cpp: the simulated core of Fusion Workbench's Ascend C twin: diagnostics, the Unified Buffer
 * and its buffers, the tensor state machine of TQue, pipe ordering (events, queue hand-offs, barriers) and
 * the global-memory checks. Each rule names the page it comes from; docs/ascend-twin.md lists them. */
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "kernel_operator.h"
#include "twin_diag.h"

namespace fwtwin {

thread_local Core g;
SyncConfig sync_config;

/* Blocks of a concurrent run report into one table. */
static std::mutex diag_mutex;

const char *
PipeName (int pipe)
{
  static const char *const names[] = { "S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX" };
  return pipe >= 0 && pipe < P_COUNT ? names[pipe] : "?";
}

static const char *
Base (const char *file)
{
  const char *slash = file ? std::strrchr (file, '/') : nullptr;
  return slash ? slash + 1 : (file ? file : "?");
}

DiagRecord diags[MAX_DIAGS];
int n_diags;

void
Diag (const char *code, const char *file, int line, const char *format, ...)
{
  const char *base = Base (file);
  std::lock_guard<std::mutex> lock (diag_mutex);
  for (int i = 0; i < n_diags; i++)
    if (diags[i].line == line && std::strcmp (diags[i].code, code) == 0 && std::strcmp (diags[i].file, base) == 0)
      {
        diags[i].count++;
        return;
      }
  if (n_diags == MAX_DIAGS)
    return;
  DiagRecord &d = diags[n_diags++];
  d.code = code;
  std::snprintf (d.file, sizeof d.file, "%s", base);
  d.line = line;
  d.count = 1;
  va_list args;
  va_start (args, format);
  std::vsnprintf (d.message, sizeof d.message, format, args);
  va_end (args);
}

Clock
Snapshot (int p)
{
  Clock c = g.known[p];
  c.c[p] = g.clock[p];
  return c;
}

void
Join (int p, const Clock &snap)
{
  for (int q = 0; q < P_COUNT; q++)
    if (snap.c[q] > g.known[p].c[q])
      g.known[p].c[q] = snap.c[q];
}

uint64_t
Issue (int p)
{
  return ++g.clock[p];
}

void
CountCopy (int pipe, uint64_t bytes)
{
  if (pipe == P_MTE2)
    {
      g.stats.mte2_bytes += bytes;
      g.block.mte2_bytes += bytes;
      g.block.mte2_copies++;
      if (bytes > g.block.mte2_max_copy)
        g.block.mte2_max_copy = bytes;
    }
  else
    {
      g.stats.mte3_bytes += bytes;
      g.block.mte3_bytes += bytes;
      g.block.mte3_copies++;
    }
}

void
CountVector (const char *what, unsigned dst_size, unsigned src_size, uint64_t count, uint64_t repeats)
{
  BlockStats &b = g.block;
  int i = 0;
  while (i < b.n_kinds && !(std::strcmp (b.kinds[i].name, what) == 0 && b.kinds[i].dst_size == dst_size &&
                            b.kinds[i].src_size == src_size))
    i++;
  if (i == b.n_kinds)
    {
      /* More kinds than the table holds: the rest count as the last one (no generated kernel comes near). */
      if (i == MAX_VECTOR_KINDS)
        i--;
      else
        {
          b.kinds[i] = VectorKind{ what, static_cast<uint8_t> (dst_size), static_cast<uint8_t> (src_size), 0, 0, 0 };
          b.n_kinds++;
        }
    }
  b.kinds[i].calls++;
  b.kinds[i].elements += count;
  b.kinds[i].repeats += repeats;
}

/* "非对齐场景" (non-alignment page) and each vector instruction's parameter table: UB operands start
 * 32-byte aligned. */
bool
CheckAligned (uint32_t addr, const char *what, const char *file, int line)
{
  if (addr % 32 != 0)
    {
      Diag ("FW-TWIN-UNALIGNED", file, line, "%s: UB offset %u is not 32-byte aligned", what, addr);
      return false;
    }
  return true;
}

static const char *
StateName (int s)
{
  static const char *const names[] = { "FREE", "OCCUPIED", "ENQUE", "DEQUE" };
  return names[s & 3];
}

/* A pipe that accesses a block another pipe last wrote (or, for a write, last read) must be ordered after
 * that access: SetFlag/WaitFlag(ISASI), the queue hand-off of EnQue/DeQue (TQue.md), or PipeBarrier. The
 * "npu check" list (hicann/asc-tools/docs/02_npu_check.md) names these ErrorSync1/ErrorSync2. Scalar reads are not
 * recorded as readers: the scalar unit has its value before it issues the next instruction (it issues them
 * in program order), so no later write can overtake one. Scalar writes are: a vector read after SetValue
 * needs S_V. */
static bool
CheckOrder (BlockTrack &t, uint32_t block, int pipe, bool write, const char *what, const char *file, int line)
{
  if (t.wpipe != P_NONE && t.wpipe != pipe && g.known[pipe].c[t.wpipe] < t.wseq)
    {
      Diag ("FW-TWIN-UNSYNCED", file, line,
            "%s on %s %s UB offset %u, last written by %s, with no SetFlag/WaitFlag or queue hand-off between them", what,
            PipeName (pipe), write ? "overwrites" : "reads", block * 32, PipeName (t.wpipe));
      return false;
    }
  if (write)
    for (int q = 0; q < P_COUNT; q++)
      if (q != pipe && t.rseq[q] > g.known[pipe].c[q])
        {
          Diag ("FW-TWIN-UNSYNCED", file, line,
                "%s on %s overwrites UB offset %u while %s may still be reading it (no event or queue hand-off)", what,
                PipeName (pipe), block * 32, PipeName (q));
          return false;
        }
  return true;
}

bool
UbAccess (int slot, uint32_t gen, uint32_t addr, uint64_t *bytes, uint32_t extent_bytes, int pipe, bool write,
          const char *what, const char *file, int line)
{
  if (slot < 0 || slot >= g.n_slots)
    {
      Diag ("FW-TWIN-NO-BUFFER", file, line, "%s on a tensor no AllocTensor, DeQue or TBuf::Get gave", what);
      return false;
    }
  Slot &s = g.slots[slot];
  /* FreeTensor.md / npu check ErrorRead1, ErrorWrite1: memory given back is no longer the tensor's. */
  if (s.queue && (s.gen != gen || s.state == S_FREE))
    {
      Diag ("FW-TWIN-FREED", file, line, "%s %s a tensor after FreeTensor gave it back (allocated at line %d)", what,
            write ? "writes" : "reads", s.alloc_line);
      return false;
    }
  /* npu check "EnQue/DeQue error scenario": a tensor in its queue belongs to the queue until DeQue. */
  if (s.queue && s.state == S_ENQUE)
    Diag ("FW-TWIN-STATE", file, line, "%s on a tensor that is in its queue (after EnQue, before DeQue)", what);
  if (*bytes > extent_bytes || addr + *bytes > s.start + s.len)
    {
      Diag ("FW-TWIN-UB-BOUNDS", file, line,
            "%s of %llu bytes at UB offset %u runs past the end of its tensor (%u bytes left)", what,
            (unsigned long long) *bytes, addr, extent_bytes < s.start + s.len - addr ? extent_bytes : s.start + s.len - addr);
      uint64_t room = addr >= s.start + s.len ? 0 : s.start + s.len - addr;
      *bytes = extent_bytes < room ? extent_bytes : room;
    }
  if (*bytes == 0)
    return true;
  uint64_t seq = g.clock[pipe];
  uint32_t b0 = addr / 32, b1 = static_cast<uint32_t> ((addr + *bytes + 31) / 32);
  bool reported = false;
  for (uint32_t b = b0; b < b1; b++)
    {
      BlockTrack &t = g.track[b];
      if (!reported && !CheckOrder (t, b, pipe, write, what, file, line))
        reported = true;
      if (write)
        {
          t.wpipe = static_cast<uint8_t> (pipe);
          t.wseq = seq;
        }
      else if (pipe != P_S)
        t.rseq[pipe] = seq;
    }
  return true;
}

int
GmFind (const void *p, uint64_t bytes, const char *what, const char *file, int line)
{
  const uint8_t *q = static_cast<const uint8_t *> (p);
  for (int n = 0; n < g.n_gm; n++)
    {
      int i = n == 0 ? g.last_gm : n == g.last_gm ? 0 : n;
      if (i >= g.n_gm)
        continue;
      GmBuffer &b = g.gm[i];
      if (q >= b.data && q <= b.data + b.bytes)
        {
          if (static_cast<uint64_t> (q - b.data) + bytes > b.bytes)
            {
              Diag ("FW-TWIN-GM-BOUNDS", file, line, "%s of %llu bytes at byte %llu of %s passes its end (%llu bytes)",
                    what, (unsigned long long) bytes, (unsigned long long) (q - b.data), b.name,
                    (unsigned long long) b.bytes);
              return -1;
            }
          g.last_gm = i;
          return i;
        }
    }
  Diag ("FW-TWIN-GM-BOUNDS", file, line, "%s at an address outside every buffer the host passed", what);
  return -1;
}

/* npu check "GM memory multi-core conflict check": no two cores write one byte (atomics aside). */
void
GmWrite (int buffer, const uint8_t *p, uint64_t bytes, const char *file, int line)
{
  GmBuffer &b = g.gm[buffer];
  if (!b.output)
    {
      Diag ("FW-TWIN-GM-INPUT-WRITE", file, line, "a write into %s, which the kernel only reads", b.name);
      return;
    }
  uint64_t off = static_cast<uint64_t> (p - b.data);
  uint16_t me = static_cast<uint16_t> (g.block_idx + 1);
  for (uint64_t k = off; k < off + bytes; k++)
    {
      uint16_t o = b.owner[k];
      if (o != 0 && o != me)
        {
          Diag ("FW-TWIN-GM-RACE", file, line, "block %d writes byte %llu of %s, which block %d wrote too",
                g.block_idx, (unsigned long long) k, b.name, o - 1);
          break;
        }
    }
  for (uint64_t k = off; k < off + bytes; k++)
    b.owner[k] = me;
  if (b.epoch != nullptr)
    for (uint64_t k = off; k < off + bytes; k++)
      b.epoch[k] = static_cast<uint16_t> (g.epoch);
}

void
GmRead (int buffer, const uint8_t *p, uint64_t bytes, const char *file, int line)
{
  GmBuffer &b = g.gm[buffer];
  /* The workspace holds nothing the host put there: a byte read before this block wrote it is garbage
   * (blocks run one by one here; a scope's concurrent run checks every block's writes below). */
  if (b.workspace && !sync_config.concurrent)
    {
      uint64_t off = static_cast<uint64_t> (p - b.data);
      uint16_t me = static_cast<uint16_t> (g.block_idx + 1);
      for (uint64_t k = off; k < off + bytes; k++)
        if (b.owner[k] != me)
          {
            Diag ("FW-TWIN-WS-UNWRITTEN", file, line, "block %d reads byte %llu of the workspace before writing it",
                  g.block_idx, (unsigned long long) k);
            return;
          }
      return;
    }
  if (!sync_config.concurrent || !b.output || b.epoch == nullptr)
    return;
  uint64_t off = static_cast<uint64_t> (p - b.data);
  uint16_t me = static_cast<uint16_t> (g.block_idx + 1), now = static_cast<uint16_t> (g.epoch);
  for (uint64_t k = off; k < off + bytes; k++)
    {
      uint16_t o = b.owner[k];
      if (o == 0)
        {
          Diag ("FW-TWIN-SYNC-RACE", file, line,
                "block %d reads byte %llu of %s before any block wrote it: a barrier is missing before this read",
                g.block_idx, (unsigned long long) k, b.name);
          return;
        }
      if (o != me && b.epoch[k] == now)
        {
          Diag ("FW-TWIN-SYNC-RACE", file, line,
                "block %d reads byte %llu of %s, which block %d wrote since the last barrier (barrier %u)",
                g.block_idx, (unsigned long long) k, b.name, o - 1, (unsigned) g.epoch);
          return;
        }
    }
}

uint16_t
FloatToHalf (float f)
{
  uint32_t x;
  std::memcpy (&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t man = x & 0x7fffffu;
  if (exp == 0xff)
    return static_cast<uint16_t> (sign | 0x7c00u | (man ? 0x200u : 0));
  int e = static_cast<int> (exp) - 127 + 15;
  if (e >= 31)
    return static_cast<uint16_t> (sign | 0x7c00u);
  if (e <= 0)
    {
      if (e < -10)
        return static_cast<uint16_t> (sign);
      man |= 0x800000u;
      uint32_t shift = static_cast<uint32_t> (14 - e);
      uint32_t h = man >> shift;
      uint32_t rem = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
      if (rem > halfway || (rem == halfway && (h & 1u)))
        h++;
      return static_cast<uint16_t> (sign | h);
    }
  uint32_t h = (static_cast<uint32_t> (e) << 10) | (man >> 13);
  uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    h++;
  return static_cast<uint16_t> (sign | h);
}

/* The next binary16 value from h away from zero (h finite). */
static uint16_t
HalfAway (uint16_t h)
{
  return static_cast<uint16_t> (h + 1u);
}

uint16_t
FloatToHalfMode (float f, int mode)
{
  if (f != f || f - f != 0.0f)
    return FloatToHalf (f);  /* NaN and the infinities convert as they are */
  const double v = f, mag = v < 0 ? -v : v;
  const uint16_t sign = v < 0 ? 0x8000u : 0;
  uint16_t near = static_cast<uint16_t> (FloatToHalf (static_cast<float> (mag)) & 0x7fffu);
  /* t: the largest half magnitude <= |v| (toward zero); a: the next one (away from zero). */
  uint16_t t = near;
  if (near >= 0x7c00u || static_cast<double> (HalfToFloat (near)) > mag)
    t = static_cast<uint16_t> (near - 1u);
  const double tv = HalfToFloat (t);
  uint16_t r;
  if (tv == mag)
    r = t;
  else
    {
      const uint16_t a = HalfAway (t);
      const double av = a >= 0x7c00u ? 65536.0 : static_cast<double> (HalfToFloat (a));
      const bool up = v > 0;  /* away from zero is toward +inf */
      switch (mode)
        {
        case 2: r = up ? t : a; break;                      /* CAST_FLOOR */
        case 3: r = up ? a : t; break;                      /* CAST_CEIL */
        case 4: r = mag - tv >= av - mag ? a : t; break;    /* CAST_ROUND: ties away from zero */
        case 5: r = t; break;                               /* CAST_TRUNC */
        case 6: r = (t & 1u) ? t : a; break;                /* CAST_ODD */
        default: r = near; break;                           /* CAST_NONE, CAST_RINT: nearest, ties to even */
        }
    }
  if (r >= 0x7c00u)
    r = 0x7bffu;  /* saturation: the largest finite half */
  return static_cast<uint16_t> (sign | r);
}

float
HalfToFloat (uint16_t h)
{
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
  if (exp == 0)
    {
      if (man == 0)
        x = sign;
      else
        {
          int e = -1;
          do
            {
              e++;
              man <<= 1;
            }
          while ((man & 0x400u) == 0);
          x = sign | (static_cast<uint32_t> (127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    }
  else if (exp == 31)
    x = sign | 0x7f800000u | (man << 13);
  else
    x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  float f;
  std::memcpy (&f, &x, 4);
  return f;
}

}  // namespace fwtwin

using namespace fwtwin;

namespace AscendC {

TPipe::TPipe ()
{
  g.pipe_live = true;
}

/* TPipe.md (Destroy): the pipe's buffers go with it. A SuperKernel's sub-kernels each bring their own
 * pipe, one after another on the same core: the next one's InitBuffer starts from an empty UB. */
TPipe::~TPipe ()
{
  g.pipe_live = false;
  for (int i = 0; i < g.n_slots; i++)
    if (g.slots[i].queue && g.slots[i].state != S_FREE)
      Diag ("FW-TWIN-LEAK", g.slots[i].alloc_file, g.slots[i].alloc_line,
            "a tensor AllocTensor gave here is not freed when the kernel ends");
  g.ub_used = 0;
  g.buffers = 0;
  g.n_slots = 0;
  g.n_queues = 0;
}

namespace twin {

/* The producer and consumer pipe of a queue position (TQue.md: VECIN carries GM->UB loads to the vector
 * unit, VECOUT its results to the UB->GM copy). */
static void
QueuePipes (int position, int *producer, int *consumer)
{
  TPosition p = static_cast<TPosition> (position);
  *producer = p == TPosition::VECIN ? P_MTE2 : P_V;
  *consumer = p == TPosition::VECOUT ? P_MTE3 : P_V;
}

/* InitBuffer.md: len rounds up to 32 bytes; at most 64 buffers in a kernel; everything inside the Unified
 * Buffer of the chip (the profile's size). */
int
InitBuffer (int position, bool queue, int depth, int num, uint32_t len, const char *file, int line)
{
  uint32_t rounded = (len + 31) / 32 * 32;
  if (!g.pipe_live)
    Diag ("FW-TWIN-NO-PIPE", file, line, "InitBuffer outside a live TPipe");
  if (num < 1 || (queue && g.n_queues == MAX_QUEUES) || g.n_slots + num > MAX_SLOTS)
    {
      Diag ("FW-TWIN-BUFFER-COUNT", file, line, "InitBuffer of %d buffers: no room for them", num);
      return -1;
    }
  if (g.buffers + num > 64)
    Diag ("FW-TWIN-BUFFER-COUNT", file, line, "InitBuffer brings the kernel to %d buffers, more than the 64 allowed",
          g.buffers + num);
  uint64_t after = static_cast<uint64_t> (g.ub_used) + static_cast<uint64_t> (num) * rounded;
  if (after > g.ub_capacity)
    Diag ("FW-TWIN-UB-CAPACITY", file, line,
          "InitBuffer of %d x %u bytes brings the Unified Buffer to %llu bytes, over the chip's %u", num, rounded,
          (unsigned long long) after, g.ub_capacity);
  if (after > g.ub_alloc)
    return -1;
  int first = g.n_slots;
  for (int i = 0; i < num; i++)
    {
      Slot &s = g.slots[g.n_slots++];
      std::memset (&s, 0, sizeof s);
      s.start = g.ub_used;
      s.len = rounded;
      s.queue = queue;
      s.position = position;
      s.queue_id = queue ? g.n_queues : -1;
      s.state = queue ? S_FREE : S_OCCUPIED;
      g.ub_used += rounded;
    }
  g.buffers += num;
  if (!queue)
    return first;
  Queue &q = g.queues[g.n_queues];
  q.position = position;
  q.depth = depth;
  q.first_slot = first;
  q.n_slots = num;
  q.enq_counter = 0;
  q.line = line;
  return g.n_queues++;
}

static bool
ValidQueue (int queue, const char *what, const char *file, int line)
{
  if (queue < 0 || queue >= g.n_queues)
    {
      Diag ("FW-TWIN-NO-BUFFER", file, line, "%s on a queue InitBuffer never set up", what);
      return false;
    }
  return true;
}

/* AllocTensor.md: a free block of the queue, else the core waits (forever, in a kernel that never frees
 * one). InitBuffer.md notes: at most 8 queue buffers of one TPosition in use at once on these chips. */
int
AllocSlot (int queue, const char *file, int line)
{
  if (!ValidQueue (queue, "AllocTensor", file, line))
    return -1;
  Queue &q = g.queues[queue];
  int in_use = 0;
  for (int i = 0; i < g.n_slots; i++)
    if (g.slots[i].queue && g.slots[i].position == q.position && g.slots[i].state != S_FREE)
      in_use++;
  if (in_use + 1 > 8)
    Diag ("FW-TWIN-QUE-LIMIT", file, line, "AllocTensor: %d tensors of one TPosition allocated at once, more than 8",
          in_use + 1);
  for (int i = q.first_slot; i < q.first_slot + q.n_slots; i++)
    if (g.slots[i].state == S_FREE)
      {
        Slot &s = g.slots[i];
        int producer, consumer;
        QueuePipes (q.position, &producer, &consumer);
        s.state = S_OCCUPIED;
        s.gen++;
        s.alloc_line = line;
        s.alloc_file = file;
        Join (producer, s.freed);
        return i;
      }
  Diag ("FW-TWIN-QUEUE-EXHAUSTED", file, line,
        "AllocTensor with all %d buffers of the queue in use: the core would wait forever", q.n_slots);
  return -1;
}

static bool
OwnSlot (int queue, int slot, const char *what, const char *file, int line)
{
  Queue &q = g.queues[queue];
  if (slot < q.first_slot || slot >= q.first_slot + q.n_slots)
    {
      Diag ("FW-TWIN-STATE", file, line, "%s of a tensor that is not this queue's", what);
      return false;
    }
  return true;
}

/* EnQue.md: an allocated tensor enters the queue; the queue holds at most its depth. */
bool
EnQue (int queue, int slot, uint32_t gen, const char *file, int line)
{
  if (!ValidQueue (queue, "EnQue", file, line) || !OwnSlot (queue, slot, "EnQue", file, line))
    return false;
  Queue &q = g.queues[queue];
  Slot &s = g.slots[slot];
  if (s.gen != gen || s.state == S_FREE)
    {
      Diag ("FW-TWIN-FREED", file, line, "EnQue of a tensor after FreeTensor gave it back");
      return false;
    }
  if (s.state != S_OCCUPIED)
    {
      Diag ("FW-TWIN-STATE", file, line, "EnQue of a tensor in state %s (AllocTensor gives OCCUPIED ones)",
            StateName (s.state));
      return false;
    }
  int queued = 0;
  for (int i = q.first_slot; i < q.first_slot + q.n_slots; i++)
    queued += g.slots[i].state == S_ENQUE;
  if (queued >= q.depth)
    Diag ("FW-TWIN-QUEUE-DEPTH", file, line, "EnQue into a queue of depth %d that already holds %d tensors", q.depth,
          queued);
  int producer, consumer;
  QueuePipes (q.position, &producer, &consumer);
  s.state = S_ENQUE;
  s.enq_order = ++q.enq_counter;
  s.handoff = Snapshot (producer);
  return true;
}

/* DeQue.md: the oldest queued tensor; the consumer's pipe waits for the producer's work on it. */
int
DeQue (int queue, const char *file, int line)
{
  if (!ValidQueue (queue, "DeQue", file, line))
    return -1;
  Queue &q = g.queues[queue];
  int best = -1;
  for (int i = q.first_slot; i < q.first_slot + q.n_slots; i++)
    if (g.slots[i].state == S_ENQUE && (best < 0 || g.slots[i].enq_order < g.slots[best].enq_order))
      best = i;
  if (best < 0)
    {
      Diag ("FW-TWIN-QUEUE-EMPTY", file, line, "DeQue of an empty queue: the core would wait forever");
      return -1;
    }
  int producer, consumer;
  QueuePipes (q.position, &producer, &consumer);
  g.slots[best].state = S_DEQUE;
  Join (consumer, g.slots[best].handoff);
  return best;
}

/* FreeTensor.md: gives the block back; freeing twice is npu check's ErrorFree. */
void
FreeSlot (int queue, int slot, uint32_t gen, const char *file, int line)
{
  if (!ValidQueue (queue, "FreeTensor", file, line) || !OwnSlot (queue, slot, "FreeTensor", file, line))
    return;
  Slot &s = g.slots[slot];
  if (s.gen != gen || s.state == S_FREE)
    {
      Diag ("FW-TWIN-DOUBLE-FREE", file, line, "FreeTensor of a tensor already freed (allocated at line %d)",
            s.alloc_line);
      return;
    }
  if (s.state == S_ENQUE)
    {
      Diag ("FW-TWIN-STATE", file, line, "FreeTensor of a tensor still in its queue (EnQue without DeQue)");
      return;
    }
  int producer, consumer;
  QueuePipes (g.queues[queue].position, &producer, &consumer);
  s.state = S_FREE;
  s.freed = Snapshot (consumer);
}

void
EventPipes (HardEvent e, int *src, int *dst)
{
  static const uint8_t pipes[][2] = {
    { P_MTE2, P_MTE1 }, { P_MTE1, P_MTE2 }, { P_MTE1, P_M }, { P_M, P_MTE1 }, { P_MTE2, P_V }, { P_V, P_MTE2 },
    { P_MTE3, P_V }, { P_V, P_MTE3 }, { P_M, P_V }, { P_V, P_M }, { P_V, P_V }, { P_MTE3, P_MTE1 },
    { P_MTE1, P_MTE3 }, { P_MTE1, P_V }, { P_MTE2, P_M }, { P_M, P_MTE2 }, { P_V, P_MTE1 }, { P_M, P_FIX },
    { P_FIX, P_M }, { P_MTE3, P_MTE2 }, { P_MTE2, P_MTE3 }, { P_S, P_V }, { P_V, P_S }, { P_S, P_MTE2 },
    { P_MTE2, P_S }, { P_S, P_MTE3 }, { P_MTE3, P_S }, { P_MTE2, P_FIX }, { P_FIX, P_MTE2 }, { P_FIX, P_S },
    { P_M, P_S }, { P_FIX, P_MTE3 },
  };
  int i = static_cast<int> (e);
  *src = pipes[i][0];
  *dst = pipes[i][1];
}

static bool
ValidEvent (HardEvent e, int id, const char *what, const char *file, int line)
{
  if (id < 0 || id >= MAX_EVENT_IDS || static_cast<int> (e) >= N_EVENTS)
    {
      Diag ("FW-TWIN-EVENT-ID", file, line, "%s with event id %d outside 0..%d", what, id, MAX_EVENT_IDS - 1);
      return false;
    }
  return true;
}

/* SetFlag/WaitFlag(ISASI); npu check ErrorSync3 (a set without its wait or the reverse) and ErrorSync4 (an
 * event id set twice). */
void
SetFlag (HardEvent e, int id, const char *file, int line)
{
  int src, dst;
  if (!ValidEvent (e, id, "SetFlag", file, line))
    return;
  EventPipes (e, &src, &dst);
  int k = static_cast<int> (e);
  if (g.flag_set[k][id])
    Diag ("FW-TWIN-EVENT-DUP", file, line, "SetFlag %s->%s id %d again before its WaitFlag (set at line %d)",
          PipeName (src), PipeName (dst), id, g.flag_line[k][id]);
  Issue (src);
  g.flag_set[k][id] = true;
  g.flag_snap[k][id] = Snapshot (src);
  g.flag_line[k][id] = line;
  g.flag_file[k][id] = file;
}

void
WaitFlag (HardEvent e, int id, const char *file, int line)
{
  int src, dst;
  if (!ValidEvent (e, id, "WaitFlag", file, line))
    return;
  EventPipes (e, &src, &dst);
  int k = static_cast<int> (e);
  if (!g.flag_set[k][id])
    {
      Diag ("FW-TWIN-EVENT-UNPAIRED", file, line, "WaitFlag %s->%s id %d with no SetFlag before it", PipeName (src),
            PipeName (dst), id);
      return;
    }
  Join (dst, g.flag_snap[k][id]);
  g.flag_set[k][id] = false;
}

/* FetchEventID.md: an id free for this event now, not reserved. */
int
FetchEventID (HardEvent e, const char *file, int line)
{
  int k = static_cast<int> (e);
  for (int id = 0; id < MAX_EVENT_IDS; id++)
    if (!g.flag_set[k][id])
      return id;
  Diag ("FW-TWIN-EVENT-ID", file, line, "FetchEventID with every id of the event set and not waited");
  return 0;
}

void
Barrier (int pipe)
{
  if (pipe >= 0)
    return;
  for (int p = 0; p < P_COUNT; p++)
    for (int q = 0; q < P_COUNT; q++)
      g.known[p].c[q] = g.clock[q];
}

/* DataCopyPad.md parameter table. */
bool
CheckPadParams (const DataCopyExtParams &p, uint32_t left_bytes, uint32_t right_bytes, const char *file, int line)
{
  if (p.blockCount < 1 || p.blockCount > 4095)
    {
      Diag ("FW-TWIN-PAD-PARAMS", file, line, "DataCopyPad blockCount %u outside [1, 4095]", p.blockCount);
      return false;
    }
  if (p.blockLen < 1 || p.blockLen > 2097151)
    {
      Diag ("FW-TWIN-PAD-PARAMS", file, line, "DataCopyPad blockLen %u outside [1, 2097151] bytes", p.blockLen);
      return false;
    }
  if (left_bytes > 32 || right_bytes > 32)
    {
      Diag ("FW-TWIN-PAD-PARAMS", file, line, "DataCopyPad padding of %u/%u bytes: at most 32 each side", left_bytes,
            right_bytes);
      return false;
    }
  return true;
}

}  // namespace twin
}  // namespace AscendC
