/* fw-superkernel-plan.h: SuperKernel scopes, the second half of graph-autofusion: runs of the fused plan's
 * kernels, in the order they run (fw-schedule.h), bound into one launch that calls each kernel in turn,
 * with the synchronisation between them narrowed to what the data needs (docs/superkernel.md).
 *
 * A scope is chosen automatically (maximal runs of kernels that can join, broken where one cannot: the
 * FW-SK codes, after CANN's FusionFailReason) or by the user (name-scope prefixes). Between two kernels of a
 * scope the plan decides the barrier: none where every core reads only what it wrote itself in the kernels
 * since the last barrier (both kernels' specs tile the same space into the same blocks), else a barrier over
 * the vector cores, the cube cores or all of them, as CANN narrows by kernel type. Built from a plan as it
 * stands (decisions included); immutable. */
#pragma once

#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef enum {
  FW_SK_OFF,
  FW_SK_AUTO,   /* maximal runs; with scopes given, only the kernels under those name scopes */
} FwSkMode;

typedef struct
{
  FwSkMode  mode;
  char    **scopes;       /* name-scope prefixes ("/encoder/layers.3"): each a scope of the kernels under it,
                             with the scopes the plan's decisions made (fw_plan_make_superkernel); none of
                             either: automatic scopes over the whole model */
  char    **excluded;     /* name-scope prefixes (or whole names) of nodes marked "no SuperKernel" */
  guint     max_kernels;  /* kernels in one scope; 0: FW_SK_DEFAULT_MAX_KERNELS */
  guint     max_cores;    /* cores a scope may launch on; 0: the profile's */
} FwSkOptions;

#define FW_SK_DEFAULT_MAX_KERNELS 64

/* Why a kernel cannot join a scope, or why a scope ended (docs/superkernel.md). */
typedef enum {
  FW_SK_END = 0,        /* the model (or the user's scope) ended: not a refusal */
  FW_SK_OPAQUE = 1,     /* FW-SK-001: control flow, an unknown op or one without a vector or cube kernel */
  FW_SK_DYNAMIC = 2,    /* FW-SK-002: a shape known only at run time */
  FW_SK_CORES = 3,      /* FW-SK-003: needs more cores than the scope may launch on */
  FW_SK_DEADLOCK = 4,   /* FW-SK-004: a kernel outside the scope would have to run inside it */
  FW_SK_EXCLUDED = 5,   /* FW-SK-005: marked "no SuperKernel" by the user */
  FW_SK_SIZE = 6,       /* FW-SK-006: the scope reached its size limit */
  FW_SK_OUTSIDE = 7,    /* FW-SK-007: outside every name scope the user gave */
  FW_SK_N_CODES
} FwSkCode;

/* "FW-SK-001"…; NULL for FW_SK_END. */
const char   *fw_sk_code_name       (FwSkCode code);
/* The CANN FusionFailReason (super_kernel/src/aot/sk_node.cpp) a code corresponds to, or NULL. */
const char   *fw_sk_code_cann_name  (FwSkCode code);

/* Which cores a kernel runs on, and so which barrier it takes part in. */
typedef enum {
  FW_SK_AIV,   /* vector cores only */
  FW_SK_AIC,   /* cube cores only */
  FW_SK_MIX,   /* cube and vector (a MatMul with its epilogue) */
} FwSkCoreType;

typedef enum {
  FW_SK_SYNC_NONE,     /* each core reads only what it wrote: no barrier */
  FW_SK_SYNC_VECTOR,   /* vector cores only (CANN: SYNC_AIV_ONLY_ALL) */
  FW_SK_SYNC_CUBE,     /* cube cores only (CANN: SYNC_AIC_FLAG) */
  FW_SK_SYNC_ALL,      /* every core (CANN: SyncAll) */
} FwSkSync;

const char   *fw_sk_sync_name       (FwSkSync sync);        /* "none", "vector", "cube", "all" */
const char   *fw_sk_core_type_name  (FwSkCoreType type);    /* "aiv", "aic", "mix" */

