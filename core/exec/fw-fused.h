/* fw-fused.h: running the plan: the fused executor (one kernel per fused group, reference kernels for the
 * rest), verification against the reference interpreter, and measurement.
 *
 * A group's kernel is anything that maps the group's boundary inputs to its boundary outputs (FwGroupKernel):
 * batch mode wraps host SuperKernels (core/codegen/host) into it, tests may wrap other things. Groups are
 * scheduled as single steps of a topological order of the graph with each group contracted to one vertex;
 * the planner's convexity check (FW-NF-001) guarantees that order exists. */
#pragma once

#include "fw-exec.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef gboolean (*FwGroupKernelRun) (gpointer        data,
                                      FwArray *const *inputs,
                                      FwArray       **outputs,
                                      guint           n_threads,
                                      GError        **error);

typedef struct
{
  guint             candidate;   /* index in plan->candidates */
  guint             n_inputs;
  FwValue         **inputs;      /* boundary inputs in the order run takes them (not owned) */
  guint             n_outputs;
  FwValue         **outputs;     /* boundary outputs in the order run fills them (not owned) */
  FwGroupKernelRun  run;
  gpointer          data;
  /* A compute root summed in another order than the reference's (a oneDNN primitive): its reduction length
     and |alpha|, and the indices in inputs of its two operands (-1: not a boundary input). Verification
     widens the absolute tolerance by the float dot-product bound 2·K·2⁻²⁴·|alpha|·max|A|·max|B|. */
  guint64           product_k;
  gdouble           product_alpha;
  gint              product_a, product_b;
  /* A kernel that takes and makes channels-last arrays (FwArray.nhwc), or NULL: run_nhwc runs it with its
     one output channels-last when out_nhwc; bit j of nhwc_inputs says input j may come so. The fused
     executor keeps a value channels-last when such a kernel makes it and only such kernels read it, each
     where its bit allows: no reorder to plain and back between two convolutions. */
  gboolean        (*run_nhwc) (gpointer        data,
                               FwArray *const *inputs,
                               FwArray       **outputs,
                               gboolean        out_nhwc,
                               guint           n_threads,
                               GError        **error);
  guint32           nhwc_inputs;
  /* Bit j: input j's storage may become the one output (a residual that a oneDNN sum post-op adds in
     place). Where this run is that input's last reader and the frame holds its array alone (owned, no
     view of it alive, already in the output's dtype, dims and layout), the executor hands the array in as
     outputs[0] on entry, and the kernel writes its result there instead of allocating. Any other kernel
     gets every outputs[o] NULL. */
  guint32           inplace_inputs;
} FwGroupKernel;

/* A SuperKernel scope's program: a run of consecutive steps of the fused schedule (fused groups and single
 * ops) that one call runs (docs/superkernel.md, "Host target"). */
typedef struct
{
  guint           candidate;   /* a fused group, or G_MAXUINT */
  FwNode         *node;        /* the single op; NULL for a group */
} FwScopeMember;

typedef struct
{
  const char          *name;
  guint                n_members;
  const FwScopeMember *members;  /* in the order they run (not owned) */
  FwGroupKernel        kernel;   /* candidate G_MAXUINT: the scope's boundary and its run */
} FwScopeKernel;

/* A host kernel for one op that the fused schedule runs outside every group (a standalone Conv, Gemm or
 * MaxPool: core/codegen/host/fw-host-node-kernel.c), in place of its reference kernel. kernel.candidate is
 * G_MAXUINT; kernel.run takes one array per node input (NULL for an omitted optional one; constants
 * borrowed from the model) and fills one per node output. kernel.inputs and kernel.outputs are the node's
 * (n_inputs entries may be NULL). */
typedef struct
{
  const FwNode  *node;
  const char    *producer;   /* "onednn jit:avx2", "host max-pool" ... (owned by the kernel's maker) */
  FwGroupKernel  kernel;
} FwNodeKernel;

typedef struct _FwFusedProgram FwFusedProgram;

/* kernels: FwGroupKernel* (not owned, must outlive the program), at most one per candidate. Candidates
 * without a kernel run node by node with the reference kernels. FW_ERROR_INTERNAL when a kernel's boundary
 * does not match its group's or the contracted graph has a cycle. */
