/* twin_core.h: the state of one simulated AI Core of Fusion Workbench's Ascend C twin, and the checks every
 * API entry point of kernel_operator.h runs. Not part of the Ascend C API: kernels never include it
 * directly. docs/ascend-twin.md lists each rule with the page it comes from.
 *
 * A kernel's blocks run one after another; a SuperKernel scope's run concurrently, one thread each, with
 * the barriers of twin_sync.cpp between them. So the running core's state is one per thread (`g`); what the
 * blocks share (the GM buffers' bytes and their ownership, the diagnostics) is written under the rules
 * below. Checks work on 32-byte UB blocks, the unit the pages state alignment and copy lengths in; nothing
 * here is per element except the arithmetic itself. */
#ifndef FW_TWIN_CORE_H
#define FW_TWIN_CORE_H

#include <cstddef>
#include <cstdint>

namespace fwtwin {

/* The pipelines of one core (PipeBarrier(ISASI) page, table of pipeline types; SetFlag/WaitFlag(ISASI)):
 * S scalar, V vector, M cube, MTE1 L1->L0, MTE2 GM->UB/L1, MTE3 UB->GM, FIX L0C->GM. */
enum Pipe : uint8_t { P_S, P_V, P_M, P_MTE1, P_MTE2, P_MTE3, P_FIX, P_COUNT, P_NONE = 0xff };

const char *PipeName (int pipe);

/* What pipe p is known to be ordered after: for each pipe q the number of q's instructions whose effects p
 * sees. A pipe always sees its own earlier instructions (in-order issue; same-pipe data dependencies of V
 * get their barrier from the compiler, PipeBarrier(ISASI) page note). */
struct Clock
{
  uint64_t c[P_COUNT];
};

enum SlotState : uint8_t { S_FREE, S_OCCUPIED, S_ENQUE, S_DEQUE };

/* One buffer InitBuffer handed out: a TQue's block or a TBuf. */
struct Slot
{
  uint32_t start;      /* byte offset in UB */
  uint32_t len;        /* bytes, rounded up to 32 */
  uint32_t gen;        /* bumped by every AllocTensor: a tensor handle from before is stale */
  uint8_t state;
  bool queue;
  int position;        /* TPosition as int */
  int queue_id;
  uint64_t enq_order;  /* FIFO order of EnQue */
  Clock handoff;       /* producer's clock at EnQue (consumer takes it at DeQue) */
  Clock freed;         /* consumer's clock at FreeTensor (producer takes it at AllocTensor) */
  int alloc_line;
  const char *alloc_file;
};

struct Queue
{
  int position;
  int depth;
  int first_slot;
  int n_slots;
  uint64_t enq_counter;
  int line;
};

/* Per 32-byte UB block: the pipe that last wrote it and that write's sequence number, and the last read by
 * each pipe (for writes that would overtake a read still in flight). */
struct BlockTrack
{
  uint8_t wpipe;
  uint64_t wseq;
  uint64_t rseq[P_COUNT];
};

struct GmBuffer
{
  uint8_t *data;
  uint64_t bytes;
  bool output;
  uint16_t *owner;     /* output bytes: block index + 1 of the block that wrote it, 0 never */
  uint16_t *epoch;     /* output bytes, concurrent runs: the writer's barrier count when it wrote */
  const char *name;
  bool workspace;      /* the kernel's GM workspace: scratch it writes before it reads */
};

struct Stats
{
  uint64_t mte2_bytes, mte3_bytes, vector_repeats, vector_instructions, scalar_accesses;
};

/* MAX_GM: a SuperKernel scope passes every value it reads and writes. */
enum { MAX_SLOTS = 128, MAX_QUEUES = 64, MAX_EVENT_IDS = 8, N_EVENTS = 32, MAX_GM = 2048, MAX_VECTOR_KINDS = 48 };

/* The vector instructions of one kind (name and element sizes) a block issued: the unit CANN's per-API
 * linear costs are stated in (calls and elements; docs/ascend-twin.md, time on the twin). */
struct VectorKind
{
  const char *name;
  uint8_t dst_size, src_size;
  uint64_t calls, elements, repeats;
};

/* What one block moved and issued, for the time estimate: copies per pipe with their bytes (the largest
 * single GM -> UB copy picks CANN's MTE2 start-up cost), the cube work of the Matmul API (multiply-adds and
 * the A/B/bias bytes it reads from GM, a part of mte2_bytes), scalar accesses, the vector kinds. */
struct BlockStats
{
  uint64_t mte2_bytes, mte2_copies, mte2_max_copy, mte3_bytes, mte3_copies;
  uint64_t cube_macs, cube_bytes, scalar;
  uint8_t cube_size;
  int n_kinds;
  VectorKind kinds[MAX_VECTOR_KINDS];
};

struct Core
{
  uint8_t *ub;
  uint32_t ub_capacity;   /* the profile's Unified Buffer */
  /* The cube core's L1, L0A, L0B and L0C (the profile's; the Matmul API checks its tiling against them). */
  uint32_t l1_capacity, l0a_capacity, l0b_capacity, l0c_capacity;
  uint32_t ub_alloc;      /* bytes of UB memory the twin holds (capacity and room to run past it) */
  uint32_t ub_used;
  int buffers;            /* sum of InitBuffer num */
  Slot slots[MAX_SLOTS];
  int n_slots;
  Queue queues[MAX_QUEUES];
  int n_queues;
  BlockTrack *track;
  uint64_t clock[P_COUNT];
  Clock known[P_COUNT];
  bool flag_set[N_EVENTS][MAX_EVENT_IDS];
  Clock flag_snap[N_EVENTS][MAX_EVENT_IDS];
  int flag_line[N_EVENTS][MAX_EVENT_IDS];
  const char *flag_file[N_EVENTS][MAX_EVENT_IDS];
  int block_idx, block_num;
  int reduce_mode;        /* ReduceSum: 1 tree over repeats, 2 repeats added in order */
  bool pipe_live;
  GmBuffer gm[MAX_GM];
  int n_gm;
  int last_gm;            /* the buffer GmFind found last: accesses come in runs */
  Stats stats;
  BlockStats block;       /* the running block's, reset with the core */
  uint32_t epoch;         /* barriers this block has passed (concurrent runs) */
  uint32_t barrier_calls; /* barriers it has called, the dropped one included */
  uint8_t cross_flag[16]; /* CrossCoreSetFlag modes 1 and 2 set and not yet waited for, per flagId */
};

extern thread_local Core g;

/* A SuperKernel scope's run: the blocks are threads (twin_main.cpp sets these before they start). */
struct SyncConfig
{
  bool concurrent;        /* reads of output bytes are checked against the barriers */
  int blocks;
  uint32_t drop_barrier;  /* 1-based: every block skips its K-th barrier, as if the source lacked it, and stops
                             at the next one (what follows does not tell of it); 0 none */
  uint32_t timeout_ms;    /* a barrier not complete after this long is a hang */
};
extern SyncConfig sync_config;

/* SyncAll (either kind) and CrossCoreSetFlag mode 0 + CrossCoreWaitFlag: block until every block of the
 * launch arrives (twin_sync.cpp). kind names which barrier (0 SyncAll<true>, 1 SyncAll<false>, 2 + flagId
 * the cross-core flags): blocks waiting at different kinds never meet, which is a hang. */
void SyncArrive (int kind, const char *what, const char *file, int line);
void SyncWait (int kind, const char *what, const char *file, int line);
/* The running block has returned from the kernel: a barrier the others still wait at can no longer fill. */
void SyncFinish ();
/* Thrown out of a barrier when the run is given up (a hang found): the block's thread stops there. */
struct SyncAbandon {};
/* Thrown out of the barrier after the dropped one: the block's thread stops there. */
struct SyncStop {};

void Diag (const char *code, const char *file, int line, const char *format, ...)
  __attribute__ ((format (printf, 4, 5)));

/* Snapshot of pipe p's view, its own instructions included: what SetFlag or EnQue hands on. */
Clock Snapshot (int p);
/* p now sees everything in snap. */
void Join (int p, const Clock &snap);

/* The checks of one operand access of `bytes` at UB offset addr in slot: the tensor's state, its extent,
 * and pipe ordering against the last writer (RAW/WAW) and readers (WAR) of each 32-byte block. Returns
 * false when the access must be skipped (a stale or unknown tensor, or nothing in range). *bytes is clamped
 * to the extent. */
bool UbAccess (int slot, uint32_t gen, uint32_t addr, uint64_t *bytes, uint32_t extent_bytes, int pipe, bool write,
               const char *what, const char *file, int line);
/* A new instruction on pipe p. */
uint64_t Issue (int p);
/* A copy of bytes on MTE2 (GM -> UB) or MTE3 (UB -> GM), and a vector instruction of count elements: the
 * totals and the running block's figures. */
void CountCopy (int pipe, uint64_t bytes);
void CountVector (const char *what, unsigned dst_size, unsigned src_size, uint64_t count, uint64_t repeats);
bool CheckAligned (uint32_t addr, const char *what, const char *file, int line);

/* GM: the registered buffer holding [p, p + bytes), or -1 (with a diagnostic). */
int GmFind (const void *p, uint64_t bytes, const char *what, const char *file, int line);
/* A write of [p, p + bytes) by the running block: two blocks writing one byte is a diagnostic. */
void GmWrite (int buffer, const uint8_t *p, uint64_t bytes, const char *file, int line);
/* A read of [p, p + bytes) of an output buffer in a concurrent run: a byte no block has written yet, or one
 * another block wrote since the running block's last barrier, is a race (SyncAll page: cores reading what
 * others write need the barrier between). */
void GmRead (int buffer, const uint8_t *p, uint64_t bytes, const char *file, int line);

/* Half precision as IEEE binary16, round to nearest even (the data types page: half is binary16). */
uint16_t FloatToHalf (float f);
float HalfToFloat (uint16_t h);
/* Cast.md's float -> half in round mode `mode` (RoundMode's order: 0 CAST_NONE and 1 CAST_RINT to nearest
 * even, 2 CAST_FLOOR, 3 CAST_CEIL, 4 CAST_ROUND to nearest with ties away from zero, 5 CAST_TRUNC, 6 CAST_ODD
 * to the odd neighbour when inexact); a finite value past the half range saturates at +-65504, as the page
 * says overflow is handled by default. */
uint16_t FloatToHalfMode (float f, int mode);

}  // namespace fwtwin

#endif
