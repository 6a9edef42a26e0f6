/* The Ascend C twin's own contract (data/ascend/twin, run by core/codegen/fw-ascend-twin.c), on hand-written
 * kernels (the .cpp files of tests/twin): each rule it enforces fails a kernel written to break it, with the
 * exact diagnostic or the wrong numbers it must produce; correct kernels pass with their counters; the
 * ReduceSum page's own example computes the page's result; Cast's round modes, half arithmetic, the Matmul
 * API and the cube tilings behave as documented. Generated kernels on the twin are test-ascend-twin.c.
 * Skipped without a C++ compiler. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/ascend/fw-ascend-cube-tiling.h"
#include "codegen/ascend/fw-ascend.h"
#include "codegen/fw-ascend-twin.h"
#include "exec/fw-exec.h"
#include "fw-error.h"
#include "fw-test-twin.h"

static FwTestTwin shared;

static FwAscendTwin *
get_twin (void)
{
  return fw_test_twin_get (&shared);
}

/* A fixture's text with its local includes (tests/twin) pasted in, #line keeping files and lines. */
static void
append_fixture (GString *s, const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "twin", name, NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  g_string_append_printf (s, "#line 1 \"%s\"\n", name);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char inc[128];
      if (sscanf (lines[i], "#include \"%127[^\"]\"", inc) == 1 && strcmp (inc, "kernel_operator.h") != 0 &&
          !g_str_has_prefix (inc, "lib/"))
        {
          append_fixture (s, inc);
          g_string_append_printf (s, "#line %u \"%s\"\n", i + 2, name);
          continue;
        }
      g_string_append (s, lines[i]);
      g_string_append_c (s, '\n');
    }
}

/* The run's diagnostics in the test log, each after what. */
static void
log_diagnostics (FwTwinRun *run, const char *what)
{
  for (guint d = 0; d < fw_twin_run_get_n_diagnostics (run); d++)
    {
      const FwTwinDiagnostic *e = fw_twin_run_get_diagnostic (run, d);
      g_test_message ("%s: %s %s:%d: %s", what, e->code, e->file, e->line, e->message);
    }
}

/* Runs tests/twin/NAME (after `defines`) on x = 0, 1, 2, ... of n floats over `blocks` blocks of tiles
 * of `tile` elements; *y receives the output. */
static FwTwinRun *
run_fixture (const char *name, const char *defines, gint64 n, gint64 tile, guint blocks, FwDType dtype, FwArray **y)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (defines ? defines : "");
  g_autoptr(FwArray) x = fw_array_new (dtype, 1, &n, &error);
  gint64 tiles = (n + tile - 1) / tile;
  FwTwinKernel k = { "fixture", name, NULL, NULL, NULL,
                     { (guint64) n, (guint64) tile, (guint64) tiles, 0, 0, blocks, (guint64) ((tiles + blocks - 1) / blocks) },
                     blocks };
  FwTwinRun *run;

  append_fixture (text, name);
  k.kernel_source = text->str;
  for (gint64 i = 0; i < n; i++)
    fw_array_set_double (x, i, (double) i);
  *y = fw_array_new0 (dtype, 1, &n, &error);
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, &x, 1, y, 1, &error);
  g_assert_no_error (error);
  log_diagnostics (run, name);
  return run;
}

/* y = 2x everywhere. */
static gboolean
doubled (const FwArray *y)
{
  for (gint64 i = 0; i < y->n_elements; i++)
    if (fw_array_get_double (y, i) != 2.0 * (double) i)
      return FALSE;
  return TRUE;
}

typedef struct
{
  const char *file;
  const char *defines;
  const char *code;     /* the diagnostic it must produce, or NULL: only the numbers are wrong */
  gint        line;     /* its line in the fixture, or 0 not checked */
  gint64      n, tile;
  guint       blocks;
} Broken;

