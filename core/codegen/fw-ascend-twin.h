/* fw-ascend-twin.h: runs a generated Ascend C kernel on the host, against our twin of the Ascend C runtime
 * (data/ascend/twin, compiled into libfwcore as resources): the kernel .cpp compiles unchanged with the host
 * C++ compiler, runs block after block on the boundary inputs, and comes back with its outputs and the
 * diagnostics of the rules the twin enforces (docs/ascend-twin.md). Compiled objects live in the host
 * toolchain's kernel cache.
 *
 * The kernel runs in a child process, so a kernel that crashes or hangs cannot take the caller with it. */
#pragma once

#include <glib.h>

#include "codegen/ascend/fw-ascend.h"
#include "codegen/ascend/fw-ascend-superkernel.h"
#include "codegen/host/fw-superkernel.h"
#include "exec/fw-array.h"
#include "exec/fw-fused.h"
#include "hw/fw-profile.h"

G_BEGIN_DECLS

typedef struct _FwAscendTwin FwAscendTwin;
typedef struct _FwTwinRun    FwTwinRun;

/* One broken rule: a stable code ("FW-TWIN-UNALIGNED"), the kernel file and line (0 when the rule is about
 * the whole run), how often it happened and the first occurrence's message. */
typedef struct
{
  char   *code;
  char   *file;
  gint    line;
  gint64  count;
  char   *message;
} FwTwinDiagnostic;

/* What the ordered run moved and issued, summed over blocks. */
typedef struct
{
  guint64 mte2_bytes;
  guint64 mte3_bytes;
  guint64 vector_repeats;
  guint64 vector_instructions;
  guint64 scalar_accesses;
} FwTwinCounts;

/* The vector instructions of one kind a block issued (name as the API spells it, "Cast" with both sizes). */
typedef struct
{
  char    *name;
  guint    dst_size;
  guint    src_size;
  guint64  calls;
  guint64  elements;
  guint64  repeats;
} FwTwinVectorKind;

/* What one block of the ordered run moved and issued: GM -> UB copies (MTE2: bytes, copies, the largest),
 * UB -> GM copies (MTE3), the Matmul API's cube work (multiply-adds, the A/B/bias bytes read from GM, which
 * mte2_bytes includes, and A's element size), scalar accesses, and the vector kinds. The time estimate's
 * input (fw-twin-time.h). */
typedef struct
{
  guint64  mte2_bytes;
  guint64  mte2_copies;
  guint64  mte2_max_copy;
  guint64  mte3_bytes;
  guint64  mte3_copies;
  guint64  cube_macs;
  guint64  cube_bytes;
  guint    cube_size;
  guint64  scalar;
  GArray  *kinds;  /* FwTwinVectorKind */
} FwTwinBlockCounts;

/* A kernel given as text, for hand-written kernels: entry is the extern "C" function, kernel_name the file
 * name diagnostics show, tiling_name/tiling_source a header the kernel includes (or NULL). The tiling struct
 * is the uint64 fields of the generated FwKNNNTiling, passed as the last argument: the first n_tiling of
 * tiling (0: the seven of a vector kernel; a mixed cube + vector kernel's carries its cube tiling too). */
#define FW_TWIN_TILING_MAX 40

typedef struct
{
  const char *entry;
  const char *kernel_name;
  const char *kernel_source;
  const char *tiling_name;
  const char *tiling_source;
  guint64     tiling[FW_TWIN_TILING_MAX];
  guint       blocks;
  guint       n_tiling;
  /* A SuperKernel scope (fw-ascend-superkernel.h): its blocks run at once, one thread each, with its barriers
   * between them, once (no second order). Its tiling is every sub-kernel's in turn: long_tiling. */
  gboolean        concurrent;
  const guint64  *long_tiling;      /* NULL: tiling[] */
  guint           n_long_tiling;
  guint           drop_barrier;     /* test builds: every block skips its K-th barrier (1-based) and stops at
                                       the next, the outputs incomplete: the diagnostics tell; 0 none */
  guint           sync_timeout_ms;  /* a barrier incomplete this long is a hang; 0: 20 s */
  /* The kernel's GM workspace (CANN's convention: the argument between the outputs and the tiling), in bytes;
   * 0: the kernel takes none. */
  guint64         workspace_bytes;
} FwTwinKernel;

/* Finds the C++ compiler and compiles the twin's runtime (once; cached). toolchain is borrowed. */
FwAscendTwin      *fw_ascend_twin_new           (FwHostToolchain     *toolchain,
                                                 GError             **error);
void               fw_ascend_twin_free          (FwAscendTwin        *twin);

/* Runs a generated kernel on inputs (in its kernel source's input order, dtypes and dims as generated);
 * outputs are allocated. FALSE only when it could not run (compile error, bad inputs); rule violations are
 * diagnostics of the run. */
FwTwinRun         *fw_ascend_twin_run           (FwAscendTwin        *twin,
                                                 FwAscendKernel      *kernel,
                                                 const FwProfile     *profile,
                                                 FwArray *const      *inputs,
                                                 GError             **error);
/* The same for a kernel given as text: arguments are inputs then outputs (filled in place), then the
 * tiling. */
FwTwinRun         *fw_ascend_twin_run_kernel    (FwAscendTwin        *twin,
                                                 const FwTwinKernel  *kernel,
                                                 const FwProfile     *profile,
                                                 FwArray *const      *inputs,
                                                 guint                n_inputs,
                                                 FwArray *const      *outputs,
                                                 guint                n_outputs,
                                                 GError             **error);

