/* fw-host-scope.h: the host target of SuperKernel scopes: one generated C program per scope that runs its
 * sub-kernels in order out of one preallocated arena, with one entry point (docs/superkernel.md, "Host
 * target"). The fused executor runs it as one step (FwScopeKernel), so dispatch, the boundary checks and the
 * allocation of every value between the sub-kernels are paid once per scope instead of once per kernel.
 *
 * A sub-kernel is a fused group's generated code (the same generator as its own SuperKernel) or a single op
 * the generator can emit as a group of one (elementwise, reductions, norms, MatMul, Gemm, Conv). A kernel
 * it cannot emit ends the host program there (FW-SK-008) and the next one starts after it; a program needs
 * two sub-kernels. Values a sub-kernel writes and only later sub-kernels of the same program read live in
 * the arena, placed by liveness (fw_arena_place); values read after the program, and graph outputs, are its
 * outputs, allocated per call as the executor's arrays. */
#pragma once

#include <glib.h>

#include "codegen/fw-kernel-source.h"
#include "codegen/host/fw-superkernel.h"
#include "exec/fw-fused.h"
#include "plan/fw-superkernel-plan.h"

G_BEGIN_DECLS

/* Buffers start at multiples of this many bytes (a cache line; what the vector loads like). */
#define FW_ARENA_ALIGN 64

/* A value of the arena: written by sub-kernel first, read last by sub-kernel last (first when no one reads
 * it); live over [first, last], both included, as a sub-kernel's inputs and outputs must not overlap. */
typedef struct
{
  const FwValue *value;
  guint          first;
  guint          last;
  gint64         bytes;    /* its size rounded up to FW_ARENA_ALIGN */
  gint64         offset;   /* set by fw_arena_place */
} FwArenaBuffer;

/* Offsets for buffers, largest first, each at the lowest-waste gap (best fit) among the buffers already
 * placed whose lives overlap its own, else after the highest of them. Returns the arena's size in bytes. */
gint64        fw_arena_place         (FwArenaBuffer       *buffers,
                                      guint                n);
/* FALSE with an FW_ERROR_INTERNAL error naming both values when two buffers live at the same time share a
 * byte, or naming one that lies outside arena_bytes or off FW_ARENA_ALIGN. */
gboolean      fw_arena_check         (const FwArenaBuffer *buffers,
                                      guint                n,
                                      gint64               arena_bytes,
                                      GError             **error);

typedef struct
{
  char          *name;          /* the plan scope's; "NAME.2" for its second program when it was cut */
  guint          sk_scope;      /* index in the FwSkPlan's scopes */
  guint          first_kernel;  /* its first kernel there */
  guint          n_kernels;     /* the plan's kernels it covers (a Conv root apart counts as its own) */
  GArray        *members;       /* FwScopeMember, one per sub-kernel, in order */
  GPtrArray     *units;         /* FwSuperKernel*, one per member (its unit is the program's function); NULL
                                   for a view (Reshape, Flatten, Squeeze, Unsqueeze, Identity), which shares
                                   its input's bytes */
  GPtrArray     *inputs;        /* FwValue*: the program's inputs, in first-read order */
  GPtrArray     *outputs;       /* FwValue*: read after it or graph outputs */
  GArray        *buffers;       /* FwArenaBuffer */
  gint64         arena_bytes;
  gint64         output_bytes;  /* its outputs' arrays, which live through the call */
  gint64         interpreter_peak_bytes;  /* the most bytes of the same nodes' values live at once on the
                                             reference interpreter, node by node, outputs included */
  const char    *end_code;      /* "FW-SK-008" when a kernel without host code ended it, else NULL */
  char          *end_message;   /* translated, or NULL */
  FwSuperKernel *program;       /* the scope program (its kernel source: kernel.c) */
  gboolean       compiled;
  char          *error;         /* why it did not compile, or NULL */
  FwScopeKernel  kernel;        /* the fused executor's view (valid once compiled) */
  guint          n_teams;       /* OpenMP teams the program opens per call: one per run of sub-kernels that
                                   call no library (FwSuperKernel.team) where one of them wants a second
                                   thread; the sub-kernels calling sgemm or oneDNN open their own */
  /* private */
  GPtrArray     *own;           /* the candidates made for single ops, and the program's */
  GHashTable    *alias;         /* FwValue* of a view → the value whose bytes it is */
  gpointer       arena;
  GMutex         lock;
} FwHostScope;

/* A kernel of a plan scope the host target has no code for. */
typedef struct
{
  guint    sk_scope;
  guint    kernel;
  FwNode  *node;
  char    *message;   /* the generator's refusal */
} FwHostScopeCut;

typedef struct
{
  FwPlan    *plan;
  GPtrArray *scopes;    /* FwHostScope*, in the plan scopes' order */
  GPtrArray *cuts;      /* FwHostScopeCut* */
} FwHostScopes;

#define FW_SK_HOST_CODE_NAME "FW-SK-008"

/* The host programs of sk's scopes, generated (nothing compiled). */
FwHostScopes *fw_host_scopes_build   (FwPlan              *plan,
                                      const FwSkPlan      *sk);
/* Compiles every program (a failure is recorded on its scope, error is for a cancel only); the arenas are
 * allocated here, once. */
gboolean      fw_host_scopes_compile (FwHostScopes        *scopes,
                                      FwHostToolchain     *toolchain,
                                      GCancellable        *cancellable,
                                      GError             **error);
/* FwScopeKernel* of the compiled programs (the array owns nothing). */
GPtrArray    *fw_host_scopes_kernels (FwHostScopes        *scopes);
void          fw_host_scopes_free    (FwHostScopes        *scopes);

/* Generates the scope's program again from its buffers as they stand; check FALSE skips fw_arena_check
 * (tests: a placement made wrong on purpose must be caught by verification). */
gboolean      fw_host_scope_generate (FwHostScope         *scope,
                                      gboolean             check,
                                      GError             **error);
const FwKernelSource *fw_host_scope_get_source (FwHostScope *scope);
/* Sub-kernel unit's producer backend ("onednn", "winograd", "gemv", "openblas", "direct"; NULL for a view
 * or no compute root), whether it calls its producer through the runtime table's producer_run (a
 * FwDnnlPrim, whoever's code computes it), and whether it runs in the program's team (work-shared loops,
 * no parallel region of its own). */
const char   *fw_host_scope_unit_producer (const FwHostScope *scope,
                                           guint              unit);
gboolean      fw_host_scope_unit_calls_producer (const FwHostScope *scope,
                                                 guint              unit);
gboolean      fw_host_scope_unit_in_team  (const FwHostScope *scope,
                                           guint              unit);

/* fw-host-scope-package.c: plan scope sk_scope's host programs as the kernel package's
 * superkernels/sNNN/host/: "NAME.c" per program (NAME from fw_host_scope_package_program_name, the
 * programs numbered in order), a Makefile and a README.md; NULL when the scope has no host program. */
FwKernelSource *fw_host_scope_package     (const FwHostScopes *scopes,
                                           guint               sk_scope);
/* "sk_NNN_P": program P (from 0) of plan scope NNN, newly allocated. */
char         *fw_host_scope_package_program_name (guint        sk_scope,
                                                  guint        program);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwHostScopes, fw_host_scopes_free)

G_END_DECLS