FwFusedProgram *fw_fused_program_new   (FwPlan          *plan,
                                        GPtrArray       *kernels,
                                        GError         **error);
/* fw_fused_program_new with scopes (FwScopeKernel*, not owned, or NULL): a scope whose members are
 * consecutive steps of the schedule, but for single nodes that read nothing the members make (those run
 * before it), runs as one step; one whose members are not (a group of it has no kernel in kernels) is left
 * out, its members run as they would without it. */
FwFusedProgram *fw_fused_program_new_with_scopes (FwPlan    *plan,
                                        GPtrArray       *kernels,
                                        GPtrArray       *scopes,
                                        GError         **error);
/* Single ops of the main graph's schedule that run on a node kernel (FwNodeKernel*, not owned, must outlive
 * the program; NULL: none) instead of their reference kernel. A node inside a group with a kernel is never
 * run as a single op, so its node kernel is not used. Before the program's first run, never during one. */
void            fw_fused_program_set_node_kernels (FwFusedProgram *program,
                                        GPtrArray       *node_kernels);
/* How many of the scopes given run as one step each. */
guint           fw_fused_program_get_n_scopes (FwFusedProgram *program);
/* How many values a run of program keeps channels-last between kernels (FwGroupKernel.run_nhwc). */
guint           fw_fused_program_get_n_channels_last (FwFusedProgram *program);
gboolean        fw_fused_program_has_scope (FwFusedProgram *program,
                                        const FwScopeKernel *scope);
void            fw_fused_program_free  (FwFusedProgram  *program);
/* As fw_exec_run_reference, on the fused schedule. */
gboolean        fw_fused_program_run   (FwFusedProgram  *program,
                                        FwExecContext   *ctx,
                                        FwArray *const  *inputs,
                                        guint            n_inputs,
                                        FwArray        **outputs,
                                        GHashTable      *keep,
                                        GError         **error);

/* The boundary of a candidate: values its nodes read that are produced outside it (constants left out:
 * a kernel reads them from the model) and values it produces that are used outside it or are graph
 * outputs. Both GPtrArrays of FwValue*, in the order the group's nodes first touch them. */
void            fw_group_boundary      (const FwCandidate *candidate,
                                        GPtrArray       *inputs,
                                        GPtrArray       *outputs);
/* A kernel that runs the candidate's nodes on the reference kernels (tests, and the unfused side of a
 * measurement). Free with fw_group_kernel_reference_free. */
FwGroupKernel  *fw_group_kernel_new_reference (FwPlan    *plan,
                                        guint            candidate);
void            fw_group_kernel_reference_free   (FwGroupKernel   *kernel);

/* Runs a group's nodes one by one with the reference kernels, from its boundary inputs to its boundary
 * outputs (the unfused side of a per-group comparison or timing). */
gboolean        fw_group_run_reference (FwExecContext   *ctx,
                                        const FwGroupKernel *kernel,
                                        GPtrArray       *nodes,
                                        FwArray *const  *inputs,
                                        FwArray        **outputs,
                                        GError         **error);

/* Tolerances: an element passes when |fused − reference| <= abs + rel × |reference|. */
typedef struct
{
  gdouble rel;
  gdouble abs;
} FwTolerance;

/* Default tolerance for a dtype: float32 rel 1e-4 abs 1e-5, float16/bfloat16 rel 1e-2 abs 1e-3, double
 * rel 1e-9 abs 1e-12, integers and bool exact. */
FwTolerance     fw_tolerance_for_dtype (FwDType          dtype);
/* "rel=1e-4,abs=1e-5" (either part may be left out). */
gboolean        fw_tolerance_parse     (const char      *text,
                                        FwTolerance     *out,
                                        GError         **error);

typedef struct
{
  gdouble   max_abs;       /* worst absolute error */
  gdouble   max_rel;       /* worst relative error, |d| / max(|ref|, tiny) */
  gint64    worst_index;   /* element with the largest excess over tolerance */
  gint64    n_failed;      /* elements outside tolerance */
  gint64    n_elements;
  gboolean  pass;          /* shapes and dtypes equal, and every element within tolerance */
  gboolean  nan_mismatch;  /* NaN in one and not the other */
} FwCompare;