static const Broken broken[] = {
  { "unaligned_copy.cpp", NULL, "FW-TWIN-UNALIGNED", 16, 64, 64, 1 },
  { "ub_capacity.cpp", NULL, "FW-TWIN-UB-CAPACITY", 13, 64, 64, 1 },
  { "missing_wait.cpp", NULL, "FW-TWIN-UNSYNCED", 24, 64, 64, 1 },
  { "read_freed.cpp", NULL, "FW-TWIN-FREED", 21, 64, 64, 1 },
  { "double_free.cpp", NULL, "FW-TWIN-DOUBLE-FREE", 26, 64, 64, 1 },
  { "leak.cpp", NULL, "FW-TWIN-LEAK", 13, 64, 64, 1 },
  { "gm_race.cpp", NULL, "FW-TWIN-GM-RACE", 0, 64, 64, 4 },
  { "wrong_block_offset.cpp", NULL, "FW-TWIN-GM-RACE", 0, 1000, 64, 4 },
  { "skip_tail.cpp", NULL, "FW-TWIN-OUTPUT-UNWRITTEN", 0, 1000, 64, 4 },
  { "events.cpp", NULL, "FW-TWIN-EVENT-DUP", 11, 64, 64, 1 },
  { "events.cpp", NULL, "FW-TWIN-EVENT-UNPAIRED", 13, 64, 64, 1 },
  { "bounds.cpp", "#define BROKEN 1\n", "FW-TWIN-GM-BOUNDS", 0, 64, 64, 1 },
  { "bounds.cpp", "#define BROKEN 2\n", "FW-TWIN-UB-BOUNDS", 0, 64, 64, 1 },
  { "bounds.cpp", "#define BROKEN 3\n", "FW-TWIN-QUEUE-EMPTY", 0, 64, 64, 1 },
  { "bounds.cpp", "#define BROKEN 4\n", "FW-TWIN-MASK-COUNT", 0, 64, 64, 1 },
  { "block_order.cpp", NULL, "FW-TWIN-BLOCK-ORDER", 0, 256, 64, 4 },
  { "rules.cpp", "#define BROKEN 1\n", "FW-TWIN-BUFFER-COUNT", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 2\n", "FW-TWIN-QUE-LIMIT", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 3\n", "FW-TWIN-QUEUE-EXHAUSTED", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 4\n", "FW-TWIN-QUEUE-DEPTH", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 5\n", "FW-TWIN-STATE", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 6\n", "FW-TWIN-PAD-PARAMS", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 7\n", "FW-TWIN-REDUCE-TMP", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 8\n", "FW-TWIN-SELECT-MODE", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 9\n", "FW-TWIN-GM-INPUT-WRITE", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 10\n", "FW-TWIN-GM-GUARD", 0, 64, 64, 1 },
  { "copy_rounds_down.cpp", NULL, NULL, 0, 16, 16, 1 },
  { "repeat_forms.cpp", "#define BROKEN 1\n", "FW-TWIN-REPEAT", 34, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 2\n", "FW-TWIN-MASK", 44, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 3\n", "FW-TWIN-UB-BOUNDS", 34, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 4\n", "FW-TWIN-STRIDE", 44, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 5\n", "FW-TWIN-STRIDE", 37, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 6\n", "FW-TWIN-MASK", 41, 64, 64, 1 },
  { "gather.cpp", "#define BROKEN 1\n", "FW-TWIN-GATHER", 30, 64, 64, 1 },
  { "gather.cpp", "#define BROKEN 2\n", "FW-TWIN-GATHER", 30, 64, 64, 1 },
  { "gather.cpp", "#define BROKEN 3\n", "FW-TWIN-UB-BOUNDS", 30, 64, 64, 1 },
  { "cast_modes.cpp", "#define BROKEN 1\n", "FW-TWIN-CAST-MODE", 42, 64, 64, 1 },
  { "cast_modes.cpp", "#define BROKEN 2\n", "FW-TWIN-CAST-MODE", 45, 64, 64, 1 },
  { "cast_modes.cpp", "#define BROKEN 3\n", "FW-TWIN-CAST-MODE", 49, 64, 64, 1 },
};

/* Each broken kernel gives its diagnostic at its line, and none is wrong silently: with no diagnostic to
 * give (a DataCopy relying on a length that is not a 32-byte multiple), y is not 2x. */
static void
test_broken (gconstpointer data)
{
  const Broken *b = data;
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;
  const FwTwinDiagnostic *d;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_fixture (b->file, b->defines, b->n, b->tile, b->blocks, FW_DTYPE_FLOAT, &y);
  if (b->code == NULL)
    {
      g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
      g_assert_false (doubled (y));
      g_assert_cmpfloat (fw_array_get_double (y, 7), ==, 14.0);
      g_assert_cmpfloat (fw_array_get_double (y, 8), !=, 16.0);
      return;
    }
  d = fw_twin_run_find (run, b->code);
  g_assert_nonnull (d);
  if (b->line > 0)
    {
      g_assert_cmpstr (d->file, ==, b->file);
      g_assert_cmpint (d->line, ==, b->line);
    }
}

/* The correct kernels run clean and compute y = 2x, over one block and several, a partial last tile
 * included; the event pair that missing_wait.cpp lacks makes it correct. */
static void
test_correct (void)
{
  static const struct { const char *file; gint64 n, tile; guint blocks; } ok[] = {
    { "good.cpp", 64, 64, 1 }, { "good.cpp", 1000, 64, 4 }, { "good.cpp", 1000, 96, 3 }, { "with_wait.cpp", 64, 64, 1 },
    { "rules.cpp", 64, 64, 1 },
  };

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autoptr(FwArray) y = NULL;
      g_autoptr(FwTwinRun) run = run_fixture (ok[i].file, "#define BROKEN 0\n", ok[i].n, ok[i].tile, ok[i].blocks,
                                              FW_DTYPE_FLOAT, &y);

      g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
      g_assert_true (doubled (y));
      g_assert_cmpuint (fw_twin_run_get_counts (run)->mte2_bytes, ==, (guint64) ok[i].n * 4);
      g_assert_cmpuint (fw_twin_run_get_counts (run)->mte3_bytes, ==, (guint64) ok[i].n * 4);
    }
}

/* What each block moved and issued, exactly: good.cpp over 1000 floats in tiles of 64 on 4 blocks gives
 * blocks 0-2 256 elements (4 tiles) and block 3 232 (3 tiles and one of 40); each tile is one DataCopy in,
 * one Muls, one DataCopy out. */
static void
test_counters (void)
{
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;
  const GArray *blocks;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_fixture ("good.cpp", "#define BROKEN 0\n", 1000, 64, 4, FW_DTYPE_FLOAT, &y);
  blocks = fw_twin_run_get_blocks (run);
  g_assert_cmpuint (blocks->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      const FwTwinBlockCounts *b = &g_array_index (blocks, FwTwinBlockCounts, i);
      guint64 elements = i < 3 ? 256 : 232;
      const FwTwinVectorKind *k;

      g_assert_cmpuint (b->mte2_bytes, ==, elements * 4);
      g_assert_cmpuint (b->mte3_bytes, ==, elements * 4);
      g_assert_cmpuint (b->mte2_copies, ==, 4);
      g_assert_cmpuint (b->mte3_copies, ==, 4);
      g_assert_cmpuint (b->mte2_max_copy, ==, 256);
      g_assert_cmpuint (b->cube_macs, ==, 0);
      g_assert_cmpuint (b->kinds->len, ==, 1);
      k = &g_array_index (b->kinds, FwTwinVectorKind, 0);
      g_assert_cmpstr (k->name, ==, "Muls");
      g_assert_cmpuint (k->dst_size, ==, 4);
      g_assert_cmpuint (k->src_size, ==, 4);
      g_assert_cmpuint (k->calls, ==, 4);
      g_assert_cmpuint (k->elements, ==, elements);
      /* One 256-byte repeat per tile of 64 floats, and one for the tail's 40. */
      g_assert_cmpuint (k->repeats, ==, 4);
    }
}

/* tests/twin/repeat_forms.cpp: 8 rows of 7 floats (x = 0 ... 63, a row every 8) with the high-dimensional
 * slicing forms: row r's sum is 56r + 21 and its largest 8r + 6, so y = x - 48r - 15 on the 7 lanes of each row
 * and x on the eighth, which every mask leaves alone. Each instruction counts as one call of its repeats. */
static void
test_repeat_forms (void)
{
  static const struct { const char *name; guint64 repeats; } kinds[] = {
    { "Muls", 1 }, { "WholeReduceSum", 8 }, { "WholeReduceMax", 8 }, { "Sub", 1 }, { "Brcb", 1 }, { "Add", 8 },
  };
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;
  const FwTwinBlockCounts *b;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_fixture ("repeat_forms.cpp", "#define BROKEN 0\n", 64, 64, 1, FW_DTYPE_FLOAT, &y);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (gint64 i = 0; i < 64; i++)
    g_assert_cmpfloat (fw_array_get_double (y, i), ==, i % 8 == 7 ? (double) i : (double) (i - 48 * (i / 8) - 15));
  b = &g_array_index (fw_twin_run_get_blocks (run), FwTwinBlockCounts, 0);
  g_assert_cmpuint (b->kinds->len, ==, G_N_ELEMENTS (kinds));
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      const FwTwinVectorKind *k = &g_array_index (b->kinds, FwTwinVectorKind, i);
      g_assert_cmpstr (k->name, ==, kinds[i].name);
      g_assert_cmpuint (k->calls, ==, 1);
      g_assert_cmpuint (k->repeats, ==, kinds[i].repeats);
      g_assert_cmpuint (k->elements, ==, kinds[i].repeats * 64);
    }
  g_assert_cmpuint (fw_twin_run_get_counts (run)->vector_instructions, ==, 6);
  g_assert_cmpuint (fw_twin_run_get_counts (run)->vector_repeats, ==, 27);
}