void               fw_twin_run_free             (FwTwinRun           *run);
guint              fw_twin_run_get_n_outputs    (FwTwinRun           *run);
FwArray           *fw_twin_run_get_output       (FwTwinRun           *run,
                                                 guint                index);
guint              fw_twin_run_get_n_diagnostics (FwTwinRun          *run);
const FwTwinDiagnostic *fw_twin_run_get_diagnostic (FwTwinRun        *run,
                                                 guint                index);
/* The first diagnostic with code, or NULL. */
const FwTwinDiagnostic *fw_twin_run_find        (FwTwinRun           *run,
                                                 const char          *code);
const FwTwinCounts *fw_twin_run_get_counts      (FwTwinRun           *run);
/* FwTwinBlockCounts per block of the ordered run, by block index. */
const GArray      *fw_twin_run_get_blocks       (FwTwinRun           *run);
/* Wall seconds the run spent building the kernel's executable (compile and link, or finding it in the
 * cache) and running it (inputs written, the child's both orders, outputs read back): for the bench. */
void               fw_twin_run_get_seconds      (FwTwinRun           *run,
                                                 gdouble             *build_s,
                                                 gdouble             *run_s);

/* A kernel checked on the twin against reference values (verification, report's targets.ascend twin): it
 * passes when it ran with no diagnostic, every output within tolerance and cosine similarity at least
 * FW_TWIN_MIN_COSINE (float32; 0.999 for 16-bit floats). Errors are worst over the outputs. */
#define FW_TWIN_MIN_COSINE 0.9999

typedef struct
{
  gboolean      ran;
  gboolean      pass;
  gdouble       max_abs;
  gdouble       max_rel;
  gdouble       cosine;       /* lowest over the outputs */
  GArray       *diagnostics;  /* FwTwinDiagnostic */
  FwTwinCounts  counts;
  gdouble       estimated_s;  /* the twin's time estimate (fw-twin-time.h); NAN when it did not run */
  gdouble       pipe_s[4];    /* of it, MTE2, vector, MTE3 and cube on the slowest core (start-ups included) */
  char         *error;        /* why it did not run, or NULL */
  /* Under the golden verification policy (a half model by default): the group's nodes widened to golden
     (fw_verify_golden_dtype) on the same inputs; the reference's outputs (unfused) and the twin's (fused)
     against them, worst over the outputs. The verdict is then the golden rule, as host verification's. */
  FwDType       golden;       /* FW_DTYPE_UNDEFINED: strict, judged against the reference alone */
  FwGoldenError unfused_golden;
  FwGoldenError fused_golden;
} FwTwinCheck;

/* Runs kernel on the twin with its inputs taken from values (FwValue* → FwArray*, constants from the model)
 * and compares its outputs with the arrays values holds for them; tolerance NULL: the dtype's. Never NULL:
 * what stops the run is the check's error. twin NULL: not run, with unavailable as the reason. */
FwTwinCheck       *fw_ascend_twin_check         (FwAscendTwin        *twin,
                                                 FwAscendKernel      *kernel,
                                                 const FwProfile     *profile,
                                                 GHashTable          *values,
                                                 const FwTolerance   *tolerance,
                                                 const char          *unavailable);
/* The same under the golden policy when golden is not FW_DTYPE_UNDEFINED: group (the kernel's candidate)
 * runs widened to golden on the kernel's inputs, and the twin passes when no diagnostic and, for each
 * output, the golden rule holds (fw_golden_error_pass). */
FwTwinCheck       *fw_ascend_twin_check_policy  (FwAscendTwin        *twin,
                                                 FwAscendKernel      *kernel,
                                                 const FwProfile     *profile,
                                                 GHashTable          *values,
                                                 const FwTolerance   *tolerance,
                                                 const char          *unavailable,
                                                 const FwCandidate   *group,
                                                 FwDType              golden);
/* A SuperKernel scope's source on the twin, its blocks at once (fw-ascend-scope-twin.c): its inputs and the
 * stand-ins' results from values, every value it writes compared with values' (a float16 one makes the bar
 * float16's). drop_barrier: 0, or K to run it as if its K-th barrier were missing (test builds). */
FwTwinCheck       *fw_ascend_twin_check_scope   (FwAscendTwin        *twin,
                                                 FwAscendScope       *scope,
                                                 const FwProfile     *profile,
                                                 GHashTable          *values,
                                                 const FwTolerance   *tolerance,
                                                 guint                drop_barrier,
                                                 const char          *unavailable);
/* A check that did not run, with message (may be NULL) as the reason. */
FwTwinCheck       *fw_twin_check_new_error      (const char          *message);
/* The verdict of a run against want (one reference array per output, in order), with its counts and time
 * estimate on profile. half: the kernel computes in float16 (its tolerance and cosine bar apply). product_abs:
 * added to the dtype's absolute tolerance when tolerance is NULL, for a mixed kernel whose product sums in
 * another order than the reference's (fw_ascend_kernel_product_tolerance; 0 otherwise). */
FwTwinCheck       *fw_twin_check_new_from_run   (FwTwinRun           *run,
                                                 FwArray *const      *want,
                                                 gboolean             half,
                                                 const FwTolerance   *tolerance,
                                                 gdouble              product_abs,
                                                 const FwProfile     *profile);
void               fw_twin_check_free           (FwTwinCheck         *check);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwTwinCheck, fw_twin_check_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwAscendTwin, fw_ascend_twin_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwTwinRun, fw_twin_run_free)

G_END_DECLS