/* Compares fused against reference with tol (NULL: the dtype's default). */
void            fw_compare_arrays      (const FwArray   *reference,
                                        const FwArray   *fused,
                                        const FwTolerance *tol,
                                        FwCompare       *out);

/* Which side verification holds right (docs/design.md §6.3). STRICT: the fused result within the dtype's
 * tolerance of the reference interpreter. GOLDEN: both the reference (unfused) and the fused result are
 * compared with a golden run, the same graph with every float tensor widened (float16 and bfloat16 to
 * float32; a model without half values to float64); the fused one passes when it is within the dtype's
 * tolerance of the golden or no farther from it than the unfused one, with FW_GOLDEN_SLACK. AUTO: golden
 * for a model with float16 or bfloat16 values, strict otherwise. */
typedef enum {
  FW_VERIFY_POLICY_AUTO,
  FW_VERIFY_POLICY_STRICT,
  FW_VERIFY_POLICY_GOLDEN,
} FwVerifyPolicy;

/* Under golden, the fused max abs error against the golden may exceed the unfused one by this fraction. */
#define FW_GOLDEN_SLACK 0.25
/* AUTO on a float32 model, for a whole-model output that missed the strict tolerance: the fused result's max
 * abs error against the float64 run may be this many times the unfused one's. Two float32 evaluations of a
 * deep model in different summation orders carry errors of the same size, whose largest over the elements
 * varies by more than FW_GOLDEN_SLACK from order to order (resnet50: unfused 2.3e-5, fused 3.7e-5); a wrong
 * kernel is orders of magnitude off. */
#define FW_AUTO_GOLDEN_FACTOR 2.0

/* "strict" or "golden" (FW_ERROR_USAGE otherwise). */
gboolean        fw_verify_policy_parse (const char      *text,
                                        FwVerifyPolicy  *out,
                                        GError         **error);
const char     *fw_verify_policy_name  (FwVerifyPolicy   policy);

/* One result against the golden run (worst over a group's outputs). */
typedef struct
{
  gdouble   max_abs;
  gdouble   max_rel;       /* |d| / max(|golden|, tolerance abs) */
  gdouble   cosine;        /* of the result and the golden as vectors; 1 when both are zero */
  gint64    n_failed;      /* elements outside the dtype's tolerance of the golden */
  gboolean  nan_mismatch;
} FwGoldenError;

typedef struct
{
  guint64       seed;          /* inputs from fw_exec_make_inputs */
  gboolean      has_tolerance; /* override the dtype defaults */
  FwTolerance   tolerance;
  guint         n_threads;     /* 0: all cores */
  GCancellable *cancellable;
  /* Other targets check their kernels on the same reference values: also_keep (FwValue*, or NULL) are kept
   * from the reference run besides the host kernels' boundaries, and on_reference, when set, is called once
   * after that run with every kept value (FwValue* → FwArray*). */
  GPtrArray    *also_keep;
  void        (*on_reference) (GHashTable *values, gpointer data);
  gpointer      on_reference_data;
  FwVerifyPolicy policy;
  /* FwNodeKernel* the fused run uses for single ops (fw_fused_program_set_node_kernels), or NULL: each is
     also checked by itself on the reference run's inputs of its node (FwVerifyResult.nodes). */
  GPtrArray    *node_kernels;
} FwVerifyOptions;

typedef struct
{
  guint      candidate;
  gboolean   has_kernel;     /* FALSE: the group ran on reference kernels and is not verified */
  FwCompare  isolated;       /* the kernel fed the reference's boundary inputs, against the reference's
                                boundary outputs (worst over its outputs): the group's own error */
  FwCompare  in_model;       /* the fused run's boundary outputs against the reference's: errors carried
                                in from upstream groups included */
  FwTolerance tolerance;
  /* Golden policy: the group's nodes widened (fw-golden.c) on the same boundary inputs; the reference's
     boundary outputs (unfused) and the kernel's (fused) against them. */
  FwGoldenError unfused_golden;
  FwGoldenError fused_golden;
  gboolean   pass;           /* strict: isolated.pass; golden: the golden rule on each output */
  gboolean   seeded;         /* a body's group whose body did not run on the model's inputs (a branch not
                                taken, a loop of no iterations): fed seeded inputs of its boundary's static
                                shapes, against its nodes on the reference kernels; in_model is isolated */
  /* An integer (QDQ) group: its int8/uint8 outputs pass within one quantisation step of the reference
     (their errors are in steps), its float outputs by the float tolerance. */
  gboolean   integer;
  gdouble    quant_step;     /* the real value of one step of its requantised output, 0 when it has none */
} FwGroupCheck;