/* tests/twin/gather.cpp: y[i] = x[(63 - i) / 2 + 8] from byte offsets and a base of 32 bytes, one vector
 * instruction. */
static void
test_gather (void)
{
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_fixture ("gather.cpp", "#define BROKEN 0\n", 64, 64, 1, FW_DTYPE_FLOAT, &y);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (gint64 i = 0; i < 64; i++)
    g_assert_cmpfloat (fw_array_get_double (y, i), ==, (double) ((63 - i) / 2 + 8));
  g_assert_cmpuint (fw_twin_run_get_counts (run)->vector_instructions, ==, 1);
}

/* ReduceSum.md's example: [60000, 60000, -30000, 100] in half sums by a binary tree whose partial sums
 * saturate at 65504: 65504 + (-29900) = 35604 on the page, in exact arithmetic. The twin rounds every partial
 * sum to binary16 (-29900 is -29904 there, 65504 - 29904 = 35600, a tie that rounds to even: 35584), one
 * binary16 step (32) from the page's figure; a sum without saturation would be inf. */
static void
test_reduce_sum_example (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  gint64 n_in = 128, n_out = 16;
  g_autoptr(FwArray) x = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_in, &error);
  g_autoptr(FwArray) y = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_out, &error);
  FwTwinKernel k = { "fixture", "reduce_sum_example.cpp", NULL, NULL, NULL, { 128, 128, 1, 0, 0, 1, 1 }, 1 };
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  append_fixture (text, "reduce_sum_example.cpp");
  k.kernel_source = text->str;
  fw_array_set_double (x, 0, 60000);
  fw_array_set_double (x, 1, 60000);
  fw_array_set_double (x, 2, -30000);
  fw_array_set_double (x, 3, 100);
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, &x, 1, &y, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  g_assert_cmpfloat (fabs (fw_array_get_double (y, 0) - 35604.0), <=, 32.0);
  g_assert_cmpfloat (fw_array_get_double (y, 0), ==, 35584.0);
}

