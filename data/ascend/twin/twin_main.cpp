/* twin_main.cpp: the driver of Fusion Workbench's Ascend C twin. Linked with one generated kernel (through
 * the shim the runner writes, which defines fw_twin_entry), it reads a job file, places every GM argument
 * between guard pages, runs the kernel's blocks one after another in order and again in a shuffled order,
 * and writes the outputs of the ordered run and the diagnostics. A SuperKernel scope (`concurrent 1`) runs
 * its blocks at once instead, one thread each, with SyncAll between them (twin_sync.cpp): once, as the chip
 * would.
 *
 * Job file, one item a line:
 *   ub BYTES | cube L1 L0A L0B L0C | reduce 1|2 | blocks N | seed S | tiling V1 ... V7 [...] | diag PATH
 *   concurrent 1 | drop_barrier K (every block skips its K-th barrier) | sync_timeout_ms MS | time_limit S
 *   arg in|out|ws BYTES PATH NAME   (kernel arguments in order; the tiling is passed last; ws: the kernel's GM
 *                                    workspace, writable, neither read from nor written to PATH, not compared)
 * Diagnostics file: "D\tCODE\tFILE\tLINE\tCOUNT\tMESSAGE" lines, then "S\tMTE2 MTE3 REPEATS INSTRUCTIONS SCALAR",
 * then per block of the ordered run "B\tBLOCK\tMTE2 COPIES MAXCOPY MTE3 COPIES MACS CUBEBYTES CUBESIZE SCALAR" and
 * one "V\tBLOCK\tNAME\tDSTSIZE\tSRCSIZE\tCALLS\tELEMENTS\tREPEATS" per vector kind it issued. */
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel_operator.h"
#include "twin_diag.h"

extern "C" void fw_twin_entry (uint8_t **args);

using namespace fwtwin;