typedef struct
{
  char      *name;
  FwCompare  compare;        /* fused against the reference */
  FwTolerance tolerance;
  FwGoldenError unfused_golden;  /* golden policy: the whole model widened */
  FwGoldenError fused_golden;
  gboolean   pass;           /* strict: compare.pass; golden: the golden rule */
  /* AUTO on a float32 model: the output missed the strict tolerance and was judged by the golden rule
     against the model run in float64 (fw-verify.c), whose errors the golden fields then hold. */
  gboolean   golden_judged;
  /* A QDQ model: the unfused and the fused results against the model run unquantised (the float original,
     fw-unquantised.c): the quantisation error, beside compare's fusion error. */
  FwGoldenError unfused_quantisation;
  FwGoldenError fused_quantisation;
} FwOutputCheck;

/* A node kernel fed its node's inputs from the reference run, against the node's outputs there. */
typedef struct
{
  const FwNodeKernel *kernel;
  FwCompare   compare;       /* worst over the node's outputs */
  FwTolerance tolerance;     /* the outputs' dtype default, widened by the product bound where it applies */
  gboolean    pass;
} FwNodeCheck;

typedef struct
{
  GArray    *groups;      /* FwGroupCheck, one per kernel given */
  GArray    *nodes;       /* FwNodeCheck, one per node kernel given (FwVerifyOptions.node_kernels) */
  GArray    *outputs;     /* FwOutputCheck, one per graph output */
  GArray    *unverified;  /* guint: proposed or accepted candidates that had no kernel to check (not
                             generated or not compiled): they ran on reference kernels */
  gboolean   pass;        /* every group, node kernel and output passed, and every fused group was verified */
  guint64    seed;
  FwVerifyPolicy policy;  /* as applied: strict or golden */
  FwDType    golden;      /* golden: the widest type of the golden run (float32 or float64) */
  gboolean   quantised;   /* the model has QuantizeLinear or DequantizeLinear nodes: outputs carry the
                             quantisation error */
} FwVerifyResult;

/* What policy (AUTO resolved) asks of graph: the golden run's widest type (float32 for a model with half
 * values, float64 for a float32 one), or FW_DTYPE_UNDEFINED under strict. */
FwDType         fw_verify_golden_dtype (FwGraph         *graph,
                                        FwVerifyPolicy   policy);
/* x against the golden run's golden, tol deciding n_failed; and the golden rule on an unfused and a fused
 * result's errors (within tolerance of the golden, or no farther than the unfused one with FW_GOLDEN_SLACK).
 * Other checkers of fused kernels (the Ascend twin) judge with these. */
void            fw_golden_error_measure (const FwArray  *golden,
                                        const FwArray   *x,
                                        const FwTolerance *tol,
                                        FwGoldenError   *out);
gboolean        fw_golden_error_pass   (const FwGoldenError *unfused,
                                        const FwGoldenError *fused);
/* The rule for a float32 model's output under AUTO that missed the strict tolerance (FW_AUTO_GOLDEN_FACTOR). */
gboolean        fw_golden_error_pass_auto (const FwGoldenError *unfused,
                                        const FwGoldenError *fused);
FwVerifyResult *fw_verify_run          (FwPlan          *plan,
                                        GPtrArray       *kernels,
                                        const FwVerifyOptions *options,
                                        GError         **error);
void            fw_verify_result_free  (FwVerifyResult  *result);

typedef struct
{
  guint         warmup;      /* 0: 1 */
  guint         repeats;     /* 0: 5 */
  guint64       seed;
  guint         n_threads;   /* 0: all cores */
  GCancellable *cancellable;
  GPtrArray    *node_kernels; /* FwNodeKernel* the fused runs use (fw_fused_program_set_node_kernels), or NULL */
} FwMeasureOptions;

