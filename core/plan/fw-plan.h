/* fw-plan.h: the fusion planner: which groups of nodes should become one kernel, what each costs the chip
 * (Unified Buffer, queues, inputs) and saves (HBM traffic, launches, time), and why everything else was
 * refused.
 *
 * Discovery is class-based (docs/design.md §5.1): compute-bound producers take their elementwise epilogues,
 * then a backward scan from the graph's outputs grows elementwise chains, reduce epilogues and the insides
 * of norms and softmaxes. Rules only name, prioritise or forbid what discovery found. Every refusal is an
 * FwRefusal with a stable code (docs/reason-codes.md) and the numbers behind it. The planner reads the graph
 * and never changes it; the same inputs give the same plan. */
#pragma once

#include <glib.h>

#include "graph/fw-model.h"
#include "hw/fw-profile.h"
#include "plan/fw-kernel-spec.h"
#include "rules/fw-rules.h"

G_BEGIN_DECLS

typedef enum {
  FW_STRATEGY_CONSERVATIVE, /* elementwise chains and compute epilogues */
  FW_STRATEGY_BALANCED,     /* + reduce epilogues and norm/softmax insides (default) */
  FW_STRATEGY_AGGRESSIVE,   /* + multi-output groups, reshape-like ops, attention scores */
} FwStrategy;

/* Stable codes: their numbers appear in reports and whitelists and never change meaning. */
typedef enum {
  FW_NF_CYCLE = 1,           /* FW-NF-001 */
  FW_NF_OUTSIDE_USE = 2,     /* FW-NF-002 */
  FW_NF_ITERATION_SPACE = 3, /* FW-NF-003 */
  FW_NF_DTYPE = 4,           /* FW-NF-004 */
  FW_NF_OPAQUE = 5,          /* FW-NF-005 */
  FW_NF_DYNAMIC = 6,         /* FW-NF-006 */
  FW_NF_MAX_SIZE = 7,        /* FW-NF-007 */
  FW_NF_MAX_INPUTS = 8,      /* FW-NF-008 */
  FW_NF_UB = 9,              /* FW-NF-009 */
  FW_NF_NO_BENEFIT = 10,     /* FW-NF-010 */
  FW_NF_FORBIDDEN = 11,      /* FW-NF-011 */
  FW_NF_VETOED = 12,         /* FW-NF-012 */
  FW_NF_MAX_DEPTH = 13,      /* FW-NF-013 */
  FW_NF_STRATEGY = 14,       /* FW-NF-014 */
  FW_NF_REDUCE_EPILOGUE = 15,/* FW-NF-015 */
  FW_NF_SKIPPED = 16,        /* FW-NF-016 */
  FW_NF_INDEX_MAP = 17,      /* FW-NF-017 */
  FW_NF_GATHER_INDICES = 18, /* FW-NF-018 */
  FW_NF_PIECEWISE = 19,      /* FW-NF-019 */
  FW_NF_QDQ_AXIS = 20,       /* FW-NF-020 */
  FW_NF_QDQ_PARAMS = 21,     /* FW-NF-021 */
  FW_NF_QDQ_SHARED = 22,     /* FW-NF-022 */
  FW_NF_QDQ_FORM = 23,       /* FW-NF-023 */
  FW_NF_ATTENTION = 24,      /* FW-NF-024 */
  FW_NF_HGEMM = 25,          /* FW-NF-025 */
  FW_NF_HGEMM_EPILOGUE = 26, /* FW-NF-026 */
  FW_NF_N_CODES
} FwReasonCode;

typedef enum {
  FW_CANDIDATE_PROPOSED,
  FW_CANDIDATE_ACCEPTED,
  FW_CANDIDATE_VETOED,
  FW_CANDIDATE_REFUSED,
} FwCandidateStatus;


typedef struct
{
  FwReasonCode  code;
  char         *message;      /* what and the numbers, translated */
  GPtrArray    *nodes;        /* FwNode*: the nodes involved, topological order */
  guint         candidate;    /* index of the candidate it concerns, or G_MAXUINT */
  FwNode       *refused;      /* the node that could not join the rest of nodes, or NULL */
} FwRefusal;

/* The closest of CANN autofuse's not-fuse codes (NF1001–NF1051) to a refusal, or NULL where none
 * corresponds (docs/reason-codes.md). FW-NF-003 maps by the operator refused: concat, gather, transpose,
 * slice and split have codes of their own, and so do the cube (MatMul) fusion limits. */
const char   *fw_reason_cann_code       (const FwRefusal *refusal);

