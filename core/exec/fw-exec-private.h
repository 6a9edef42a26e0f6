/* fw-exec-private.h: what the interpreter, the fused executor and measurement share. */
#pragma once

#include "fw-exec.h"
#include "fw-fused.h"

G_BEGIN_DECLS

/* The values of one graph being run; subgraphs see their enclosing frames' values. */
typedef struct _FwExecFrame FwExecFrame;

struct _FwExecFrame
{
  const FwGraph *graph;
  FwArray      **values;   /* by FwValue index */
  FwExecFrame   *parent;
};

struct _FwExecContext
{
  guint          n_threads;
  GCancellable  *cancellable;
  FwExecFrame   *frame;     /* innermost frame being run */
  FwDType        golden;    /* FW_DTYPE_UNDEFINED, or the golden mode's widest type (fw-golden.c) */
  /* While a fused program runs: FwGraph* → FwFusedProgram* of the control-flow bodies with fused kernels,
     else NULL (reference runs). */
  GHashTable    *bodies;
  /* The values the top-level run keeps (FwValue* → FwArray*), or NULL: a body's are kept from the last
     time it ran. */
  GHashTable    *keep;
  gboolean       unquantised; /* Q/DQ of float values pass them on (fw-unquantised.c) */
  /* While a fused program runs: FwNode* → FwNodeKernel* of the single ops that run on a host kernel instead
     of their reference kernel (fw_exec_frame_run_node), else NULL. */
  GHashTable    *node_kernels;
};

/* Exchanges ctx's bodies and keep with *bodies and *keep: a top-level run sets its own and, called again
 * with the same pointers, puts the caller's back. */
static inline void
fw_exec_context_swap_run (FwExecContext *ctx, GHashTable **bodies, GHashTable **keep)
{
  GHashTable *b = ctx->bodies, *k = ctx->keep;

  ctx->bodies = *bodies;
  ctx->keep = *keep;
  *bodies = b;
  *keep = k;
}

/* A body's fused program run by its If or Loop kernel in ctx's current frame (fw-fused.c). */
gboolean  fw_fused_program_run_body (FwFusedProgram *body,
                                     FwExecContext  *ctx,
                                     FwArray *const *inputs,
                                     guint           n_inputs,
                                     FwArray       **outputs,
                                     GError        **error);

/* fw-unquantised.c: TRUE when node, in the unquantised mode, passed its float input on as outputs[0]. */
gboolean  fw_exec_run_node_unquantised (const FwNode  *node,
                                        FwArray *const *inputs,
                                        FwArray      **outputs);

/* The array for value in frame: computed, constant (borrowed) or captured from an enclosing frame. A new
 * reference, or NULL with error when it is not available. */
FwArray  *fw_exec_frame_lookup (FwExecFrame   *frame,
                                const FwValue *value,
                                GError       **error);
/* Checks a kernel's outputs against what shape inference said (dtype, static dims): a mismatch is a bug in
 * a kernel or in inference, reported as FW_ERROR_INTERNAL naming the node. */
gboolean  fw_exec_check_outputs (const FwNode  *node,
                                 FwArray      **outputs,
                                 FwDType        golden,
                                 GError       **error);
/* fw-golden.c: node's kernel run on its inputs widened to the golden types, outputs widened after. */
gboolean  fw_exec_run_node_golden (FwExecContext *ctx,
                                   const FwNode  *node,
                                   FwKernelFunc   run,
                                   FwArray *const *inputs,
                                   FwArray      **outputs,
                                   GError       **error);
/* A kernel's boundary inputs from values (FwValue* → FwArray*, as a run with keep filled it); constants
 * are borrowed from the model. With seeded non-NULL, a value of a control-flow body that did not run (a
 * branch not taken, a loop of no iterations) is a seeded random array of its static shape instead, and
 * *seeded says whether any was. A NULL entry of kernel->inputs (a node kernel's omitted optional input) gives a
 * NULL array. */
gboolean  fw_verify_gather_inputs (const FwGroupKernel *kernel,
                                   GHashTable    *values,
                                   guint64        seed,
                                   FwArray      **in,
                                   gboolean      *seeded,
                                   GError       **error);