/* Runs tests/twin/NAME (after `defines`) on x, one block, one tile; *y (allocated by the caller) receives
 * the output. */
static FwTwinRun *
run_fixture_on (const char *name, const char *defines, FwArray *x, FwArray *y)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (defines);
  FwTwinKernel k = { "fixture", name, NULL, NULL, NULL, { (guint64) x->n_elements, (guint64) x->n_elements, 1, 0, 0, 1, 1 }, 1 };
  FwTwinRun *run;

  append_fixture (text, name);
  k.kernel_source = text->str;
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, &x, 1, &y, 1, &error);
  g_assert_no_error (error);
  log_diagnostics (run, name);
  return run;
}

/* Cast.md's float -> half round modes (tests/twin/cast_modes.cpp): the page's example 0.5 + 2^-12 (a tie),
 * its negative, a tie between an odd and an even neighbour (0.5 + 3 2^-12), a value a quarter step past 0.5,
 * an exact one and one past the half range (saturating at 65504). A twin that rounded every mode to nearest
 * even, or ignored the sign in FLOOR/CEIL, fails here. */
static void
test_cast_modes (void)
{
  static const double u = 1.0 / 2048.0;  /* 2^-11: one binary16 step at 0.5 */
  static const struct { double x; double y[7]; } rows[] = {
    /*            NONE       RINT       FLOOR      CEIL       ROUND      TRUNC      ODD */
    { 0.5 + u / 2, { 0.5, 0.5, 0.5, 0.5 + u, 0.5 + u, 0.5, 0.5 + u } },
    { -(0.5 + u / 2), { -0.5, -0.5, -0.5 - u, -0.5, -0.5 - u, -0.5, -0.5 - u } },
    { 0.5 + 1.5 * u, { 0.5 + 2 * u, 0.5 + 2 * u, 0.5 + u, 0.5 + 2 * u, 0.5 + 2 * u, 0.5 + u, 0.5 + u } },
    { 0.5 + u / 4, { 0.5, 0.5, 0.5, 0.5 + u, 0.5, 0.5, 0.5 + u } },
    { 1.0, { 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0 } },
    { 1e5, { 65504, 65504, 65504, 65504, 65504, 65504, 65504 } },
  };
  gint64 n_in = 16, n_out = 128;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwArray) x = fw_array_new0 (FW_DTYPE_FLOAT, 1, &n_in, &error);
  g_autoptr(FwArray) y = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_out, &error);
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    fw_array_set_double (x, i, rows[i].x);
  run = run_fixture_on ("cast_modes.cpp", "#define BROKEN 0\n", x, y);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    for (guint m = 0; m < 7; m++)
      {
        g_test_message ("x %.9g mode %u: %.9g, expected %.9g", rows[i].x, m, fw_array_get_double (y, 16 * m + i),
                        rows[i].y[m]);
        g_assert_cmpfloat (fw_array_get_double (y, 16 * m + i), ==, rows[i].y[m]);
      }
}

