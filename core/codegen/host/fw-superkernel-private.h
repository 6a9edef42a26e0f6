/* fw-superkernel-private.h: what the host target's files share: the kernel struct, the runtime table the
 * generated code receives, and the entry's signature. The generated source declares the same table itself
 * (it includes none of our headers), so FW_SK_ABI_VERSION must change whenever either side changes. */
#pragma once

#include <gmodule.h>

#include "fw-superkernel.h"

G_BEGIN_DECLS

#define FW_SK_ABI_VERSION 4

/* Row-major sgemm: C = alpha·op(A)·op(B) + beta·C. The host passes it so the shared object needs no link
 * against OpenBLAS and uses the same BLAS as the reference kernels. */
typedef void (*FwSkSgemm) (int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a,
                           int lda, const float *b, int ldb, float beta, float *c, int ldc);

/* CPU features the generated row converters may use (fw-host-half.c), found at run time. */
#define FW_SK_CPU_F16C   1   /* AVX and F16C */
#define FW_SK_CPU_AVX512 2   /* AVX-512F */
#define FW_SK_CPU_AVX2   4
#define FW_SK_CPU_VNNI   8   /* AVX-512F, AVX-512BW and AVX-512 VNNI (the integer kernels' vpdpbusd) */

/* The compute root by a prepared library primitive (fw_dnnl_prim_run): dst = src ⊛ weights (+ residual),
 * the activations as layout (FwDnnlLayout bits) lays them; 0 on success. */
typedef int (*FwSkProducerRun) (void *producer, const float *src, const float *weights, float *dst,
                                const float *residual, int layout, int n_threads);

typedef struct
{
  int              abi;
  int              features;  /* FW_SK_CPU_* */
  FwSkSgemm        sgemm;
  FwSkProducerRun  producer_run;
  void            *producer;  /* the kernel's own primitive (FwSuperKernel.dnnl), or NULL */
  /* This run's layout of the primitive's activations (FwDnnlLayout), which the generated code passes on:
     0 (plain) except where the fused executor keeps values channels-last (fw_superkernel_run_layout). */
  int              layout;
} FwSkRuntime;

/* Which library computes the compute root, decided once when the kernel is generated
 * (fw_hc_choose_producer) and read by the emitters and the report. */
typedef enum {
  FW_SK_PRODUCER_NONE,      /* no compute root */
  FW_SK_PRODUCER_ONEDNN,    /* a oneDNN primitive (fw-host-dnnl.c) */
  FW_SK_PRODUCER_OPENBLAS,  /* sgemm (Conv by im2col) */
  FW_SK_PRODUCER_DIRECT,    /* a grouped Conv with few taps: a direct loop in the epilogue's region */
} FwSkProducerKind;

typedef int (*FwSkEntry) (const FwSkRuntime *rt, const void *const *inputs, void *const *outputs,
                          int n_threads);

struct _FwSuperKernel
{
  FwPlan            *plan;
  const FwCandidate *candidate;
  /* The generated C: written by fw_host_codegen, then owned by kernel_source (its kernel.c). */
  const char        *source;
  FwKernelSource    *kernel_source;
  GPtrArray         *inputs;        /* FwValue*, kernel order */
  GPtrArray         *outputs;       /* FwValue*, kernel order */
  gint64             scratch_elements; /* the row scratch each thread allocates, in 8-byte slots */
  char              *object_path;
  char              *source_hash;
  char              *object_hash;
  FwSuperKernelCache cache;
  GModule           *module;
  FwSkEntry          entry;
  gboolean           half;          /* the source has the half-precision helpers */
  /* A scope's sub-kernel (fw-host-scope.c): the name of its file-local function, and that function's text
     (the entry's body, its constants inside it) for the scope program to include; NULL otherwise. */
  char              *unit_name;
  char              *unit;
  /* A sub-kernel in team form (fw-host-scope.c): its function runs on every thread of the scope program's
     one OpenMP team, its loops as work-shared `omp for` (no parallel region of its own) and its row scratch
     the per-thread buffer of team_scratch_bytes the program passes after its outputs (outs[n_outputs]).
     team_wide: some loop of it wants more than one thread. Set by fw_host_codegen for a sub-kernel that
     calls no library (the libraries run their own threads). */
  gboolean           team;
  gboolean           team_wide;
  gint64             team_scratch_bytes;
  FwSkProducerKind   producer_kind;
  FwSuperKernelProducer producer;  /* what the report prints of producer_kind */
  char              *producer_fallback;  /* why oneDNN does not back the root, or NULL */
  struct _FwDnnlPrim *dnnl;         /* FW_SK_PRODUCER_ONEDNN: the root's primitive */
  /* The group's one output when the primitive computes the whole epilogue (its bias and one elementwise
     function as oneDNN's bias and eltwise post-op: fw-host-producers.c), so the kernel is the primitive
     writing it and no pass of generated C follows; NULL otherwise. */
  FwValue           *absorbed;
  /* With absorbed: the kernel input the primitive adds to its result (a residual Add), or NULL. */
  FwValue           *residual;
  /* A scope program (fw-host-scope.c): each sub-kernel's primitive, NULL where it has none, passed as the
     runtime's producer; the entry hands entry u to sub-kernel u. Owned (not the primitives); NULL otherwise. */
  gpointer          *producer_table;
  /* FW_SK_PRODUCER_ONEDNN sums the root's products in another order than the reference's sgemm: its
     reduction length, |alpha| and operands, from which verification bounds the difference (0 otherwise). */
  guint64            product_k;
  gdouble            product_alpha;
  FwValue           *product_a, *product_b;
  /* A horizontal GEMM's weights side by side (fw-host-hgemm.c), made once when the kernel is generated and
     passed to the entry after its inputs (ins[inputs->len]); NULL otherwise. */
  float             *packed;
  /* An integer kernel whose signed operand is a constant (fw-host-int8.c): the bytes of its packed form (the
     VNNI panel and the column corrections), the input it is packed from, and the packing, made once by the
     object's fw_sk_pack when the kernel is compiled and passed to each run as the table's producer. */
  gsize              int8_pack_bytes;
  guint              int8_pack_input;
  gpointer           int8_pack;
};

/* fw-superkernel.c: fw_superkernel_generate for a scope's sub-kernel, whose unit is named unit_name. */
FwSuperKernel *fw_superkernel_generate_unit (FwPlan            *plan,
                                             const FwCandidate *candidate,
                                             const char        *unit_name,
                                             GError           **error);
/* fw_superkernel_run with one more pointer after the outputs (the entry finds it at outs[n_outputs]): a
 * scope program's arena. */
gboolean  fw_superkernel_run_arena (FwSuperKernel   *kernel,
                                    FwArray *const  *inputs,
                                    FwArray        **outputs,
                                    gpointer         arena,
                                    guint            n_threads,
                                    GError         **error);

/* fw-host-codegen.c: fills kernel->inputs, outputs and source. */
gboolean  fw_host_codegen         (FwSuperKernel   *kernel,
                                   GError         **error);

/* fw-host-toolchain.c: compiles source (or finds it in the cache); fills object_path, hashes and cache. */
gboolean  fw_host_toolchain_build (FwHostToolchain *toolchain,
                                   FwSuperKernel   *kernel,
                                   GError         **error);

G_END_DECLS