/* Fills array with the seeded random values fw_exec_make_inputs gives inputs. */
void      fw_exec_fill_random     (FwArray       *array,
                                   guint64       *state);
/* Binds a graph's inputs in frame (initializers skipped when skip_initializers), one array each. */
gboolean  fw_exec_frame_bind_inputs (FwExecFrame   *frame,
                                     FwArray *const *inputs,
                                     guint          n_inputs,
                                     gboolean       skip_initializers,
                                     GError       **error);
/* One use of v done: frees its array when uses[v] drops to 0. */
void      fw_exec_frame_release   (FwExecFrame   *frame,
                                   guint         *uses,
                                   const FwValue *v);
/* Uses per value of frame's graph before a run: graph outputs and kept values get one extra. */
void      fw_exec_frame_count_kept (FwExecFrame  *frame,
                                    guint        *uses,
                                    GHashTable   *keep);
/* After a run: outputs gets a reference per graph output, keep's NULL entries are filled. */
gboolean  fw_exec_frame_finish    (FwExecFrame   *frame,
                                   FwArray      **outputs,
                                   GHashTable    *keep,
                                   GError       **error);
/* Stores a computed array for v: kept while a use is left, dropped at once otherwise. Takes array. */
void      fw_exec_frame_store     (FwExecFrame   *frame,
                                   const guint   *uses,
                                   const FwValue *v,
                                   FwArray       *array);
/* Runs node on its reference kernel in frame (nothing when its outputs were folded at load), then
 * releases one use of each input. scratch: room for n_inputs + n_outputs + 2 pointers, used for the
 * kernel's input and output arrays, or NULL to allocate them (the fused executor keeps its own so that a
 * run allocates nothing of its own). */
gboolean  fw_exec_frame_run_node  (FwExecContext *ctx,
                                   FwExecFrame   *frame,
                                   guint         *uses,
                                   const FwNode  *node,
                                   FwArray      **scratch,
                                   GError       **error);
/* Unrefs every value of frame and frees the table. */
void      fw_exec_frame_clear     (FwExecFrame   *frame);
/* fw-measure.c: median seconds per call of func, after warmup calls; a sample repeats a short call until it
 * lasts a few milliseconds. */
typedef gboolean (*FwTimedFunc) (gpointer data, GError **error);
gboolean  fw_measure_time_calls   (FwTimedFunc    func,
                                   gpointer       data,
                                   guint          warmup,
                                   guint          repeats,
                                   GCancellable  *cancellable,
                                   gdouble       *out,
                                   GError       **error);
/* a and b timed as fw_measure_time_calls times one, their samples alternating (a, b, a, b…): a shared
 * machine's load drifts between two separate series, and a burst in one would land on one side only. The
 * medians of each side, and the median of the per-pair ratios b / a, which a drift common to a pair
 * leaves alone. */
typedef struct
{
  gdouble a_s;
  gdouble b_s;
  gdouble b_over_a;
} FwMeasurePair;
gboolean  fw_measure_time_pair    (FwTimedFunc    a,
                                   FwTimedFunc    b,
                                   gpointer       data,
                                   guint          warmup,
                                   guint          repeats,
                                   GCancellable  *cancellable,
                                   FwMeasurePair *out,
                                   GError       **error);
/* fw_measure_time_pair for n pairs at once, data[i] the i-th pair's, out[i] its result: round after round,
 * one sample of each pair in turn, so that a slow spell of the machine lands on every pair alike instead
 * of on whichever was being timed. index_out (may be NULL) names the pair that failed. */
gboolean  fw_measure_time_pairs   (FwTimedFunc    a,
                                   FwTimedFunc    b,
                                   gpointer      *data,
                                   guint          n,
                                   guint          warmup,
                                   guint          repeats,
                                   GCancellable  *cancellable,
                                   FwMeasurePair *out,
                                   guint         *index_out,
                                   GError       **error);
/* The median of n values (sorts them). */
gdouble   fw_measure_median       (gdouble       *values,
                                   guint          n);
/* splitmix64 */
guint64   fw_exec_random_next   (guint64       *state);

G_END_DECLS