/* Each instruction in its own type (tests/twin/half_round.cpp): 2048 + 1 in a half Adds is 2048 (the tie to
 * even), in a float Adds 2049, which CAST_CEIL takes to 2050. */
static void
test_half_round (void)
{
  gint64 n_in = 16, n_out = 32;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwArray) x = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_in, &error);
  g_autoptr(FwArray) y = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_out, &error);
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (gint64 i = 0; i < n_in; i++)
    fw_array_set_double (x, i, 2048.0);
  run = run_fixture_on ("half_round.cpp", "", x, y);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (gint64 i = 0; i < n_in; i++)
    {
      g_assert_cmpfloat (fw_array_get_double (y, i), ==, 2048.0);
      g_assert_cmpfloat (fw_array_get_double (y, 16 + i), ==, 2050.0);
    }
}

/* A float16 mean over 4096 values of 20 (tests/twin/half_mean.cpp): accumulated in float32 it is 20; summed in
 * half, as a half ReduceSum does, the sum saturates at 65504 and the mean is 15.99. */
static void
test_half_mean (void)
{
  gint64 n_in = 4096, n_out = 16;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwArray) x = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_in, &error);

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (gint64 i = 0; i < n_in; i++)
    fw_array_set_double (x, i, 20.0);
  for (int variant = 0; variant < 2; variant++)
    {
      g_autofree char *defines = g_strdup_printf ("#define BROKEN %d\n", variant);
      g_autoptr(FwArray) y = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_out, &error);
      g_autoptr(FwTwinRun) run = run_fixture_on ("half_mean.cpp", defines, x, y);

      g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
      g_test_message ("variant %d: mean %.9g", variant, fw_array_get_double (y, 0));
      if (variant == 0)
        g_assert_cmpfloat (fw_array_get_double (y, 0), ==, 20.0);
      else
        g_assert_cmpfloat (fabs (fw_array_get_double (y, 0) - 20.0), >, 1.0);
    }
}

/* tests/twin/matmul.cpp (after `#define BROKEN variant`) on seeded A [48, 40], B [40, 32], bias [32] over two
 * blocks; *c receives C, *ref 2 (A B + bias) in double. */
static FwTwinRun *
run_matmul (int variant, FwArray **c, FwArray **ref)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *defines = g_strdup_printf ("#define BROKEN %d\n", variant);
  g_autoptr(GString) text = g_string_new (defines);
  gint64 da[2] = { 48, 40 }, db[2] = { 40, 32 }, dbias = 32, dc[2] = { 48, 32 };
  g_autoptr(FwArray) a = fw_array_new (FW_DTYPE_FLOAT, 2, da, &error);
  g_autoptr(FwArray) b = fw_array_new (FW_DTYPE_FLOAT, 2, db, &error);
  g_autoptr(FwArray) bias = fw_array_new (FW_DTYPE_FLOAT, 1, &dbias, &error);
  FwArray *in[3] = { a, b, bias };
  FwTwinKernel k = { "fixture", "matmul.cpp", NULL, NULL, NULL, { 0 }, 2 };
  FwTwinRun *run;

  append_fixture (text, "matmul.cpp");
  k.kernel_source = text->str;
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, (double) ((i * 37) % 17) / 8.0 - 1.0);
  for (gint64 i = 0; i < b->n_elements; i++)
    fw_array_set_double (b, i, (double) ((i * 11) % 13) / 6.0 - 1.0);
  for (gint64 i = 0; i < bias->n_elements; i++)
    fw_array_set_double (bias, i, (double) i / 16.0);
  *c = fw_array_new0 (FW_DTYPE_FLOAT, 2, dc, &error);
  *ref = fw_array_new0 (FW_DTYPE_FLOAT, 2, dc, &error);
  for (gint64 i = 0; i < 48; i++)
    for (gint64 j = 0; j < 32; j++)
      {
        double s = fw_array_get_double (bias, j);
        for (gint64 q = 0; q < 40; q++)
          s += fw_array_get_double (a, i * 40 + q) * fw_array_get_double (b, q * 32 + j);
        fw_array_set_double (*ref, i * 32 + j, 2.0 * s);
      }
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, in, 3, c, 1, &error);
  g_assert_no_error (error);
  for (guint d = 0; d < fw_twin_run_get_n_diagnostics (run); d++)
    {
      const FwTwinDiagnostic *e = fw_twin_run_get_diagnostic (run, d);
      g_test_message ("matmul %d: %s %s:%d: %s", variant, e->code, e->file, e->line, e->message);
    }
  return run;
}