typedef struct
{
  guint               index;
  char               *pattern;     /* rule name, or the class-based kind: epilogue, elementwise_chain, … */
  const FwRule       *rule;        /* the rule that named it, or NULL */
  GPtrArray          *rule_misses; /* FwRuleMiss*: better rules whose pattern matched but not their `when` */
  char               *kind;        /* class-based kind, whatever the rule */
  GPtrArray          *nodes;       /* FwNode*, topological order */
  FwNode             *root;        /* the out-fusable producer of an epilogue group, or NULL */
  FwKernelSpec       *spec;        /* the planner's decision for the kernel and its prices (fw-kernel-spec.h),
                                      owned */
  FwCandidateStatus   status;
  guint               depth;       /* longest chain inside, in nodes */
  guint               decision;    /* 1 + the index in plan->decisions of the decision that set its status
                                      (accepted or vetoed), 0 when none did */
  const char         *body;        /* the control-flow body that holds it ("/If_0/then_branch",
                                      "/Loop_0/body/If_1/else_branch"), NULL in the main graph; owned by
                                      the plan's region */
} FwCandidate;

/* Whether a candidate is part of the fused plan (proposed or accepted; vetoed and refused ones are not). */
gboolean      fw_candidate_is_fused     (const FwCandidate *candidate);

/* The candidate's prices: its spec's (fw_kernel_spec_get_resource, _get_cost); zero without a spec. */
const FwResourceEstimate *fw_candidate_get_resource (const FwCandidate *candidate);
const FwCostEstimate     *fw_candidate_get_cost     (const FwCandidate *candidate);

typedef struct _FwPlan FwPlan;

/* A graph the planner plans on its own: the main graph, or the body of an If, Loop or Scan (its
 * then_branch, else_branch or body attribute), each with the static shapes it has. Groups never cross a
 * region's edge: a body runs once per branch taken or iteration, its captures are its inputs. */
typedef struct
{
  FwGraph  *graph;
  FwNode   *owner;      /* the If/Loop/Scan node whose attribute holds it, NULL for the main graph */
  char     *path;       /* "/If_0/then_branch" (nested: "/Loop_0/body/If_1/then_branch"), NULL for the
                           main graph */
  guint    *group_of;   /* node index → candidate index + 1, 0 when in none */
} FwPlanRegion;

/* A target's buffer arrangement for a candidate whose spec the planner has just built (the spec's space,
 * rows and values are set; its prices are not): FALSE when the target cannot make the kernel, and the
 * planner then prices its own buffer plan. Called from the planning thread. */
typedef gboolean (*FwUbArrangeFunc) (const FwPlan      *plan,
                                     const FwCandidate *candidate,
                                     FwUbArrangement   *out,
                                     GError           **error);

/* Discovery passes CANN's AUTOFUSE_FLAGS can switch off (fw-cann-flags.c, docs/cann-flags.md). */
typedef enum {
  FW_PASS_REDUCE    = 1 << 0,  /* reductions and normalisations fused with what feeds and follows them */
  FW_PASS_MATMUL    = 1 << 1,  /* MatMul and Gemm epilogues */
  FW_PASS_CONCAT    = 1 << 2,  /* the injective passes: accepted, and no-ops until injective ops fuse */
  FW_PASS_SLICE     = 1 << 3,
  FW_PASS_TRANSPOSE = 1 << 4,
  FW_PASS_GATHER    = 1 << 5,
} FwPass;

const char   *fw_pass_name              (FwPass           pass);

/* Nodes a user keeps out of every fusion, by op type or by name (AUTOFUSE_DFX_FLAGS
 * --skip_node_names_cfg). Reference counted: options hold a reference, a plan takes its own. */
typedef struct _FwNodeSkips FwNodeSkips;

FwNodeSkips  *fw_node_skips_ref         (FwNodeSkips     *skips);
void          fw_node_skips_unref       (FwNodeSkips     *skips);
/* "ByNodeName" or "ByNodeType" when the node is skipped (the section that lists it), else NULL. */
const char   *fw_node_skips_why         (const FwNodeSkips *skips,
                                         const FwNode    *node);
const char   *fw_node_skips_get_file    (const FwNodeSkips *skips);

typedef struct
{
  FwStrategy   strategy;
  gboolean     enabled;           /* FALSE: no candidates, only totals */
  guint        disabled_passes;   /* FwPass bits */
  FwNodeSkips *skips;             /* a reference, or NULL; fw_plan_options_clear drops it */
  guint        max_depth;         /* 0: 32 */
  guint        max_fusion_size;   /* 0: the profile's max_fused_nodes (64) */
  gboolean     debug_log;         /* print each decision to stderr */
  /* The target whose kernels' buffers the plan prices (the Ascend target's for an NPU profile), or NULL
   * for the planner's own buffer plan. */
  FwUbArrangeFunc arrange;
} FwPlanOptions;

typedef struct
{
  gdouble bytes_read;
  gdouble bytes_written;
  guint   launches;
  gdouble flops;
  gdouble time_s;
} FwPlanTotals;

