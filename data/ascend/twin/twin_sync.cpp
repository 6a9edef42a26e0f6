/* twin_sync.cpp: the barriers between the blocks of a concurrent run of Fusion Workbench's Ascend C twin (a
 * SuperKernel scope: one thread per block). SyncAll (SyncAll.md, hard-sync prototype) and CrossCoreSetFlag
 * mode 0 + CrossCoreWaitFlag (CrossCoreSetFlag(ISASI).md) hold a block until every block of the launch has
 * arrived; each completed barrier starts a new epoch, which the GM read check (GmRead) compares writes with.
 *
 * A barrier some blocks never reach is a hang on the chip. Here it is found two ways: at once, when every
 * block still running waits at a barrier that can no longer fill (the others have returned from the kernel,
 * or wait at another one), and after sync_config.timeout_ms otherwise (a block looping). Either way the run is
 * given up: FW-TWIN-SYNC-HANG, and every waiting block's thread stops (SyncAbandon). */
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "kernel_operator.h"

namespace fwtwin {

namespace {

enum { N_KINDS = 2 + 16 };

struct Barrier
{
  int arrived = 0;
  int waiters = 0;           /* blocks waiting for the round to complete */
  uint64_t generation = 0;   /* completed rounds */
};

std::mutex sync_mutex;
std::condition_variable changed;
Barrier barriers[N_KINDS];
/* waiting: blocks held at a barrier not yet complete (a completed round releases its waiters at once, before
 * their threads wake); finished: blocks returned from the kernel. */
int waiting = 0, finished = 0;
bool abandoned = false;
/* Per block: the round of the barrier it arrived at and is yet to wait for. */
thread_local uint64_t arrived_round[N_KINDS];
thread_local bool has_arrived[N_KINDS];

const char *
KindName (int kind)
{
  return kind == 0 ? "SyncAll<true>" : kind == 1 ? "SyncAll<false>" : "CrossCoreSetFlag mode 0";
}

/* Under the lock: no block can arrive any more (every one left is waiting or has returned). */
bool
Stuck ()
{
  return waiting > 0 && waiting + finished == sync_config.blocks;
}

void
Abandon (const char *how, const char *file, int line)
{
  if (abandoned)
    return;
  abandoned = true;
  int at = 0;
  for (int k = 0; k < N_KINDS; k++)
    at += barriers[k].arrived;
  Diag ("FW-TWIN-SYNC-HANG", file, line, "%s: %d of %d blocks wait at a barrier the other %d never reach (%d have "
        "returned from the kernel)", how, at, sync_config.blocks, sync_config.blocks - at, finished);
  changed.notify_all ();
}

}  // namespace

void
SyncArrive (int kind, const char *what, const char *file, int line)
{
  (void) what;
  if (!sync_config.concurrent)
    {
      /* Blocks one after another: the first block would wait for the rest forever. */
      if (g.block_num > 1)
        Diag ("FW-TWIN-SYNC-HANG", file, line, "%s in a kernel whose blocks the twin runs one after another: on the "
              "chip it waits for blocks that have not started", KindName (kind));
      return;
    }
  uint32_t call = ++g.barrier_calls;
  if (call == sync_config.drop_barrier)
    return;
  if (sync_config.drop_barrier != 0 && call == sync_config.drop_barrier + 1)
    throw SyncStop ();
  std::lock_guard<std::mutex> lock (sync_mutex);
  if (abandoned)
    throw SyncAbandon ();
  Barrier &b = barriers[kind];
  arrived_round[kind] = b.generation;
  has_arrived[kind] = true;
  if (++b.arrived == sync_config.blocks)
    {
      b.arrived = 0;
      b.generation++;
      waiting -= b.waiters;
      b.waiters = 0;
      changed.notify_all ();
    }
}

void
SyncWait (int kind, const char *what, const char *file, int line)
{
  (void) what;
  if (!sync_config.concurrent)
    return;
  if (!has_arrived[kind])
    return;   /* the dropped barrier, or a wait without its set (CrossCoreWait reports that) */
  has_arrived[kind] = false;
  std::unique_lock<std::mutex> lock (sync_mutex);
  uint64_t round = arrived_round[kind];
  Barrier &b = barriers[kind];
  if (b.generation == round)
    {
      waiting++;
      b.waiters++;
    }
  auto deadline = std::chrono::steady_clock::now () + std::chrono::milliseconds (sync_config.timeout_ms);
  while (b.generation == round && !abandoned)
    {
      if (Stuck ())
        Abandon ("a barrier no block can complete any more", file, line);
      else if (changed.wait_until (lock, deadline) == std::cv_status::timeout && b.generation == round)
        Abandon ("a barrier still incomplete after the twin's time limit", file, line);
    }
  /* Given up: the counts stay as they are, the run is over. */
  if (b.generation == round)
    throw SyncAbandon ();
  g.epoch++;
}

void
SyncFinish ()
{
  if (!sync_config.concurrent)
    return;
  std::lock_guard<std::mutex> lock (sync_mutex);
  finished++;
  if (Stuck ())
    Abandon ("a barrier no block can complete any more", "-", 0);
  changed.notify_all ();
}

}  // namespace fwtwin

namespace AscendC {
namespace twin {

/* g.cross_flag[flag]: bit 7 a mode-0 arrival not yet waited for, the low bits the mode 1/2 sets pending. */
void
CrossCoreSet (int mode, int flag, const char *file, int line)
{
  if (flag < 0 || flag > 10)
    {
      fwtwin::Diag ("FW-TWIN-SYNC-FLAG", file, line, "CrossCoreSetFlag flagId %d is outside 0-10", flag);
      return;
    }
  uint8_t &f = fwtwin::g.cross_flag[flag];
  if (mode == 0)
    {
      f |= 0x80;
      fwtwin::SyncArrive (2 + flag, "CrossCoreSetFlag", file, line);
      return;
    }
  if ((f & 0x7f) == 15)
    {
      fwtwin::Diag ("FW-TWIN-SYNC-FLAG", file, line, "CrossCoreSetFlag flagId %d set a 16th time before a wait", flag);
      return;
    }
  f++;
}

void
CrossCoreWait (int flag, const char *file, int line)
{
  if (flag < 0 || flag > 10)
    {
      fwtwin::Diag ("FW-TWIN-SYNC-FLAG", file, line, "CrossCoreWaitFlag flagId %d is outside 0-10", flag);
      return;
    }
  uint8_t &f = fwtwin::g.cross_flag[flag];
  if (f & 0x80)
    {
      f &= 0x7f;
      fwtwin::SyncWait (2 + flag, "CrossCoreWaitFlag", file, line);
    }
  else if (f > 0)
    f--;
  else
    fwtwin::Diag ("FW-TWIN-SYNC-HANG", file, line, "CrossCoreWaitFlag(%d) with no CrossCoreSetFlag before it waits "
                  "forever", flag);
}

}  // namespace twin
}  // namespace AscendC