/* The Matmul API's contract: the correct mixed kernel runs clean, computes C block by block in GetTensorC's
 * order (M first) with float accumulation, and moves A, B and the bias from GM once per block that needs
 * them (L1 keeps B's columns while M advances) and C out once; each broken variant gives its code. */
static void
test_matmul (void)
{
  static const struct { int variant; const char *code; gint line; } broken_mm[] = {
    { 1, "FW-TWIN-MATMUL-TILING", 36 }, { 2, "FW-TWIN-L0-CAPACITY", 36 }, { 3, "FW-TWIN-L1-CAPACITY", 36 },
    { 4, "FW-TWIN-MATMUL-ORDER", 48 }, { 5, "FW-TWIN-MATMUL-C-SIZE", 61 }, { 6, "FW-TWIN-MATMUL-ORDER", 56 },
    { 7, "FW-TWIN-MATMUL-ORDER", 36 }, { 8, "FW-TWIN-MATMUL-TILING", 36 }, { 9, "FW-TWIN-MATMUL-TILING", 36 },
  };
  g_autoptr(FwArray) c = NULL;
  g_autoptr(FwArray) ref = NULL;
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_matmul (0, &c, &ref);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (gint64 i = 0; i < c->n_elements; i++)
    g_assert_cmpfloat (fabs (fw_array_get_double (c, i) - fw_array_get_double (ref, i)), <=,
                       1e-5 + 1e-4 * fabs (fw_array_get_double (ref, i)));
  /* Per core: A's 24 rows twice (M advances first, so A's block changes at every Iterate), B's columns and
   * the bias once per column block (they stay in L1 while M advances); C out once. */
  g_assert_cmpuint (fw_twin_run_get_counts (run)->mte2_bytes, ==, 2 * (2 * 24 * 40 * 4 + 32 * (40 + 1) * 4));
  g_assert_cmpuint (fw_twin_run_get_counts (run)->mte3_bytes, ==, 48 * 32 * 4);
  /* Per core, the cube's share: 24 x 32 x 40 multiply-adds, and the GM bytes above as the cube's own. */
  for (guint i = 0; i < 2; i++)
    {
      const FwTwinBlockCounts *b = &g_array_index (fw_twin_run_get_blocks (run), FwTwinBlockCounts, i);
      g_assert_cmpuint (b->cube_macs, ==, 24 * 32 * 40);
      g_assert_cmpuint (b->cube_bytes, ==, 2 * 24 * 40 * 4 + 32 * (40 + 1) * 4);
      g_assert_cmpuint (b->cube_bytes, ==, b->mte2_bytes);
      g_assert_cmpuint (b->cube_size, ==, 4);
    }
  for (guint i = 0; i < G_N_ELEMENTS (broken_mm); i++)
    {
      g_autoptr(FwArray) c2 = NULL;
      g_autoptr(FwArray) ref2 = NULL;
      g_autoptr(FwTwinRun) r = run_matmul (broken_mm[i].variant, &c2, &ref2);
      const FwTwinDiagnostic *d = fw_twin_run_find (r, broken_mm[i].code);

      g_assert_nonnull (d);
      g_assert_cmpstr (d->file, ==, "matmul.cpp");
      g_assert_cmpint (d->line, ==, broken_mm[i].line);
    }
}