struct _FwPlan
{
  FwModel        *model;
  FwProfile      *profile;
  FwRuleSet      *rules;        /* not owned */
  FwPlanOptions   options;
  GPtrArray      *candidates;   /* FwCandidate*, by first node's topological position */
  GPtrArray      *refusals;     /* FwRefusal*, in the order found */
  guint          *group_of;     /* node index → candidate index + 1, 0 when in none */
  FwPlanTotals    before;       /* every node its own kernel */
  FwPlanTotals    after;        /* proposed and accepted candidates fused */
  FwPlanTotals    proposed;     /* `after` as the planner left it before any decision: what it proposed,
                                   recorded whenever it plans from scratch (new plan, undo) */
  /* Decisions (fw-decisions.h). Candidates keep their index for the plan's life: a veto marks its candidate
   * vetoed and appends what re-planning its nodes found, so after a veto the list is no longer in graph
   * order. An undo rebuilds the plan, after which earlier FwCandidate pointers are invalid. */
  GPtrArray      *decisions;    /* FwDecision*: [0, n_applied) applied in order, the rest can be redone */
  guint           n_applied;
  GPtrArray      *vetoed;       /* GArray* of guint node indices, sorted: no group may hold all of one */
  GPtrArray      *vetoed_in;    /* FwGraph*: the region of each vetoed set (their indices are its nodes') */
  GPtrArray      *regions;      /* FwPlanRegion*: [0] the main graph (its group_of is group_of above), then
                                   every If/Loop/Scan body, each before the bodies nested in it */
  GHashTable     *region_of;    /* FwGraph* → FwPlanRegion* */
  char           *fingerprint;  /* fw_model_fingerprint, computed when first needed */
};

void          fw_plan_options_init      (FwPlanOptions   *options);
/* Drops what the options hold (the skips); they can be initialised again. */
void          fw_plan_options_clear     (FwPlanOptions   *options);
/* Applies CANN's AUTOFUSE_FLAGS and AUTOFUSE_DFX_FLAGS' skip file (fw_plan_options_from_cann_env), then
 * AUTOFUSION_ENABLE, AUTOFUSION_MAX_DEPTH, AUTOFUSION_STRATEGY and AUTOFUSION_LOG_LEVEL, which win; a bad
 * value is an FW_ERROR_USAGE error naming the variable. Call before applying command-line flags, which win
 * over both. */
gboolean      fw_plan_options_from_env  (FwPlanOptions   *options,
                                         GError         **error);

/* AUTOFUSE_DFX_FLAGS' debug folder and --codegen_compile_debug. */
typedef struct
{
  char     *debug_dir;
  gboolean  compile_debug;  /* keep each kernel's sources, tiling and compiler lines in
                               debug_dir/autofuse_compile_debug/ */
} FwCannDebug;

/* Only CANN's two variables; debug may be NULL. */
gboolean      fw_plan_options_from_cann_env (FwPlanOptions *options,
                                             FwCannDebug   *debug,
                                             GError       **error);
/* Only AUTOFUSE_DFX_FLAGS' debug folder and --codegen_compile_debug (its errors included). */
gboolean      fw_cann_debug_from_env    (FwCannDebug     *debug,
                                         GError         **error);
void          fw_cann_debug_clear       (FwCannDebug     *debug);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FwPlanOptions, fw_plan_options_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FwCannDebug, fw_cann_debug_clear)
gboolean      fw_strategy_from_string   (const char      *text,
                                         FwStrategy      *out);
const char   *fw_strategy_to_string     (FwStrategy       strategy);

/* The region of graph (the main graph or a planned body), NULL when the plan does not plan it. */
const FwPlanRegion *fw_plan_get_region  (const FwPlan    *plan,
                                         const FwGraph   *graph);
/* 1 + the index of the candidate that holds node (fused or not), 0 when none does: the region's group_of. */
guint         fw_plan_group_of          (const FwPlan    *plan,
                                         const FwNode    *node);

/* Main-graph nodes before fusion and after it, each proposed or accepted group one node: what a viewer
 * counts in the graph dumps (report plan.node_counts). */
void          fw_plan_get_node_counts   (const FwPlan    *plan,
                                         guint           *before,
                                         guint           *after);

/* Plans the model's main graph; shapes must have been inferred. rules may be NULL. */
FwPlan       *fw_plan_new               (FwModel         *model,
                                         FwProfile       *profile,
                                         FwRuleSet       *rules,
                                         const FwPlanOptions *options,
                                         GError         **error);
void          fw_plan_free              (FwPlan          *plan);
/* The spec of a group the planner did not form (a user's or a test's), on the plan's profile: the space is
 * the compute root's result or the largest value, the rows those of its first row operation. */
FwKernelSpec *fw_plan_spec_for_nodes    (FwPlan          *plan,
                                         GPtrArray       *nodes,
                                         FwNode          *root);
void          fw_kernel_spec_free       (FwKernelSpec    *spec);

const char   *fw_reason_code_string     (FwReasonCode     code);   /* "FW-NF-009" */
const char   *fw_reason_code_title      (FwReasonCode     code);   /* translated one-line meaning */
const char   *fw_candidate_status_name  (FwCandidateStatus status); /* "proposed", … */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwPlan, fw_plan_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwKernelSpec, fw_kernel_spec_free)

G_END_DECLS