namespace {

struct Arg
{
  bool output;
  bool workspace = false;  /* written like an output, but scratch: never checked, compared or saved */
  uint64_t bytes;
  std::string path, name;
  uint8_t *map = nullptr;
  size_t map_len = 0;
  uint8_t *data = nullptr;
};

std::vector<Arg> args;
std::vector<BlockStats> block_stats;  /* the ordered run's, by block index */
char diag_path[8192];
std::vector<uint64_t> tiling;
unsigned time_limit = 120;
const unsigned char kSentinel = 0xA5;

/* Each GM buffer ends at a page boundary rounded to 32 bytes, with an inaccessible page on either side: a raw
 * access the API checks missed still stops at once. */
uint8_t *
GuardedAlloc (uint64_t bytes, uint8_t **map, size_t *map_len)
{
  size_t page = static_cast<size_t> (sysconf (_SC_PAGESIZE));
  uint64_t rounded = (bytes + 31) / 32 * 32;
  size_t body = (rounded + page - 1) / page * page;
  size_t len = body + 2 * page;
  void *m = mmap (nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return nullptr;
  uint8_t *base = static_cast<uint8_t *> (m);
  if (body > 0 && mprotect (base + page, body, PROT_READ | PROT_WRITE) != 0)
    return nullptr;
  *map = base;
  *map_len = len;
  return base + page + body - rounded;
}

void
WriteDiags ()
{
  FILE *f = std::fopen (diag_path, "w");
  if (f == nullptr)
    return;
  for (int i = 0; i < n_diags; i++)
    std::fprintf (f, "D\t%s\t%s\t%d\t%ld\t%s\n", diags[i].code, diags[i].file, diags[i].line, diags[i].count,
                  diags[i].message);
  std::fprintf (f, "S\t%llu %llu %llu %llu %llu\n", (unsigned long long) g.stats.mte2_bytes,
                (unsigned long long) g.stats.mte3_bytes, (unsigned long long) g.stats.vector_repeats,
                (unsigned long long) g.stats.vector_instructions, (unsigned long long) g.stats.scalar_accesses);
  for (size_t i = 0; i < block_stats.size (); i++)
    {
      const BlockStats &b = block_stats[i];
      std::fprintf (f, "B\t%zu\t%llu %llu %llu %llu %llu %llu %llu %u %llu\n", i, (unsigned long long) b.mte2_bytes,
                    (unsigned long long) b.mte2_copies, (unsigned long long) b.mte2_max_copy,
                    (unsigned long long) b.mte3_bytes, (unsigned long long) b.mte3_copies,
                    (unsigned long long) b.cube_macs, (unsigned long long) b.cube_bytes, (unsigned) b.cube_size,
                    (unsigned long long) b.scalar);
      for (int k = 0; k < b.n_kinds; k++)
        std::fprintf (f, "V\t%zu\t%s\t%u\t%u\t%llu\t%llu\t%llu\n", i, b.kinds[k].name, (unsigned) b.kinds[k].dst_size,
                      (unsigned) b.kinds[k].src_size, (unsigned long long) b.kinds[k].calls,
                      (unsigned long long) b.kinds[k].elements, (unsigned long long) b.kinds[k].repeats);
    }
  std::fclose (f);
}

void
OnSignal (int sig)
{
  /* Only async-signal-safe calls: the diagnostics file is written with write(2). */
  const char *msg = sig == SIGALRM ? "D\tFW-TWIN-TIMEOUT\t-\t0\t1\tthe kernel ran past the twin's time limit\n"
                                   : "D\tFW-TWIN-GM-GUARD\t-\t0\t1\ta raw access left the GM buffers (guard page hit)\n";
  int fd = open (diag_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (fd >= 0)
    {
      ssize_t r = write (fd, msg, std::strlen (msg));
      (void) r;
      close (fd);
    }
  _exit (3);
}

void
ResetCore (int block, int blocks)
{
  std::memset (g.ub, 0xff, g.ub_alloc);
  std::memset (g.track, 0, sizeof (BlockTrack) * (g.ub_alloc / 32));
  for (uint32_t b = 0; b < g.ub_alloc / 32; b++)
    g.track[b].wpipe = P_NONE;
  g.ub_used = 0;
  g.buffers = 0;
  g.n_slots = 0;
  g.n_queues = 0;
  std::memset (g.clock, 0, sizeof g.clock);
  std::memset (g.known, 0, sizeof g.known);
  std::memset (g.flag_set, 0, sizeof g.flag_set);
  g.block_idx = block;
  g.block_num = blocks;
  std::memset (&g.block, 0, sizeof g.block);
}

/* What a block leaves behind: tensors never freed (npu check ErrorLeak), events set and never waited
 * (ErrorSync3). */
void
EndBlock ()
{
  for (int i = 0; i < g.n_slots; i++)
    if (g.slots[i].queue && g.slots[i].state != S_FREE)
      Diag ("FW-TWIN-LEAK", g.slots[i].alloc_file, g.slots[i].alloc_line,
            "a tensor AllocTensor gave here is not freed when the kernel ends");
  for (int e = 0; e < N_EVENTS; e++)
    for (int id = 0; id < MAX_EVENT_IDS; id++)
      if (g.flag_set[e][id])
        Diag ("FW-TWIN-EVENT-UNPAIRED", g.flag_file[e][id], g.flag_line[e][id], "SetFlag id %d is never waited for", id);
}

void
RunBlocks (const std::vector<int> &order, uint8_t **argv, bool record)
{
  int blocks = static_cast<int> (order.size ());
  if (record)
    block_stats.assign (order.size (), BlockStats ());
  for (int b : order)
    {
      ResetCore (b, blocks);
      fw_twin_entry (argv);
      EndBlock ();
      if (record)
        block_stats[static_cast<size_t> (b)] = g.block;
    }
}

/* One block of a concurrent run, on its own thread: its own core (UB, queues, clocks) over the shared GM. */
void
RunBlockThread (int b, int blocks, uint8_t **argv, const Core *proto, BlockStats *block_out, Stats *stats_out)
{
  g.ub_capacity = proto->ub_capacity;
  g.l1_capacity = proto->l1_capacity;
  g.l0a_capacity = proto->l0a_capacity;
  g.l0b_capacity = proto->l0b_capacity;
  g.l0c_capacity = proto->l0c_capacity;
  g.reduce_mode = proto->reduce_mode;
  g.ub_alloc = proto->ub_alloc;
  g.n_gm = proto->n_gm;
  std::memcpy (g.gm, proto->gm, sizeof g.gm);
  g.ub = static_cast<uint8_t *> (std::aligned_alloc (64, g.ub_alloc));
  g.track = static_cast<BlockTrack *> (std::calloc (g.ub_alloc / 32, sizeof (BlockTrack)));
  ResetCore (b, blocks);
  g.epoch = 0;
  g.barrier_calls = 0;
  std::memset (g.cross_flag, 0, sizeof g.cross_flag);
  bool done = true;
  try
    {
      fw_twin_entry (argv);
    }
  catch (const SyncAbandon &)
    {
      done = false;
    }
  catch (const SyncStop &)
    {
      done = false;
    }
  if (done)
    EndBlock ();
  SyncFinish ();
  *block_out = g.block;
  *stats_out = g.stats;
  std::free (g.ub);
  std::free (g.track);
}

/* A SuperKernel scope: every block at once. Returns false when the run was given up (a hang). */
bool
RunConcurrent (int blocks, uint8_t **argv)
{
  std::vector<Stats> stats (static_cast<size_t> (blocks));
  std::vector<std::thread> threads;
  block_stats.assign (static_cast<size_t> (blocks), BlockStats ());
  sync_config.blocks = blocks;
  for (int b = 0; b < blocks; b++)
    threads.emplace_back (RunBlockThread, b, blocks, argv, &g, &block_stats[static_cast<size_t> (b)],
                          &stats[static_cast<size_t> (b)]);
  for (std::thread &t : threads)
    t.join ();
  std::memset (&g.stats, 0, sizeof g.stats);
  for (const Stats &s : stats)
    {
      g.stats.mte2_bytes += s.mte2_bytes;
      g.stats.mte3_bytes += s.mte3_bytes;
      g.stats.vector_repeats += s.vector_repeats;
      g.stats.vector_instructions += s.vector_instructions;
      g.stats.scalar_accesses += s.scalar_accesses;
    }
  for (int i = 0; i < n_diags; i++)
    if (std::strcmp (diags[i].code, "FW-TWIN-SYNC-HANG") == 0)
      return false;
  return sync_config.drop_barrier == 0;
}

void
PrepareOutputs ()
{
  for (Arg &a : args)
    if (a.output)
      std::memset (a.data, kSentinel, a.bytes);
  for (int i = 0; i < g.n_gm; i++)
    if (g.gm[i].owner)
      std::memset (g.gm[i].owner, 0, sizeof (uint16_t) * g.gm[i].bytes);
}

bool
ReadJob (const char *path, int *blocks, unsigned *seed)
{
  FILE *f = std::fopen (path, "r");
  /* A SuperKernel scope's tiling line holds every sub-kernel's fields. */
  static char line[1 << 20];
  if (f == nullptr)
    return false;
  while (std::fgets (line, sizeof line, f))
    {
      char kind[16] = "", path_buf[4096] = "", name[256] = "";
      unsigned long long bytes = 0;
      int flag = 0;
      line[std::strcspn (line, "\n")] = '\0';
      if (std::sscanf (line, "ub %u", &g.ub_capacity) == 1 ||
          std::sscanf (line, "cube %u %u %u %u", &g.l1_capacity, &g.l0a_capacity, &g.l0b_capacity,
                       &g.l0c_capacity) == 4 || std::sscanf (line, "reduce %d", &g.reduce_mode) == 1 ||
          std::sscanf (line, "blocks %d", blocks) == 1 || std::sscanf (line, "seed %u", seed) == 1)
        continue;
      if (std::strncmp (line, "diag ", 5) == 0)
        std::snprintf (diag_path, sizeof diag_path, "%s", line + 5);
      else if (std::strncmp (line, "tiling ", 7) == 0)
        {
          /* The generated tiling struct's uint64 fields in order: 7 for a vector kernel, more with a cube
           * tiling (a mixed kernel), every sub-kernel's in turn for a SuperKernel scope. */
          const char *p = line + 7;
          char *end = nullptr;
          tiling.clear ();
          for (unsigned long long v = std::strtoull (p, &end, 10); end != p; v = std::strtoull (p, &end, 10))
            {
              tiling.push_back (v);
              p = end;
            }
          if (tiling.size () < 7)
            return false;
        }
      else if (std::sscanf (line, "concurrent %d", &flag) == 1)
        sync_config.concurrent = flag != 0;
      else if (std::sscanf (line, "drop_barrier %u", &sync_config.drop_barrier) == 1 ||
               std::sscanf (line, "sync_timeout_ms %u", &sync_config.timeout_ms) == 1 ||
               std::sscanf (line, "time_limit %u", &time_limit) == 1)
        continue;
      else if (std::sscanf (line, "arg %15s %llu %4095s %255s", kind, &bytes, path_buf, name) == 4)
        {
          Arg a;
          a.workspace = std::strcmp (kind, "ws") == 0;
          a.output = std::strcmp (kind, "out") == 0;
          a.bytes = bytes;
          a.path = path_buf;
          a.name = name;
          args.push_back (a);
        }
    }
  std::fclose (f);
  return diag_path[0] != '\0' && *blocks > 0 && g.ub_capacity > 0;
}

bool
LoadArg (Arg &a)
{
  a.data = GuardedAlloc (a.bytes, &a.map, &a.map_len);
  if (a.data == nullptr)
    return false;
  if (a.output || a.workspace)
    return true;
  FILE *f = std::fopen (a.path.c_str (), "rb");
  if (f == nullptr)
    return false;
  size_t got = std::fread (a.data, 1, a.bytes, f);
  std::fclose (f);
  return got == a.bytes;
}

}  // namespace

int
main (int argc, char **argv)
{
  int blocks = 0;
  unsigned seed = 1;
  g.reduce_mode = 2;
  if (argc != 2 || !ReadJob (argv[1], &blocks, &seed))
    {
      std::fprintf (stderr, "twin: usage: %s JOB (a readable job file)\n", argv[0]);
      return 2;
    }
  std::signal (SIGSEGV, OnSignal);
  std::signal (SIGBUS, OnSignal);
  std::signal (SIGALRM, OnSignal);
  alarm (time_limit);
  if (sync_config.timeout_ms == 0)
    sync_config.timeout_ms = 20000;
  g.ub_alloc = (g.ub_capacity * 4 + 31) / 32 * 32;
  g.ub = static_cast<uint8_t *> (std::aligned_alloc (64, g.ub_alloc));
  g.track = static_cast<BlockTrack *> (std::calloc (g.ub_alloc / 32, sizeof (BlockTrack)));
  std::vector<uint8_t *> argp;
  for (Arg &a : args)
    {
      if (!LoadArg (a) || g.n_gm == MAX_GM - 1)
        {
          std::fprintf (stderr, "twin: cannot set up argument %s\n", a.name.c_str ());
          return 2;
        }
      GmBuffer &b = g.gm[g.n_gm++];
      b.data = a.data;
      b.bytes = a.bytes;
      /* A workspace takes writes as an output does, and who wrote each byte is kept (two blocks writing one
       * byte of it race as they would on an output). */
      bool writable = a.output || a.workspace;
      b.output = writable;
      b.owner = writable ? static_cast<uint16_t *> (std::calloc (a.bytes + 1, sizeof (uint16_t))) : nullptr;
      b.epoch = writable && sync_config.concurrent ? static_cast<uint16_t *> (std::calloc (a.bytes + 1, sizeof (uint16_t)))
                                                   : nullptr;
      b.name = a.name.c_str ();
      b.workspace = a.workspace;
      argp.push_back (a.data);
    }
  uint8_t *tmap;
  size_t tlen;
  uint8_t *t = GuardedAlloc (tiling.size () * sizeof tiling[0], &tmap, &tlen);
  std::memcpy (t, tiling.data (), tiling.size () * sizeof tiling[0]);
  GmBuffer &tb = g.gm[g.n_gm++];
  tb.data = t;
  tb.bytes = tiling.size () * sizeof tiling[0];
  tb.name = "tiling";
  argp.push_back (t);

  std::vector<int> order;
  for (int b = 0; b < blocks; b++)
    order.push_back (b);
  PrepareOutputs ();
  bool complete = true;
  if (sync_config.concurrent)
    complete = RunConcurrent (blocks, argp.data ());
  else
    RunBlocks (order, argp.data (), true);
  Stats ordered = g.stats;
  for (Arg &a : args)
    if (a.output)
      {
        GmBuffer *gb = nullptr;
        for (int i = 0; i < g.n_gm; i++)
          if (g.gm[i].data == a.data)
            gb = &g.gm[i];
        uint64_t missing = 0, first = 0;
        for (uint64_t k = 0; gb && k < a.bytes; k++)
          if (gb->owner[k] == 0 && missing++ == 0)
            first = k;
        if (missing > 0 && complete)
          Diag ("FW-TWIN-OUTPUT-UNWRITTEN", "-", 0, "%llu of %llu bytes of %s are never written (first at byte %llu)",
                (unsigned long long) missing, (unsigned long long) a.bytes, a.name.c_str (), (unsigned long long) first);
      }
  /* Blocks run in any order on the chip: the outputs must not depend on it (a scope's blocks ran at once). */
  if (blocks > 1 && !sync_config.concurrent)
    {
      std::vector<std::vector<uint8_t>> saved;
      for (Arg &a : args)
        if (a.output)
          saved.emplace_back (a.data, a.data + a.bytes);
      std::vector<int> shuffled = order;
      unsigned s = seed * 2654435761u + 1;
      for (int i = blocks - 1; i > 0; i--)
        {
          s = s * 1103515245u + 12345u;
          int j = static_cast<int> ((s >> 8) % static_cast<unsigned> (i + 1));
          std::swap (shuffled[i], shuffled[j]);
        }
      if (shuffled == order)
        std::reverse (shuffled.begin (), shuffled.end ());
      PrepareOutputs ();
      RunBlocks (shuffled, argp.data (), false);
      size_t k = 0;
      for (Arg &a : args)
        if (a.output)
          {
            const std::vector<uint8_t> &before = saved[k++];
            for (uint64_t i = 0; i < a.bytes; i++)
              if (before[i] != a.data[i])
                {
                  Diag ("FW-TWIN-BLOCK-ORDER", "-", 0,
                        "%s differs at byte %llu when the blocks run in another order", a.name.c_str (),
                        (unsigned long long) i);
                  break;
                }
            std::memcpy (a.data, before.data (), a.bytes);
          }
    }
  g.stats = ordered;
  for (Arg &a : args)
    if (a.output)
      {
        FILE *f = std::fopen (a.path.c_str (), "wb");
        if (f == nullptr || std::fwrite (a.data, 1, a.bytes, f) != a.bytes)
          {
            std::fprintf (stderr, "twin: cannot write %s\n", a.path.c_str ());
            return 2;
          }
        std::fclose (f);
      }
  WriteDiags ();
  return 0;
}