/* tests/twin/matmul_tiled.cpp under the tiling t on seeded A, B and bias of the shape; *c receives C. */
static FwTwinRun *
run_tiled (const FwCubeShape *shape, gboolean trans_b, const FwCubeTiling *t, FwArray **c, FwArray **a, FwArray **b,
           FwArray **bias)
{
  g_autoptr(GError) error = NULL;
  gint64 da[2] = { shape->m, shape->k }, db[2] = { trans_b ? shape->n : shape->k, trans_b ? shape->k : shape->n };
  gint64 dc[2] = { shape->m, shape->n }, dbias = shape->n;
  g_autoptr(GString) text = g_string_new (NULL);
  FwTwinKernel k = { "fixture", "matmul_tiled.cpp", NULL, NULL, NULL, { 0 }, 1 };
  FwArray *in[3];
  FwTwinRun *run;

  *a = fw_array_new (FW_DTYPE_FLOAT, 2, da, &error);
  *b = fw_array_new (FW_DTYPE_FLOAT, 2, db, &error);
  *bias = fw_array_new (FW_DTYPE_FLOAT, 1, &dbias, &error);
  *c = fw_array_new0 (FW_DTYPE_FLOAT, 2, dc, &error);
  in[0] = *a;
  in[1] = *b;
  in[2] = *bias;
  g_string_append_printf (text,
    "#define FW_TRANS_B %s\n#define FW_TILING t.usedCoreNum = %d; t.M = %d; t.N = %d; t.Ka = t.Kb = t.singleCoreK = %d; "
    "t.singleCoreM = %d; t.singleCoreN = %d; t.baseM = %d; t.baseN = %d; t.baseK = %d; t.depthA1 = %d; "
    "t.depthB1 = %d; t.stepM = %d; t.stepN = %d; t.stepKa = %d; t.stepKb = %d; t.isBias = %d; "
    "t.iterateOrder = %d; t.dbL0A = %d; t.dbL0B = %d; t.dbL0C = %d\n",
    trans_b ? "true" : "false", t->used_core_num, t->m, t->n, t->ka, t->single_core_m, t->single_core_n, t->base_m,
    t->base_n, t->base_k, t->depth_a1, t->depth_b1, t->step_m, t->step_n, t->step_ka, t->step_kb, t->is_bias,
    t->iterate_order, t->db_l0a, t->db_l0b, t->db_l0c);
  append_fixture (text, "matmul_tiled.cpp");
  k.kernel_source = text->str;
  k.blocks = (guint) t->used_core_num;
  for (gint64 e = 0; e < (*a)->n_elements; e++)
    fw_array_set_double (*a, e, (double) ((e * 37) % 17) / 8.0 - 1.0);
  for (gint64 e = 0; e < (*b)->n_elements; e++)
    fw_array_set_double (*b, e, (double) ((e * 11) % 13) / 6.0 - 1.0);
  for (gint64 e = 0; e < (*bias)->n_elements; e++)
    fw_array_set_double (*bias, e, (double) (e % 9) / 4.0 - 1.0);
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, in, 3, c, 1, &error);
  g_assert_no_error (error);
  for (guint d = 0; d < fw_twin_run_get_n_diagnostics (run); d++)
    g_test_message ("%s:%d: %s %s", fw_twin_run_get_diagnostic (run, d)->file, fw_twin_run_get_diagnostic (run, d)->line,
                    fw_twin_run_get_diagnostic (run, d)->code, fw_twin_run_get_diagnostic (run, d)->message);
  return run;
}

/* The host's cube tiling (fw_ascend_cube_tiling) for shapes with M, N and K tails, small M (N split across
 * cores too), a transposed B (Gemm's transB), the matrix sizes of the real models and a short wide product
 * whose A panel stays in L1 while N advances: tests/twin/matmul_tiled.cpp runs each on the twin clean (the
 * tiling passes REGIST_MATMUL_OBJ's checks against the profile's L1/L0), every element of Relu (A B + bias)
 * within the float32 tolerance of a double reference, C written to GM once and A, B and the bias read exactly
 * as fw_ascend_cube_traffic prices them. The same tiling with A's panel made too large for L1 is refused. */