typedef struct
{
  guint         step;        /* position in the schedule */
  guint         candidate;   /* the fused group, or G_MAXUINT for a single op */
  FwNode       *node;        /* the single op, or the group's first node */
  FwSkCoreType  type;
  guint         cores;       /* blocks it launches */
  FwSkSync      sync;        /* the barrier before it (FW_SK_SYNC_NONE for a scope's first kernel) */
  const FwValue *sync_value; /* a value it reads that another core wrote, which needs that barrier, or NULL */
} FwSkKernel;

typedef struct
{
  char     *name;           /* "sk_000", or the user's name scope */
  GArray   *kernels;        /* FwSkKernel, in execution order */
  guint     cores;          /* the most any of its kernels launches */
  guint     feed_sync;      /* kernels on fewer cores than the scope: the idle cores join their barriers */
  FwSkCode  end;            /* why it ended where it did */
  FwNode   *end_node;       /* the node that ended it, or NULL */
  char     *end_message;    /* translated */
  guint     syncs_kept;
  guint     syncs_removed;
  gdouble   saving_s;       /* launches saved plus syncs removed, on the plan's profile */
  guint     user;           /* index in FwSkPlan.user_scopes of the user's scope it is (a part of), else
                               G_MAXUINT: an automatic scope */
} FwSkScope;

/* A kernel that could not join any scope, with the reason. */
typedef struct
{
  guint     step;
  FwNode   *node;
  FwSkCode  code;
  char     *message;
} FwSkRefusal;

typedef struct
{
  FwSkOptions  options;     /* as given, the strings copied */
  /* FwSkUserScope*: the scopes the user chose, options.scopes first, then the plan's decisions
   * (fw_plan_get_user_scopes); when there are any, only the kernels in them are bound into scopes. */
  GPtrArray   *user_scopes;
  guint        n_kernels;   /* running steps of the schedule */
  GPtrArray   *scopes;      /* FwSkScope*, in execution order; none shorter than two kernels */
  GPtrArray   *refusals;    /* FwSkRefusal* */
  guint        launches_after;  /* the plan's launches after fusion, less those the scopes save */
  gdouble      saving_s;    /* the scopes' savings, summed */
  GHashTable  *places;      /* private: FwNode* → where its kernel went (fw_sk_plan_locate) */
  GArray      *serials;     /* private */
  GArray      *step_places; /* private */
} FwSkPlan;

typedef enum {
  FW_SK_PLACE_NONE,      /* not a kernel: folded at load, or not in the plan's graph */
  FW_SK_PLACE_SCOPE,     /* in a scope */
  FW_SK_PLACE_REFUSED,   /* could not join */
  FW_SK_PLACE_ALONE,     /* could join, but its run of kernels was a single one */
} FwSkPlace;

/* Where the kernel holding node (a fused group's member, or the node itself) went: *scope and *kernel are
 * indices into sk->scopes and its kernels for FW_SK_PLACE_SCOPE, *refusal into sk->refusals for
 * FW_SK_PLACE_REFUSED (any may be NULL). */
FwSkPlace     fw_sk_plan_locate     (const FwSkPlan    *sk,
                                     const FwNode      *node,
                                     guint             *scope,
                                     guint             *kernel,
                                     guint             *refusal);

void          fw_sk_options_init    (FwSkOptions       *options);
/* Scopes over plan (its decisions as they stand); NULL with an FW_ERROR_INTERNAL error only when the plan
 * cannot be scheduled. options NULL: automatic. */
FwSkPlan     *fw_sk_plan_build      (FwPlan            *plan,
                                     const FwSkOptions *options,
                                     GError           **error);
void          fw_sk_plan_free       (FwSkPlan          *sk);
/* The node names of the kernels that run from the one holding first to the one holding last (either
 * order), in execution order: a range of kernels as a user scope's nodes; *n_kernels (may be NULL) how many
 * kernels. An end that is in no kernel (folded at load) stands for the kernels next to it in topological
 * order, inside the range. NULL with FW_ERROR_USAGE only when no kernel runs. */
GStrv         fw_sk_plan_range_nodes (FwPlan           *plan,
                                      const FwNode     *first,
                                      const FwNode     *last,
                                      guint            *n_kernels,
                                      GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwSkPlan, fw_sk_plan_free)

G_END_DECLS