typedef struct
{
  guint    candidate;
  gdouble  kernel_s;        /* median time of the SuperKernel */
  gdouble  reference_s;     /* median time of the group's reference ops, one after another */
  gdouble  measured_speedup;  /* median of reference / kernel over samples taken in pairs (fw_measure_time_pair) */
  gdouble  predicted_speedup; /* the plan's cost.time_before_s / cost.time_after_s */
  gdouble  model_error;       /* predicted / measured − 1 */
  /* The same on the host profile without its calibration (fw-host-calibrate.h); the plan's own figures
   * when its profile is not a calibrated one. */
  gdouble  predicted_speedup_uncalibrated;
  gdouble  model_error_uncalibrated;
} FwKernelTiming;

typedef struct
{
  GArray   *kernels;        /* FwKernelTiming, one per kernel given */
  gdouble   unfused_s;      /* median time of the whole model on the reference interpreter */
  gdouble   fused_s;        /* median time on the fused executor */
  gdouble   speedup;        /* median of unfused / fused over samples taken in pairs */
  guint     channels_last;  /* values its runs kept channels-last (fw_fused_program_get_n_channels_last) */
  gdouble   rank_correlation; /* Spearman's rho between predicted and measured speed-ups; NaN under 3 */
  gdouble   median_abs_error; /* median of |model_error| over the kernels; NaN without kernels */
  gboolean  calibrated;       /* the plan's profile is a calibrated host profile */
  gdouble   rank_correlation_uncalibrated;  /* the two above on the uncalibrated profile */
  gdouble   median_abs_error_uncalibrated;
  guint     warmup;
  guint     repeats;
  guint     n_threads;
} FwMeasureResult;

FwMeasureResult *fw_measure_run        (FwPlan          *plan,
                                        GPtrArray       *kernels,
                                        const FwMeasureOptions *options,
                                        GError         **error);
void             fw_measure_result_free (FwMeasureResult *result);
/* Spearman's rank correlation of x and y (n values each, ties averaged); NaN when n < 3 or a side is flat. */
gdouble          fw_rank_correlation    (const gdouble  *x,
                                         const gdouble  *y,
                                         guint           n);

/* SuperKernel scope programs checked like groups (fw-scope-check.c): each fed the reference run's values at
 * its boundary and compared with the reference's outputs (strict, the dtype's tolerance unless given), the
 * whole model run with the scopes compared output by output; measured, each against its members run one
 * by one (group kernels and reference ops) on the same inputs, and the whole model with the scopes against
 * without them, samples alternating so both see the same machine. */
typedef struct
{
  guint64       seed;
  gboolean      has_tolerance;
  FwTolerance   tolerance;
  guint         n_threads;    /* 0: all cores */
  gboolean      verify;
  gboolean      measure;
  guint         warmup;       /* 0: 1 */
  guint         repeats;      /* 0: 5 */
  GCancellable *cancellable;
} FwScopeCheckOptions;

typedef struct
{
  const FwScopeKernel *scope;
  gboolean   contracted;      /* ran as one step of the fused run */
  FwCompare  isolated;        /* verify: worst over its outputs */
  gboolean   pass;            /* verify: isolated.pass (TRUE when not verified) */
  gdouble    scope_s;         /* measure: median seconds of the one call */
  gdouble    members_s;       /* measure: median seconds of its members one after another */
} FwScopeCheck;

typedef struct
{
  GArray   *scopes;           /* FwScopeCheck, one per scope given */
  gboolean  verified;         /* options->verify */
  gboolean  measured;         /* options->measure */
  gboolean  outputs_pass;     /* verify: the fused run with the scopes, every graph output within tolerance */
  gboolean  pass;             /* every scope and outputs_pass */
  gdouble   fused_s;          /* measure: the whole model on the fused executor without the scopes */
  gdouble   scoped_s;         /* measure: the same with them */
} FwScopeCheckResult;

FwScopeCheckResult *fw_scope_check_run (FwPlan          *plan,
                                        GPtrArray       *kernels,
                                        GPtrArray       *scopes,
                                        const FwScopeCheckOptions *options,
                                        GError         **error);
void            fw_scope_check_result_free (FwScopeCheckResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwScopeCheckResult, fw_scope_check_result_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwFusedProgram, fw_fused_program_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwVerifyResult, fw_verify_result_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwMeasureResult, fw_measure_result_free)

G_END_DECLS