static void
test_cube_tiling (void)
{
  static const struct { gint64 m, n, k; gboolean trans_b; } shapes[] = {
    { 50, 40, 24, FALSE }, { 200, 96, 72, TRUE }, { 16, 16, 8, FALSE }, { 128, 768, 768, FALSE },
    { 64, 1000, 512, TRUE }, { 394, 48, 100, FALSE }, { 197, 576, 768, TRUE },
  };

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autoptr(GError) error = NULL;
      FwCubeShape shape = { shapes[i].m, shapes[i].n, shapes[i].k, 4, 4, 4 };
      FwCubeTiling t;
      g_autoptr(FwArray) a = NULL;
      g_autoptr(FwArray) b = NULL;
      g_autoptr(FwArray) bias = NULL;
      g_autoptr(FwArray) c = NULL;
      g_autoptr(FwTwinRun) run = NULL;

      g_assert_true (fw_ascend_cube_tiling (&shape, shared.profile, 4, shared.profile->ub_bytes / 4, &t, &error));
      g_assert_no_error (error);
      g_test_message ("%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ": cores %d, single %dx%d, base %dx%dx%d, "
                      "depth %d/%d, step %d/%d, order %d, %.0f bytes",
                      shape.m, shape.n, shape.k, t.used_core_num, t.single_core_m, t.single_core_n, t.base_m, t.base_n,
                      t.base_k, t.depth_a1, t.depth_b1, t.step_m, t.step_n, t.iterate_order,
                      fw_ascend_cube_traffic (&t, &shape));
      g_assert_cmpint (t.used_core_num, <=, (gint) shared.profile->cube_cores);
      run = run_tiled (&shape, shapes[i].trans_b, &t, &c, &a, &b, &bias);
      g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
      for (gint64 r = 0; r < shape.m; r++)
        for (gint64 q = 0; q < shape.n; q++)
          {
            double want = fw_array_get_double (bias, q);
            for (gint64 e = 0; e < shape.k; e++)
              want += fw_array_get_double (a, r * shape.k + e) *
                      fw_array_get_double (b, shapes[i].trans_b ? q * shape.k + e : e * shape.n + q);
            want = MAX (want, 0.0);
            g_assert_cmpfloat (fabs (fw_array_get_double (c, r * shape.n + q) - want), <=, 1e-5 + 1e-4 * fabs (want) + 1e-6 * shape.k);
          }
      g_assert_cmpuint (fw_twin_run_get_counts (run)->mte3_bytes, ==, (guint64) (shape.m * shape.n * 4));
      g_assert_cmpfloat (fw_twin_run_get_counts (run)->mte2_bytes, ==, fw_ascend_cube_traffic (&t, &shape));
      if (shapes[i].m == 197)
        {
          guint64 l1, l0a, l0b, l0c;
          gint64 m_shares = (shape.m + t.single_core_m - 1) / t.single_core_m;
          gint64 n_shares = (shape.n + t.single_core_n - 1) / t.single_core_n;
          g_autoptr(FwArray) c2 = NULL;
          g_autoptr(FwArray) a2 = NULL;
          g_autoptr(FwArray) b2 = NULL;
          g_autoptr(FwArray) bias2 = NULL;
          g_autoptr(FwTwinRun) over = NULL;
          const FwTwinDiagnostic *d;

          /* No core reads its rows of A or its columns of B twice: each is read once per share of the other. */
          g_assert_cmpfloat (fw_ascend_cube_traffic (&t, &shape), ==,
                             (gdouble) n_shares * shape.m * shape.k * 4 + (gdouble) m_shares * shape.n * (shape.k + 1) * 4);
          /* The A panel grown past L1: the twin refuses the tiling at REGIST_MATMUL_OBJ. */
          do
            {
              t.step_m *= 2;
              t.depth_a1 = t.step_m * t.step_ka;
              fw_ascend_cube_tiling_usage (&t, &shape, &l1, &l0a, &l0b, &l0c);
            }
          while (l1 <= shared.profile->l1_bytes);
          over = run_tiled (&shape, shapes[i].trans_b, &t, &c2, &a2, &b2, &bias2);
          d = fw_twin_run_find (over, "FW-TWIN-L1-CAPACITY");
          g_assert_nonnull (d);
          g_assert_cmpstr (d->file, ==, "matmul_tiled.cpp");
        }
    }
}

static void
shared_free (void)
{
  fw_test_twin_clear (&shared);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ascend-twin/correct", test_correct);
  g_test_add_func ("/core/ascend-twin/counters", test_counters);
  g_test_add_func ("/core/ascend-twin/reduce-sum-example", test_reduce_sum_example);
  g_test_add_func ("/core/ascend-twin/cast-modes", test_cast_modes);
  g_test_add_func ("/core/ascend-twin/half-mean", test_half_mean);
  g_test_add_func ("/core/ascend-twin/half-round", test_half_round);
  g_test_add_func ("/core/ascend-twin/repeat-forms", test_repeat_forms);
  g_test_add_func ("/core/ascend-twin/gather", test_gather);
  g_test_add_func ("/core/ascend-twin/matmul", test_matmul);
  g_test_add_func ("/core/ascend-twin/cube-tiling", test_cube_tiling);
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autofree char *path = g_strdup_printf ("/core/ascend-twin/broken/%.*s%s%s", (int) strcspn (broken[i].file, "."),
                                               broken[i].file, broken[i].defines ? "-" : "",
                                               broken[i].defines ? broken[i].defines + strlen ("#define BROKEN ") : "");
      g_strchomp (path);
      if (i > 0 && strcmp (broken[i].file, broken[i - 1].file) == 0 && broken[i].defines == NULL)
        {
          g_free (path);
          path = g_strdup_printf ("/core/ascend-twin/broken/%.*s-%s", (int) strcspn (broken[i].file, "."),
                                  broken[i].file, broken[i].code);
        }
      g_test_add_data_func (path, &broken[i], test_broken);
    }
  status = g_test_run ();
  shared_free ();
  return status;
}
